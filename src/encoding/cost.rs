//! The cost of one checkpoint (docs/encodings.md §4), which the interval models take as
//! their checkpoint cost.
//!
//! Neighbour schemes cost one transfer `l + s/B`. A plain checksum is a reduction over the `p`
//! processors of a group, here the `n/g` contributors plus the checksum processor that
//! receives the sum (the same group size section 2 counts): by a tree,
//! `ceil(log2 p) (l + s/B + s/(8F))`, pipelined in chunks `(p-1) l + s/B + s/(8F)`, whichever
//! is lower. A weighted scheme runs `m` such reductions, each after scaling the local data by
//! its weight (one multiply per element, `s/(8F)`). Groups reduce in parallel.

use super::EncodingError;
use super::scheme::SchemeSpec;
use super::survival::{MAX_SURVIVAL_COUNTS, SurvivalRow, survival_table};
use serde::Serialize;

/// Machine figures the cost depends on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct CostParams {
    /// Checkpoint bytes per computation processor `s`.
    pub bytes_per_proc: f64,
    /// Network bandwidth `B`, bytes per second.
    pub bandwidth: f64,
    /// Message latency `l`, seconds (0 when not given).
    pub latency: f64,
    /// Floating-point rate `F`, operations per second; `None` leaves arithmetic out (an
    /// infinitely fast processor).
    pub flops: Option<f64>,
}

impl CostParams {
    /// Checks that every figure is finite and positive (latency may be zero).
    pub fn validate(&self) -> Result<(), EncodingError> {
        let bad = |arg: &'static str, v: f64, accepted: &str| EncodingError::Invalid {
            arg,
            value: v.to_string(),
            accepted: accepted.to_string(),
        };
        if !(self.bytes_per_proc.is_finite() && self.bytes_per_proc > 0.0) {
            return Err(bad("--ckpt-bytes", self.bytes_per_proc, "a positive size"));
        }
        if !(self.bandwidth.is_finite() && self.bandwidth > 0.0) {
            return Err(bad("--bandwidth", self.bandwidth, "a positive bandwidth"));
        }
        if !(self.latency.is_finite() && self.latency >= 0.0) {
            return Err(bad("--latency", self.latency, "a duration of zero or more"));
        }
        if let Some(f) = self.flops
            && !(f.is_finite() && f > 0.0)
        {
            return Err(bad(
                "--flops",
                f,
                "a positive rate in floating-point operations per second",
            ));
        }
        Ok(())
    }

    fn transfer(&self) -> f64 {
        self.latency + self.bytes_per_proc / self.bandwidth
    }

    /// Time to touch every f64 of a checkpoint once.
    fn per_element(&self) -> f64 {
        self.flops.map_or(0.0, |f| self.bytes_per_proc / (8.0 * f))
    }
}

/// Which reduction algorithm is cheaper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReductionAlgorithm {
    /// Binary tree: `ceil(log2 p)` rounds.
    Tree,
    /// Pipelined in chunks along a chain.
    Pipeline,
}

/// The reduction part of a checksum scheme's cost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct ReductionCost {
    /// Processors taking part in one reduction (contributors plus the receiving checksum
    /// processor).
    pub group_procs: usize,
    /// Reductions per checkpoint (`m`; 1 for a plain checksum).
    pub reductions: usize,
    /// One reduction by a tree, seconds.
    pub tree_s: f64,
    /// One reduction pipelined, seconds.
    pub pipeline_s: f64,
    /// The cheaper of the two.
    pub algorithm: ReductionAlgorithm,
    /// Scaling by the weights before each weighted reduction, seconds (0 for plain sums).
    pub scale_s: f64,
}

/// The cost of one checkpoint, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct CostBreakdown {
    /// One neighbour transfer `l + s/B` (neighbour schemes), seconds.
    pub transfer_s: Option<f64>,
    /// The reductions (checksum schemes).
    pub reduction: Option<ReductionCost>,
    /// Total seconds: the checkpoint cost the interval models take.
    pub total_s: f64,
}

/// The cost of one checkpoint of `scheme` on a machine described by `params`.
///
/// ```
/// use ckpt::encoding::{checkpoint_cost, CostParams, SchemeKind, SchemeSpec};
/// let p = CostParams { bytes_per_proc: 1e9, bandwidth: 1e10, latency: 0.0, flops: None };
/// let pair = SchemeSpec::new(SchemeKind::Pair, 64, None, None).unwrap();
/// assert!((checkpoint_cost(&pair, &p).unwrap().total_s - 0.1).abs() < 1e-12);
/// ```
pub fn checkpoint_cost(
    scheme: &SchemeSpec,
    params: &CostParams,
) -> Result<CostBreakdown, EncodingError> {
    params.validate()?;
    if scheme.kind.is_neighbour() {
        let t = params.transfer();
        return within_bound(
            params,
            CostBreakdown {
                transfer_s: Some(t),
                reduction: None,
                total_s: t,
            },
        );
    }
    let p = scheme.group_size() + 1;
    let step = params.transfer() + params.per_element();
    let rounds = (p as f64).log2().ceil();
    let tree_s = rounds * step;
    let pipeline_s = (p - 1) as f64 * params.latency
        + params.bytes_per_proc / params.bandwidth
        + params.per_element();
    let (algorithm, one) = if tree_s <= pipeline_s {
        (ReductionAlgorithm::Tree, tree_s)
    } else {
        (ReductionAlgorithm::Pipeline, pipeline_s)
    };
    let scale_s = if scheme.kind.is_weighted() {
        params.per_element()
    } else {
        0.0
    };
    let reductions = scheme.checksums;
    let total_s = reductions as f64 * (one + scale_s);
    within_bound(
        params,
        CostBreakdown {
            transfer_s: None,
            reduction: Some(ReductionCost {
                group_procs: p,
                reductions,
                tree_s,
                pipeline_s,
                algorithm,
                scale_s,
            }),
            total_s,
        },
    )
}

/// Refuses a checkpoint longer than the longest duration the models and simulators take
/// (500 years), or one whose figures overflow, naming the input whose part of one transfer
/// step is largest: that is the one to change.
fn within_bound(params: &CostParams, cost: CostBreakdown) -> Result<CostBreakdown, EncodingError> {
    // A size over a bandwidth can underflow to 0 s (1e-300 bytes at 1e300 B/s), and the
    // interval models divide by the cost: refused here, naming the size when it is below
    // one byte (the figure that is surely wrong), else the bandwidth.
    if cost.total_s == 0.0 {
        let (arg, value) = if params.bytes_per_proc < 1.0 {
            ("--ckpt-bytes", format!("{:e} B", params.bytes_per_proc))
        } else {
            ("--bandwidth", format!("{:e} B/s", params.bandwidth))
        };
        return Err(EncodingError::Invalid {
            arg,
            value,
            accepted: "figures with which one checkpoint of this scheme takes a positive time (--ckpt-bytes over --bandwidth, plus --latency, rounds to 0 s here)".into(),
        });
    }
    if cost.total_s.is_finite() && cost.total_s <= crate::units::MAX_DURATION_S {
        return Ok(cost);
    }
    let mut parts = vec![
        (
            "--bandwidth",
            params.bytes_per_proc / params.bandwidth,
            format!("{:e} B/s", params.bandwidth),
        ),
        (
            "--latency",
            params.latency,
            crate::units::seconds_in_message(params.latency),
        ),
        (
            "--flops",
            params.per_element(),
            format!("{:e}", params.flops.unwrap_or(f64::INFINITY)),
        ),
    ];
    let worst = (1..parts.len()).fold(0, |w, i| if parts[i].1 > parts[w].1 { i } else { w });
    let (arg, _, value) = parts.swap_remove(worst);
    Err(EncodingError::Invalid {
        arg,
        value,
        accepted: format!(
            "figures with which one checkpoint of this scheme takes at most 500 years (this one takes {})",
            crate::units::seconds_in_message(cost.total_s)
        ),
    })
}

/// What a report beside an interval says about the in-memory level: the scheme, the cost of
/// one checkpoint and the survival of 1, 2, ... simultaneous failures.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct SchemeSummary {
    /// The scheme and its sizes.
    pub scheme: SchemeSpec,
    /// Computation plus extra processors.
    pub total_procs: usize,
    /// The inputs of the cost model.
    pub params: CostParams,
    /// The cost of one checkpoint.
    pub cost: CostBreakdown,
    /// Survival of `1..=up_to` simultaneous failures.
    pub survival: Vec<SurvivalRow>,
}

/// [`checkpoint_cost`] and the survival table for `1..=up_to` failures, in one value.
pub fn scheme_summary(
    scheme: &SchemeSpec,
    params: &CostParams,
    up_to: usize,
) -> Result<SchemeSummary, EncodingError> {
    Ok(SchemeSummary {
        scheme: *scheme,
        total_procs: scheme.total_procs(),
        params: *params,
        cost: checkpoint_cost(scheme, params)?,
        survival: survival_table(scheme, up_to)?,
    })
}

/// How many failure counts a summary lists by default: a few past what the scheme always
/// survives, so the drop is visible, but no more than a survival table holds
/// ([`MAX_SURVIVAL_COUNTS`]): a scheme of more checksums is still a valid interval input, and
/// its table is all ones that far.
pub fn default_survival_rows(scheme: &SchemeSpec) -> usize {
    (scheme.checksums.max(1) + 3)
        .min(scheme.total_procs())
        .min(MAX_SURVIVAL_COUNTS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::SchemeKind;

    fn params(latency: f64, flops: Option<f64>) -> CostParams {
        CostParams {
            bytes_per_proc: 1e9,
            bandwidth: 1e10,
            latency,
            flops,
        }
    }

    /// A checkpoint past 500 years (or one that overflows to infinity) is refused, naming
    /// the figure that makes it so long; 1 GB at 1e-300 B/s is 1e309 s, past f64's range.
    #[test]
    fn a_checkpoint_past_500_years_names_the_slow_figure() {
        let pair = SchemeSpec::new(SchemeKind::Pair, 2, None, None).unwrap();
        let mut p = params(0.0, None);
        p.bandwidth = 1e-300;
        let e = checkpoint_cost(&pair, &p).unwrap_err();
        assert!(
            matches!(&e, EncodingError::Invalid { arg: "--bandwidth", accepted, .. } if accepted.contains("more than 1.8e308 s")),
            "{e}"
        );
        // 1e9 bytes at 1e-3 flop/s, 8 bytes an element: 1.25e11 s of arithmetic a step.
        let weighted = SchemeSpec::new(SchemeKind::Weighted, 64, None, Some(2)).unwrap();
        let mut slow = params(0.0, Some(1e-3));
        assert!(
            checkpoint_cost(&weighted, &slow)
                .is_err_and(|e| matches!(e, EncodingError::Invalid { arg: "--flops", .. }))
        );
        // Just under the bound is accepted: one transfer of 499 years.
        slow.flops = None;
        slow.bandwidth = 1e9 / (499.0 * crate::units::YEAR_S);
        let c = checkpoint_cost(&pair, &slow).unwrap();
        assert!((c.total_s - 499.0 * crate::units::YEAR_S).abs() < 1.0);
    }

    /// Before: 200000 checksums asked for a table of 200003 failure counts, past the
    /// 100000 a table holds, and `ckpt interval` was refused with a message naming
    /// `--failures`, a flag it does not have. Now the default table stops at 100000 rows.
    #[test]
    fn default_rows_fit_a_survival_table() {
        let w = SchemeSpec::new(SchemeKind::Weighted, 1_000_000, None, Some(200_000)).unwrap();
        assert_eq!(default_survival_rows(&w), 100_000);
        let s = scheme_summary(&w, &params(0.0, None), default_survival_rows(&w)).unwrap();
        assert_eq!(s.survival.len(), 100_000);
        // Fewer than 200000 failures among 1200000 processors always leave a solvable set.
        assert!(s.survival.iter().all(|r| r.probability == 1.0));
        // Small schemes keep m + 3 rows.
        let small = SchemeSpec::new(SchemeKind::Weighted, 64, None, Some(4)).unwrap();
        assert_eq!(default_survival_rows(&small), 7);
    }

    /// Before: 1e-300 bytes at 1e300 B/s made a checkpoint of 1e-600 s, which is 0.0 in f64,
    /// returned as Ok and refused by `ckpt interval` as "cost = 0" naming no flag.
    #[test]
    fn a_checkpoint_rounding_to_zero_names_its_figure() {
        let tiny = CostParams {
            bytes_per_proc: 1e-300,
            bandwidth: 1e300,
            latency: 0.0,
            flops: None,
        };
        for kind in [SchemeKind::Pair, SchemeKind::Checksum] {
            let s = SchemeSpec::new(kind, 4, None, None).unwrap();
            assert!(matches!(
                checkpoint_cost(&s, &tiny),
                Err(EncodingError::Invalid {
                    arg: "--ckpt-bytes",
                    ..
                })
            ));
        }
        let fast = CostParams {
            bytes_per_proc: 1.0,
            bandwidth: f64::MAX,
            ..tiny
        };
        let pair = SchemeSpec::new(SchemeKind::Pair, 4, None, None).unwrap();
        // 1 / 1.8e308 is subnormal, not 0: still a positive cost.
        assert!(checkpoint_cost(&pair, &fast).unwrap().total_s > 0.0);
    }

    #[test]
    fn neighbour_is_one_transfer() {
        for kind in [SchemeKind::Mirror, SchemeKind::Ring, SchemeKind::Pair] {
            let s = SchemeSpec::new(kind, 64, None, None).unwrap();
            let c = checkpoint_cost(&s, &params(5e-6, Some(1e10))).unwrap();
            assert!((c.total_s - (5e-6 + 0.1)).abs() < 1e-15);
        }
    }

    #[test]
    fn pipeline_wins_for_large_messages_tree_for_small() {
        let s = SchemeSpec::new(SchemeKind::Checksum, 64, None, None).unwrap();
        // p = 65: tree 7 rounds of (l + 0.1 + 0.0125); pipeline 64 l + 0.1125.
        let c = checkpoint_cost(&s, &params(5e-6, Some(1e10))).unwrap();
        let r = c.reduction.unwrap();
        assert_eq!(r.group_procs, 65);
        assert!((r.tree_s - 7.0 * (5e-6 + 0.1125)).abs() < 1e-12);
        assert!((r.pipeline_s - (64.0 * 5e-6 + 0.1125)).abs() < 1e-12);
        assert_eq!(r.algorithm, ReductionAlgorithm::Pipeline);
        assert_eq!(c.total_s, r.pipeline_s);
        let tiny = CostParams {
            bytes_per_proc: 8.0,
            bandwidth: 1e10,
            latency: 1e-5,
            flops: None,
        };
        let c = checkpoint_cost(&s, &tiny).unwrap();
        assert_eq!(c.reduction.unwrap().algorithm, ReductionAlgorithm::Tree);
    }

    #[test]
    fn weighted_is_m_reductions_plus_scaling() {
        let w = SchemeSpec::new(SchemeKind::Weighted, 64, None, Some(4)).unwrap();
        let c1 = SchemeSpec::new(SchemeKind::Checksum, 64, None, None).unwrap();
        let p = params(5e-6, Some(1e10));
        let cw = checkpoint_cost(&w, &p).unwrap();
        let cc = checkpoint_cost(&c1, &p).unwrap();
        assert!((cw.total_s - 4.0 * (cc.total_s + 0.0125)).abs() < 1e-12);
        // Groups shrink the reduction.
        let g = SchemeSpec::new(SchemeKind::Weighted1d, 64, Some(8), Some(4)).unwrap();
        let cg = checkpoint_cost(&g, &p).unwrap();
        assert_eq!(cg.reduction.unwrap().group_procs, 9);
        assert!(cg.total_s < cw.total_s);
    }

    #[test]
    fn bad_params_name_their_flag() {
        let s = SchemeSpec::new(SchemeKind::Pair, 4, None, None).unwrap();
        let mut p = params(0.0, None);
        p.bandwidth = 0.0;
        assert!(matches!(
            checkpoint_cost(&s, &p),
            Err(EncodingError::Invalid {
                arg: "--bandwidth",
                ..
            })
        ));
        let p = params(-1.0, None);
        assert!(matches!(
            checkpoint_cost(&s, &p),
            Err(EncodingError::Invalid {
                arg: "--latency",
                ..
            })
        ));
        let p = params(0.0, Some(f64::NAN));
        assert!(matches!(
            checkpoint_cost(&s, &p),
            Err(EncodingError::Invalid { arg: "--flops", .. })
        ));
    }
}
