//! The multi-level answer of `interval --level ...` (docs/models.md §12): a table, the
//! `multilevel` JSON object, shell assignments, and the configuration lines of LLNL's SCR,
//! FTI and VeloC.
//!
//! Every renderer is a pure function of the validated levels and the answer.

use super::table::{Align, render};
use crate::model::multilevel::{Levels, MultilevelAnswer, MultilevelError, Pattern};
use crate::units::{format_duration, whole_seconds};
use serde::Serialize;
use thiserror::Error;

/// Why a configuration format cannot hold an answer.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum FormatError {
    /// FTI has four levels.
    #[error(
        "--format fti: FTI has four checkpoint levels (ckpt_l1 to ckpt_l4), this answer has {levels}: give at most four --level"
    )]
    FtiLevels {
        /// Levels given.
        levels: usize,
    },
    /// VeloC has a scratch copy of every checkpoint, an erasure-coded one and a persistent one.
    #[error(
        "--format veloc: VeloC takes two levels (ec_interval and persistent_interval) or three (scratch, ec, persistent), this answer uses {used}"
    )]
    VelocLevels {
        /// Levels the answer uses.
        used: usize,
    },
    /// The rounded pattern could not be evaluated.
    #[error(transparent)]
    Model(#[from] MultilevelError),
}

/// One level in the `multilevel` JSON object (seconds).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JsonLevel {
    /// The level's name.
    pub name: String,
    /// Checkpoint cost.
    pub cost_s: f64,
    /// Restart cost.
    pub restart_s: f64,
    /// MTBF of the class it is the first to survive (null: none).
    pub mtbf_s: Option<f64>,
    /// Whether the pattern writes it.
    pub used: bool,
    /// Its stride (chunks between its checkpoints); null when not used.
    pub stride: Option<u64>,
    /// `stride x base interval` (s of work); null when not used.
    pub interval_s: Option<f64>,
}

/// The `multilevel` object that `interval --level` adds beside the existing fields, whose
/// `recommended_interval_s` is the base interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JsonMultilevel {
    /// Per level, cheapest first.
    pub levels: Vec<JsonLevel>,
    /// The base interval `w` (s of work per chunk).
    pub base_interval_s: f64,
    /// Work per period (top-level stride x `w`).
    pub period_s: f64,
    /// Expected wall time per unit of work.
    pub overhead: f64,
    /// The best single-level answer's interval (only the top level, at the combined rate).
    pub single_level_interval_s: f64,
    /// The best single-level answer's overhead (only the top level, at the combined rate).
    pub single_level_overhead: f64,
    /// Wall time saved against it: `100 (1 - overhead / single_level_overhead)`.
    pub gain_pct: f64,
}

/// The `multilevel` JSON object of an answer.
pub fn json_object(levels: &Levels, answer: &MultilevelAnswer) -> JsonMultilevel {
    let p = &answer.pattern;
    let w = p.interval();
    JsonMultilevel {
        levels: levels
            .levels()
            .iter()
            .zip(p.strides())
            .zip(&answer.used)
            .map(|((l, &k), &used)| JsonLevel {
                name: l.name.clone(),
                cost_s: l.cost,
                restart_s: l.restart,
                mtbf_s: l.mtbf,
                used,
                stride: used.then_some(k),
                interval_s: used.then_some(k as f64 * w),
            })
            .collect(),
        base_interval_s: w,
        period_s: p.period(),
        overhead: answer.overhead,
        single_level_interval_s: answer.single_level.interval,
        single_level_overhead: answer.single_level.overhead,
        gain_pct: answer.gain_pct,
    }
}

/// A standalone JSON document `{"multilevel": {...}, "recommended_interval_s": w}` (the
/// interval report embeds [`json_object`] in its own document instead).
pub fn json(levels: &Levels, answer: &MultilevelAnswer) -> String {
    #[derive(Serialize)]
    struct Doc {
        multilevel: JsonMultilevel,
        recommended_interval_s: f64,
    }
    super::json_document(&Doc {
        multilevel: json_object(levels, answer),
        recommended_interval_s: answer.pattern.interval(),
    })
}

/// The levels as `interval --level` echoes them in its JSON `inputs`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JsonLevelInputs {
    /// Per level: name, cost, restart and MTBF (s).
    pub levels: Vec<JsonLevelInput>,
    /// Downtime before each restart (s).
    pub downtime_s: f64,
    /// Useful work, when given (s).
    pub work_s: Option<f64>,
}

/// One level of [`JsonLevelInputs`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JsonLevelInput {
    /// The level's name.
    pub name: String,
    /// Checkpoint cost (s).
    pub cost_s: f64,
    /// Restart cost (s).
    pub restart_s: f64,
    /// MTBF of its class (s; null: none).
    pub mtbf_s: Option<f64>,
}

impl JsonLevelInputs {
    /// The echo of `levels` and `work`.
    pub fn of(levels: &Levels, work: Option<f64>) -> JsonLevelInputs {
        JsonLevelInputs {
            levels: levels
                .levels()
                .iter()
                .map(|l| JsonLevelInput {
                    name: l.name.clone(),
                    cost_s: l.cost,
                    restart_s: l.restart,
                    mtbf_s: l.mtbf,
                })
                .collect(),
            downtime_s: levels.downtime(),
            work_s: work,
        }
    }
}

/// `interval --level ... --format json`: the fields of the single-level document that apply
/// (`schema_version`, `command`, `inputs`, `recommended`, `recommended_interval_s` = the base
/// interval `w`, `recommended_overhead`, `recommended_efficiency`, `completion_s`) with the
/// [`json_object`] as `multilevel` beside them. `completion_s` is `work x overhead`, the
/// expected wall time of that much work made of whole periods.
pub fn interval_json(levels: &Levels, answer: &MultilevelAnswer, work: Option<f64>) -> String {
    #[derive(Serialize)]
    struct Doc {
        inputs: JsonLevelInputs,
        recommended: &'static str,
        recommended_interval_s: f64,
        recommended_overhead: f64,
        recommended_efficiency: f64,
        completion_s: Option<f64>,
        multilevel: JsonMultilevel,
    }
    super::command_document(
        "interval",
        &Doc {
            inputs: JsonLevelInputs::of(levels, work),
            recommended: "multilevel",
            recommended_interval_s: answer.pattern.interval(),
            recommended_overhead: answer.overhead,
            recommended_efficiency: 1.0 / answer.overhead,
            completion_s: work.map(|w| w * answer.overhead),
            multilevel: json_object(levels, answer),
        },
    )
}

/// `interval --level ...`'s table: [`table`], and with `work` its expected completion time.
pub fn interval_table(levels: &Levels, answer: &MultilevelAnswer, work: Option<f64>) -> String {
    let mut out = table(levels, answer);
    if let Some(w) = work {
        out.push_str(&format!(
            "expected completion of {} of work: {} (as whole periods)\n",
            format_duration(w),
            format_duration(w * answer.overhead)
        ));
    }
    out
}

fn pct(x: f64) -> String {
    format!("{x:.2}%")
}

/// The answer as a table: per level its name, cost, restart, MTBF, whether it is used, its
/// stride and interval; then the base interval, the overhead, and the single-level answer
/// with the gain.
pub fn table(levels: &Levels, answer: &MultilevelAnswer) -> String {
    let p = &answer.pattern;
    let rows: Vec<Vec<String>> = levels
        .levels()
        .iter()
        .zip(p.strides())
        .zip(&answer.used)
        .map(|((l, &k), &used)| {
            vec![
                l.name.clone(),
                format_duration(l.cost),
                format_duration(l.restart),
                l.mtbf.map_or("-".into(), format_duration),
                if used { "yes" } else { "no" }.into(),
                if used { k.to_string() } else { "-".into() },
                if used {
                    format_duration(k as f64 * p.interval())
                } else {
                    "-".into()
                },
            ]
        })
        .collect();
    let mut out = render(
        &[
            "level", "cost", "restart", "mtbf", "used", "stride", "interval",
        ],
        &Align::columns("lrrrlrr"),
        &rows,
    );
    out.push('\n');
    out.push_str(&format!(
        "base interval {} ({:.1} s of work per chunk), period {} ({} chunks)\n",
        format_duration(p.interval()),
        p.interval(),
        format_duration(p.period()),
        p.chunks()
    ));
    out.push_str(&format!(
        "overhead {:.6} (efficiency {:.2}%)\n",
        answer.overhead,
        100.0 / answer.overhead
    ));
    out.push_str(&format!(
        "single level ({} only, at the combined failure rate): interval {}, overhead {:.6}; multi-level saves {}\n",
        levels.levels()[levels.len() - 1].name,
        format_duration(answer.single_level.interval),
        answer.single_level.overhead,
        pct(answer.gain_pct)
    ));
    out
}

/// `CKPT_INTERVAL_SECONDS=<w>` and `CKPT_STRIDES=<one per level, - when left out>`, for `eval`
/// in a batch script.
pub fn env(answer: &MultilevelAnswer) -> String {
    let strides: Vec<String> = answer
        .pattern
        .strides()
        .iter()
        .zip(&answer.used)
        .map(|(k, &u)| if u { k.to_string() } else { "-".into() })
        .collect();
    format!(
        "CKPT_INTERVAL_SECONDS={}\nCKPT_STRIDES={}\n",
        whole_seconds(answer.pattern.interval()),
        strides.join(",")
    )
}

/// SCR's redundancy schemes, to which common level names map.
fn scr_type(name: &str) -> Option<&'static str> {
    match name.to_ascii_lowercase().as_str() {
        "single" | "local" | "ssd" | "memory" | "ram" | "nvme" => Some("SINGLE"),
        "partner" => Some("PARTNER"),
        "xor" => Some("XOR"),
        "rs" | "reed-solomon" | "reedsolomon" => Some("RS"),
        _ => None,
    }
}

/// SCR's configuration: `SCR_CHECKPOINT_SECONDS=<w>` (whole seconds, at least 1; SCR counts
/// them between checkpoints), then one checkpoint descriptor per used level in SCR's syntax,
/// `CKPT=<index> INTERVAL=<stride> TYPE=<type>`, indices from 0 cheapest first: SCR writes
/// checkpoint `n` with the descriptor of the largest interval dividing `n`, which is the
/// pattern's rule. `TYPE` is SCR's scheme when the level's name is one (`SINGLE`, `PARTNER`,
/// `XOR`, `RS`, case-insensitive, with `local` read as `SINGLE`), else the name as given.
///
/// When the top level's name is not one of SCR's cache schemes, the top level is taken to be
/// the parallel file system, which SCR reaches by flushing: it gets no descriptor but
/// `SCR_FLUSH=<its stride>` (checkpoints between flushes).
pub fn scr(levels: &Levels, answer: &MultilevelAnswer) -> String {
    let p = &answer.pattern;
    let mut out = format!("SCR_CHECKPOINT_SECONDS={}\n", whole_seconds(p.interval()));
    let n = levels.len();
    let top = &levels.levels()[n - 1];
    let top_is_fs = scr_type(&top.name).is_none();
    let mut index = 0;
    for (j, l) in levels.levels().iter().enumerate() {
        if !answer.used[j] || (j + 1 == n && top_is_fs) {
            continue;
        }
        let ty = scr_type(&l.name).map_or(l.name.clone(), str::to_string);
        out.push_str(&format!(
            "CKPT={index} INTERVAL={} TYPE={ty}\n",
            p.strides()[j]
        ));
        index += 1;
    }
    if top_is_fs {
        out.push_str(&format!("SCR_FLUSH={}\n", p.chunks()));
    }
    out
}

/// FTI's configuration lines and what rounding to its unit costs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FtiConfig {
    /// `ckpt_l1 = ..` to `ckpt_l4 = ..`, in minutes (0 disables a level).
    pub text: String,
    /// The base interval FTI will use (s): a whole number of minutes.
    pub interval_s: f64,
    /// The overhead of the rounded pattern under the exact model.
    pub overhead: f64,
    /// Its change against the optimum, in percent of the optimum's overhead.
    pub change_pct: f64,
}

/// FTI's `[basic]` lines `ckpt_l1` to `ckpt_l4`.
///
/// FTI takes each level's checkpoint interval as a whole number of **minutes** (its
/// documentation: "L1 checkpointing interval in minutes", 0 disabling the level), which
/// `FTI_Snapshot()` turns into iterations from the measured iteration time; when several levels
/// fall due at once it writes the highest, the pattern's rule. To keep the strides nested
/// after rounding, the base interval is rounded to whole minutes (at least 1) and each used
/// level's interval is its stride times that: the ratios are exact and only `w` moves. The
/// rounded pattern's overhead is computed under the exact model and returned beside the lines
/// (for `w` of an hour the change is below 0.01%; for `w` of a few minutes it can reach
/// percents).
///
/// Levels map onto FTI's by position, with the top level always FTI's L4 (the parallel file
/// system): four levels map to L1..L4, three to L1, L2, L4, two to L1, L4, one to L4; FTI's
/// unused levels get 0. More than four levels cannot be written.
pub fn fti(levels: &Levels, answer: &MultilevelAnswer) -> Result<FtiConfig, FormatError> {
    let n = levels.len();
    if n > 4 {
        return Err(FormatError::FtiLevels { levels: n });
    }
    let p = &answer.pattern;
    let minutes = ((p.interval() / 60.0).round() as u64).max(1);
    let rounded = Pattern::new(minutes as f64 * 60.0, p.strides().to_vec())?;
    let overhead = levels.evaluate(&rounded)?.overhead;
    let mut fti = [0u64; 4];
    for j in 0..n {
        if answer.used[j] {
            let slot = if j + 1 == n { 3 } else { j };
            fti[slot] = p.strides()[j] * minutes;
        }
    }
    let text = fti
        .iter()
        .enumerate()
        .map(|(i, m)| format!("ckpt_l{} = {m}\n", i + 1))
        .collect();
    Ok(FtiConfig {
        text,
        interval_s: rounded.interval(),
        overhead,
        change_pct: 100.0 * (overhead / answer.overhead - 1.0),
    })
}

/// FTI's lines and, as an INI comment after them, the unit and what rounding cost.
pub fn fti_lines(f: &FtiConfig) -> String {
    format!(
        "{}# minutes; the base interval rounded to {} gives overhead {:.6} ({:+.4}% against the optimum)\n",
        f.text,
        format_duration(f.interval_s),
        f.overhead,
        f.change_pct
    )
}

/// VeloC's `ec_interval` and `persistent_interval`, in whole seconds (VeloC compares them with
/// the wall-clock time since the last copy of that kind and copies the first checkpoint at or
/// after it). The values are the levels' intervals in work seconds (`stride x w`, rounded, at
/// least 1): with checkpoint costs below `w` the first checkpoint after that time is the one
/// the stride designates.
///
/// Two used levels map to `ec_interval` (the lower) and `persistent_interval` (the top); three
/// map to VeloC's scratch copy (every checkpoint, the lowest level's stride 1), then EC, then
/// persistent. Any other count cannot be written.
pub fn veloc(answer: &MultilevelAnswer) -> Result<String, FormatError> {
    let p = &answer.pattern;
    let used: Vec<usize> = (0..answer.used.len()).filter(|&j| answer.used[j]).collect();
    let (ec, persistent) = match used.as_slice() {
        [ec, top] | [_, ec, top] => (*ec, *top),
        _ => return Err(FormatError::VelocLevels { used: used.len() }),
    };
    let secs = |j: usize| whole_seconds(p.strides()[j] as f64 * p.interval());
    Ok(format!(
        "ec_interval = {}\npersistent_interval = {}\n",
        secs(ec),
        secs(persistent)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::multilevel::Level;

    const H: f64 = 3600.0;

    fn machine() -> Levels {
        Levels::new(
            vec![
                Level::new("local", 5.0, 10.0, Some(3.0 * H)),
                Level::new("partner", 30.0, 60.0, Some(24.0 * H)),
                Level::new("pfs", 600.0, 900.0, Some(168.0 * H)),
            ],
            0.0,
        )
        .unwrap()
    }

    /// An answer built by hand (the renderers are checked against it, not against the
    /// optimizer): w = 300 s, strides 1, 6, 48.
    fn answer(levels: &Levels, strides: Vec<u64>, w: f64) -> MultilevelAnswer {
        let pattern = Pattern::new(w, strides).unwrap();
        let e = levels.evaluate(&pattern).unwrap();
        MultilevelAnswer {
            used: pattern.used(),
            overhead: e.overhead,
            period_time: e.period_time,
            failures_per_period: e.failures_per_period,
            single_level: crate::model::multilevel::SingleLevel {
                interval: 3000.0,
                overhead: 1.5,
            },
            gain_pct: 100.0 * (1.0 - e.overhead / 1.5),
            first_order: pattern.clone(),
            converged: true,
            patterns_optimized: 1,
            pattern,
        }
    }

    #[test]
    fn table_has_every_level_and_the_gain() {
        let l = machine();
        let a = answer(&l, vec![1, 6, 48], 300.0);
        let t = table(&l, &a);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("level"));
        assert!(lines[1].starts_with("local") && lines[1].contains("5m 0s"));
        assert!(lines[2].contains("partner") && lines[2].contains("30m 0s"));
        assert!(lines[3].contains("pfs") && lines[3].contains("4h 0m 0s"));
        assert!(t.contains("48 chunks"));
        assert!(t.contains(&format!("{:.2}%", a.gain_pct)));
    }

    #[test]
    fn json_object_in_seconds() {
        let l = machine();
        let a = answer(&l, vec![1, 1, 8], 1000.0);
        let v: serde_json::Value = serde_json::from_str(&json(&l, &a)).unwrap();
        let m = &v["multilevel"];
        assert_eq!(v["recommended_interval_s"], 1000.0);
        assert_eq!(m["base_interval_s"], 1000.0);
        assert_eq!(m["period_s"], 8000.0);
        assert_eq!(m["levels"][0]["used"], false);
        assert_eq!(m["levels"][0]["stride"], serde_json::Value::Null);
        assert_eq!(m["levels"][1]["stride"], 1);
        assert_eq!(m["levels"][1]["interval_s"], 1000.0);
        assert_eq!(m["levels"][2]["interval_s"], 8000.0);
        assert_eq!(m["levels"][2]["mtbf_s"], 168.0 * H);
        assert_eq!(m["single_level_overhead"], 1.5);
        assert_eq!(m["overhead"], a.overhead);
    }

    #[test]
    fn env_lines() {
        let l = machine();
        let a = answer(&l, vec![1, 1, 8], 1000.4);
        assert_eq!(env(&a), "CKPT_INTERVAL_SECONDS=1000\nCKPT_STRIDES=-,1,8\n");
    }

    #[test]
    fn scr_lines() {
        let l = machine();
        let a = answer(&l, vec![1, 6, 48], 300.0);
        assert_eq!(
            scr(&l, &a),
            "SCR_CHECKPOINT_SECONDS=300\nCKPT=0 INTERVAL=1 TYPE=SINGLE\nCKPT=1 INTERVAL=6 TYPE=PARTNER\nSCR_FLUSH=48\n"
        );
        // A top level that is a cache scheme gets a descriptor and no flush; a level left out
        // none.
        let cache = Levels::new(
            vec![
                Level::new("single", 5.0, 10.0, Some(3.0 * H)),
                Level::new("partner", 30.0, 60.0, None),
                Level::new("XOR", 60.0, 60.0, Some(24.0 * H)),
            ],
            0.0,
        )
        .unwrap();
        let a = answer(&cache, vec![1, 4, 4], 300.0);
        assert_eq!(
            scr(&cache, &a),
            "SCR_CHECKPOINT_SECONDS=300\nCKPT=0 INTERVAL=1 TYPE=SINGLE\nCKPT=1 INTERVAL=4 TYPE=XOR\n"
        );
    }

    #[test]
    fn fti_minutes_and_the_cost_of_rounding() {
        let l = machine();
        // w = 290 s rounds to 5 minutes: L1 every 5, L2 every 30, the top (FTI's L4) every 240.
        let a = answer(&l, vec![1, 6, 48], 290.0);
        let f = fti(&l, &a).unwrap();
        assert_eq!(
            f.text,
            "ckpt_l1 = 5\nckpt_l2 = 30\nckpt_l3 = 0\nckpt_l4 = 240\n"
        );
        assert_eq!(f.interval_s, 300.0);
        // The rounded overhead is the exact model's at w = 300 s, computed here by the model
        // directly.
        let direct = l
            .evaluate(&Pattern::new(300.0, vec![1, 6, 48]).unwrap())
            .unwrap()
            .overhead;
        assert_eq!(f.overhead, direct);
        assert!((f.change_pct - 100.0 * (direct / a.overhead - 1.0)).abs() < 1e-12);
        assert!(f.change_pct != 0.0);
        // Below half a minute, the interval is one minute.
        let a = answer(&l, vec![1, 6, 48], 20.0);
        assert!(fti(&l, &a).unwrap().text.starts_with("ckpt_l1 = 1\n"));
        // Five levels cannot be written.
        let five = Levels::new(
            (0..5)
                .map(|i| Level::new(&format!("l{i}"), 1.0 + i as f64, 1.0, Some(H)))
                .collect(),
            0.0,
        )
        .unwrap();
        let a = answer(&five, vec![1, 2, 4, 8, 16], 60.0);
        let e = fti(&five, &a).unwrap_err();
        assert_eq!(e, FormatError::FtiLevels { levels: 5 });
        assert!(e.to_string().contains("at most four"));
    }

    #[test]
    fn veloc_two_or_three_levels() {
        let l = machine();
        let a = answer(&l, vec![1, 6, 48], 300.0);
        assert_eq!(
            veloc(&a).unwrap(),
            "ec_interval = 1800\npersistent_interval = 14400\n"
        );
        let a = answer(&l, vec![1, 1, 8], 1000.0);
        assert_eq!(
            veloc(&a).unwrap(),
            "ec_interval = 1000\npersistent_interval = 8000\n"
        );
        let a = answer(&l, vec![1, 1, 1], 1000.0);
        assert_eq!(veloc(&a).unwrap_err(), FormatError::VelocLevels { used: 1 });
    }
}
