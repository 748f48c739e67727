//! From a fit to `ckpt interval`: the flags to give it, and its recommended interval at the
//! MTBF's estimate and 95% bounds (and at the best family's fit when that is not the
//! exponential).

use super::{Family, FitReport, Fitted};
use crate::failure::Lifetime;
use crate::interval::{self, IntervalInputs, Nodes, Replication};
use crate::model::renewal::Renewal;
use crate::model::replicated::Detect;
use serde::Serialize;

/// One recommended interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdviceRow {
    /// `mtbf-ci-low`, `mtbf`, `mtbf-ci-high` (exponential) or `best-fit`.
    pub at: &'static str,
    /// The distribution given to the model (`exp`, `weibull:0.7031`, ...).
    pub dist: String,
    /// The MTBF given to the model (s): of one node with per-node windows.
    pub mtbf_s: f64,
    /// The `ckpt interval` flags that give this row.
    pub flags: String,
    /// The cost model that answers.
    pub model: Option<&'static str>,
    /// The recommended interval (s).
    pub interval_s: Option<f64>,
    /// Its expected overhead.
    pub overhead: Option<f64>,
    /// Why the interval is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// With the renewal model (a shaped best fit of one job): the chunks after each restart,
    /// the last repeating; `interval_s` is then the first (`docs/models.md` §13).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule_s: Option<Vec<f64>>,
}

/// What to tell `ckpt interval`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Advice {
    /// Flags for the best family by AIC.
    pub flags: String,
    /// Flags for the exponential fit.
    pub flags_exponential: String,
    /// Recommended intervals; empty without a checkpoint cost.
    pub intervals: Vec<AdviceRow>,
    /// The MTBF that `flags` give (s): beyond [`MAX_DURATION_S`](crate::units::MAX_DURATION_S)
    /// no `ckpt interval` takes them.
    #[serde(skip)]
    pub flags_mtbf_s: f64,
}

/// `x` rounded to `digits` significant digits (1 to 17; fewer count as 1, more as 17),
/// printed in the shortest form that reads back.
///
/// ```
/// use ckpt::fit::advice_number;
/// assert_eq!(advice_number(21634.2345, 6), "21634.2");
/// assert_eq!(advice_number(0.703149, 4), "0.7031");
/// assert_eq!(advice_number(2.5e9, 6), "2500000000");
/// assert_eq!(advice_number(1.6492299999999992e-300, 6), "1.64923e-300");
/// assert_eq!(advice_number(2.785313e47, 6), "2.78531e47");
/// assert_eq!(advice_number(1.5, 65536), "1.5");
/// ```
pub fn advice_number(x: f64, digits: i32) -> String {
    let r = round_sig(x, digits);
    // Plain digits in the range people type; beyond it, `1.64923e-300` rather than 300 zeros.
    if r == 0.0 || (1e-6..1e16).contains(&r.abs()) {
        format!("{r}")
    } else {
        format!("{r:e}")
    }
}

fn round_sig(x: f64, digits: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    // Rounded in decimal by the formatter, then read back: exact at every exponent, where
    // scaling by a power of ten loses digits far from 1 (1e-300 came back 1.6492299999999992).
    // An f64 holds at most 17 significant digits: more change nothing (and the formatter
    // refuses a precision past 65535).
    let places = (digits.clamp(1, 17) - 1) as usize;
    format!("{x:.places$e}").parse().unwrap_or(x)
}

/// Significant digits of the times and shapes in the flags.
const TIME_DIGITS: i32 = 6;
const SHAPE_DIGITS: i32 = 4;

struct Setting {
    dist: String,
    mtbf: f64,
    flags: String,
    inputs: Box<dyn Fn(f64, f64) -> IntervalInputs>,
    /// One job whose failures renew with this lifetime: answered by the renewal model.
    renewal: Option<Lifetime>,
}

fn exponential_setting(mtbf: f64, nodes: Option<u64>) -> Setting {
    let m = round_sig(mtbf, TIME_DIGITS);
    match nodes {
        None => Setting {
            dist: "exp".into(),
            mtbf: m,
            flags: format!("--mtbf {}", advice_number(m, TIME_DIGITS)),
            inputs: Box::new(move |cost, restart| IntervalInputs::single(m, cost, restart)),
            renewal: None,
        },
        Some(n) => Setting {
            dist: "exp".into(),
            mtbf: m,
            flags: format!("--nodes {n} --node-mtbf {}", advice_number(m, TIME_DIGITS)),
            inputs: Box::new(move |cost, restart| IntervalInputs {
                nodes: Some(Nodes {
                    count: n,
                    node_mtbf_s: m,
                }),
                ..IntervalInputs::single(m / n as f64, cost, restart)
            }),
            renewal: None,
        },
    }
}

/// One job (no per-node windows): its failures renew with the fitted lifetime, so the renewal
/// model answers with its schedule. Per node: `n` nodes of that lifetime do not form a renewal
/// process; the replicated model with one replica per process is `n` independent nodes, each
/// interval starting with fresh nodes, a failure noticed at once (`immediate`).
fn shaped_setting(dist: &Fitted, nodes: Option<u64>) -> Option<Setting> {
    let m = round_sig(dist.mean()?, TIME_DIGITS);
    let shape = match dist.shape() {
        crate::failure::Shape::Weibull { shape } => crate::failure::Shape::Weibull {
            shape: round_sig(shape, SHAPE_DIGITS),
        },
        crate::failure::Shape::Gamma { shape } => crate::failure::Shape::Gamma {
            shape: round_sig(shape, SHAPE_DIGITS),
        },
        crate::failure::Shape::LogNormal { sigma } => crate::failure::Shape::LogNormal {
            sigma: round_sig(sigma, SHAPE_DIGITS),
        },
        crate::failure::Shape::Exponential => return None,
    };
    let Some(procs) = nodes else {
        return Some(Setting {
            dist: shape.to_string(),
            mtbf: m,
            flags: format!("--mtbf {} --dist {shape}", advice_number(m, TIME_DIGITS)),
            inputs: Box::new(move |cost, restart| IntervalInputs::single(m, cost, restart)),
            renewal: Some(Lifetime::new(shape, m).ok()?),
        });
    };
    Some(Setting {
        dist: shape.to_string(),
        mtbf: m,
        flags: format!(
            "--mtbf {} --dist {shape} --procs {procs} --replicas 1 --detect immediate",
            advice_number(m, TIME_DIGITS)
        ),
        inputs: Box::new(move |cost, restart| IntervalInputs {
            replication: Some(Replication {
                procs,
                replicas: 1,
                detect: Detect::Immediate,
                shape,
            }),
            ..IntervalInputs::single(m, cost, restart)
        }),
        renewal: None,
    })
}

fn row(at: &'static str, s: &Setting, cost: f64, restart: f64) -> AdviceRow {
    let (c, r) = (
        round_sig(cost, TIME_DIGITS),
        round_sig(restart, TIME_DIGITS),
    );
    let mut flags = format!("{} --cost {}", s.flags, advice_number(c, TIME_DIGITS));
    if r > 0.0 {
        flags.push_str(&format!(" --restart {}", advice_number(r, TIME_DIGITS)));
    }
    // One row, filled in by whichever model answers, or given the note saying why none does.
    let mut row = AdviceRow {
        at,
        dist: s.dist.clone(),
        mtbf_s: s.mtbf,
        flags,
        model: None,
        interval_s: None,
        overhead: None,
        note: None,
        schedule_s: None,
    };
    if s.mtbf > crate::units::MAX_DURATION_S {
        row.note = Some(format!(
            "an MTBF of {} is beyond the 500 years the models take",
            crate::units::format_duration(s.mtbf)
        ));
        return row;
    }
    if let Some(life) = s.renewal {
        match Renewal::new(life, c, r).and_then(|j| j.analyze()) {
            Ok(a) => {
                row.interval_s = a.schedule.chunks.first().copied();
                row.model = row.interval_s.map(|_| "renewal-schedule");
                row.overhead = Some(a.schedule.overhead);
                row.schedule_s = Some(a.schedule.chunks);
            }
            Err(e) => row.note = Some(e.to_string()),
        }
        return row;
    }
    match interval::compute(&(s.inputs)(c, r)) {
        Ok(a) => {
            row.model = Some(a.recommended);
            row.interval_s = Some(a.recommended_interval_s);
            row.overhead = a
                .recommended_overhead
                .is_finite()
                .then_some(a.recommended_overhead);
        }
        Err(e) => row.note = Some(e.to_string()),
    }
    row
}

/// The flags for `report`, and with a checkpoint `cost` the recommended intervals at the
/// exponential MTBF's 95% bounds and estimate, and at the best family's fit.
///
/// The numbers in the flags are rounded (6 significant digits for times, 4 for shapes) and
/// the intervals are computed from the rounded values, so that running `ckpt interval` with
/// the printed flags gives the printed interval.
pub fn advise(report: &FitReport, cost: Option<f64>, restart: f64) -> Advice {
    let nodes = report.observation.per_node.map(|n| n.covered);
    let exp = exponential_setting(report.mtbf.point_s, nodes);
    let best = report
        .best
        .filter(|b| *b != Family::Exponential)
        .and_then(|b| report.fit(b))
        .and_then(|f| f.dist.as_ref())
        .and_then(|d| shaped_setting(d, nodes));
    let mut intervals = Vec::new();
    if let Some(c) = cost {
        let [lo, hi] = report.mtbf.ci95_s;
        intervals.push(row(
            "mtbf-ci-low",
            &exponential_setting(lo, nodes),
            c,
            restart,
        ));
        intervals.push(row("mtbf", &exp, c, restart));
        intervals.push(row(
            "mtbf-ci-high",
            &exponential_setting(hi, nodes),
            c,
            restart,
        ));
        if let Some(b) = &best {
            intervals.push(row("best-fit", b, c, restart));
        }
    }
    Advice {
        flags_mtbf_s: best.as_ref().unwrap_or(&exp).mtbf,
        flags: best.as_ref().unwrap_or(&exp).flags.clone(),
        flags_exponential: exp.flags.clone(),
        intervals,
    }
}
