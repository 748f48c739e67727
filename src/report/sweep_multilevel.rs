//! The multi-level sweep report (`sweep --level ... --vary levelN.X=LO..HI`): `sweep.json`,
//! `sweep.csv`, the `intervals`, `strides`, `gain` and `overhead` plots and `report.md`.

use super::multilevel::JsonLevelInputs;
use super::plot::{Axis, Marker, Plot, Series, Unit};
use crate::sweep::multilevel::{LevelSweepPoint, LevelSweepResult};
use crate::units::format_duration;
use serde::Serialize;

#[derive(Serialize)]
struct Doc<'a> {
    param: String,
    #[serde(flatten)]
    range: super::sweep::JsonRange,
    inputs: JsonLevelInputs,
    recommended_interval_s: f64,
    recommended_overhead: f64,
    recommended_strides: Vec<Option<u64>>,
    points: &'a [LevelSweepPoint],
}

/// `sweep.json`: the optimum at every point, in seconds.
pub fn json(r: &LevelSweepResult) -> String {
    let s = &r.sweep;
    super::command_document(
        "sweep",
        &Doc {
            param: s.name(),
            range: super::sweep::JsonRange::of(&s.range),
            inputs: JsonLevelInputs::of(&s.levels, None),
            recommended_interval_s: r.base.pattern.interval(),
            recommended_overhead: r.base.overhead,
            recommended_strides: crate::validate::multilevel::shown(&r.base.pattern),
            points: &r.points,
        },
    )
}

/// `sweep.csv`: one line per (point, level).
pub fn csv(r: &LevelSweepResult) -> String {
    let header = "param,value,level,name,used,stride,interval_s,base_interval_s,overhead,single_level_overhead,gain_pct";
    let names: Vec<String> = r
        .sweep
        .levels
        .levels()
        .iter()
        .map(|l| l.name.clone())
        .collect();
    let param = r.sweep.name();
    let records = r.points.iter().flat_map(|p| {
        let (names, param) = (&names, &param);
        p.strides.iter().enumerate().map(move |(j, k)| {
            vec![
                param.clone(),
                format!("{:?}", p.value),
                (j + 1).to_string(),
                names[j].clone(),
                k.is_some().to_string(),
                k.map(|k| k.to_string()).unwrap_or_default(),
                super::csv_cell(k.map(|k| k as f64 * p.base_interval_s)),
                format!("{:?}", p.base_interval_s),
                format!("{:?}", p.overhead),
                format!("{:?}", p.single_level_overhead),
                format!("{:?}", p.gain_pct),
            ]
        })
    });
    super::csv_document(header, records)
}

fn x_axis(r: &LevelSweepResult) -> Axis {
    let s = &r.sweep;
    Axis {
        label: format!(
            "{} of level {} ({})",
            s.param.name(),
            s.level + 1,
            s.levels.levels()[s.level].name
        ),
        log: s.range.log,
        unit: Unit::Seconds,
    }
}

fn given(r: &LevelSweepResult, y: f64, what: &str) -> Vec<Marker> {
    let s = &r.sweep;
    let l = &s.levels.levels()[s.level];
    let x = match s.param {
        crate::sweep::multilevel::MultilevelSweepParam::Cost => Some(l.cost),
        crate::sweep::multilevel::MultilevelSweepParam::Restart => Some(l.restart),
        crate::sweep::multilevel::MultilevelSweepParam::Mtbf => l.mtbf,
    };
    // Only where the given input is a point of the axis.
    x.filter(|x| (s.range.lo..=s.range.hi).contains(x))
        .map(|x| Marker {
            name: format!("at the given inputs ({what})"),
            x,
            y,
        })
        .into_iter()
        .collect()
}

fn per_level(r: &LevelSweepResult, f: impl Fn(&LevelSweepPoint, u64) -> f64) -> Vec<Series> {
    r.sweep
        .levels
        .levels()
        .iter()
        .enumerate()
        .map(|(j, l)| Series {
            name: l.name.clone(),
            points: r
                .points
                .iter()
                .filter_map(|p| p.strides[j].map(|k| (p.value, f(p, k))))
                .collect(),
            dashed: false,
        })
        .filter(|s| !s.points.is_empty())
        .collect()
}

/// Each used level's checkpoint interval (stride x w) against the swept input.
pub fn intervals_plot(r: &LevelSweepResult) -> Plot {
    Plot {
        id: "intervals".into(),
        title: format!(
            "Each level's checkpoint interval as {} varies",
            r.sweep.name()
        ),
        x: x_axis(r),
        y: Axis {
            label: "work between checkpoints of the level".into(),
            log: true,
            unit: Unit::Seconds,
        },
        bands: vec![],
        series: per_level(r, |p, k| k as f64 * p.base_interval_s),
        markers: vec![],
        error_bars: vec![],
    }
}

/// Each used level's stride against the swept input.
pub fn strides_plot(r: &LevelSweepResult) -> Plot {
    Plot {
        id: "strides".into(),
        title: format!(
            "Strides (chunks between checkpoints) as {} varies",
            r.sweep.name()
        ),
        x: x_axis(r),
        y: Axis {
            label: "stride (chunks of w)".into(),
            log: true,
            unit: Unit::Plain,
        },
        bands: vec![],
        series: per_level(r, |_, k| k as f64),
        markers: vec![],
        error_bars: vec![],
    }
}

/// The gain of the multi-level answer over the single-level one.
pub fn gain_plot(r: &LevelSweepResult) -> Plot {
    Plot {
        id: "gain".into(),
        title: "Wall time saved against checkpointing only the top level".into(),
        x: x_axis(r),
        y: Axis::percent("gain (%)"),
        bands: vec![],
        series: vec![Series {
            name: "multi-level gain".into(),
            points: r.points.iter().map(|p| (p.value, p.gain_pct)).collect(),
            dashed: false,
        }],
        markers: given(r, r.base.gain_pct, &format!("{:.1}%", r.base.gain_pct)),
        error_bars: vec![],
    }
}

/// The multi-level and the single-level overheads.
pub fn overhead_plot(r: &LevelSweepResult) -> Plot {
    Plot {
        id: "overhead".into(),
        title: "Expected overhead at the optimum".into(),
        x: x_axis(r),
        y: Axis::overhead(false),
        bands: vec![],
        series: vec![
            Series {
                name: "multi-level".into(),
                points: r.points.iter().map(|p| (p.value, p.overhead)).collect(),
                dashed: false,
            },
            Series {
                name: "single level (top only)".into(),
                points: r
                    .points
                    .iter()
                    .map(|p| (p.value, p.single_level_overhead))
                    .collect(),
                dashed: true,
            },
        ],
        markers: given(r, r.base.overhead, &format!("{:.4}", r.base.overhead)),
        error_bars: vec![],
    }
}

/// The plots, in report order.
pub fn plots(r: &LevelSweepResult) -> Vec<Plot> {
    vec![
        intervals_plot(r),
        strides_plot(r),
        gain_plot(r),
        overhead_plot(r),
    ]
}

fn describe(r: &LevelSweepResult) -> String {
    let (Some(first), Some(last)) = (r.points.first(), r.points.last()) else {
        return String::new();
    };
    let show = |p: &LevelSweepPoint| {
        format!(
            "at {} the strides are {} with w = {} (overhead {:.4}, gain {:.1}%)",
            format_duration(p.value),
            p.strides
                .iter()
                .map(|k| k.map_or("-".into(), |k| k.to_string()))
                .collect::<Vec<_>>()
                .join(","),
            format_duration(p.base_interval_s),
            p.overhead,
            p.gain_pct
        )
    };
    format!(
        "{} points of {}: {}; {}.",
        r.points.len(),
        r.sweep.name(),
        show(first),
        show(last)
    )
}

super::folder!(
    sweep LevelSweepResult,
    "ckpt sweep (multi-level)",
    "Data: `sweep.json` (the optimum at every point, seconds) and `sweep.csv` (one line per point and level). PNG copies of the plots sit beside the SVG files.\n"
);

/// The line `sweep --level` prints.
pub fn summary_line(r: &LevelSweepResult, out: &std::path::Path) -> String {
    format!(
        "{} points of {}; at the given inputs: base interval {} ({} s), overhead {:.4}, gain {:.1}%; report in {}\n",
        r.points.len(),
        r.sweep.name(),
        format_duration(r.base.pattern.interval()),
        super::table::plain_seconds(r.base.pattern.interval()),
        r.base.overhead,
        r.base.gain_pct,
        out.join("report.md").display()
    )
}
