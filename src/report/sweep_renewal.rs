//! The shape sweep report (`sweep --dist FAMILY:K --vary shape=LO..HI` for one job):
//! `sweep.json`, `sweep.csv`, the `gain` and `overhead` plots and `report.md`.

use super::plot::{Axis, Marker, Plot, Series, Unit};
use crate::sweep::renewal::{ShapePoint, ShapeSweepResult, shape_of};
use crate::units::format_duration;
use serde::Serialize;

#[derive(Serialize)]
struct Inputs {
    mtbf_s: f64,
    cost_s: f64,
    restart_s: f64,
    dist: String,
}

#[derive(Serialize)]
struct Doc<'a> {
    param: &'static str,
    family: &'static str,
    #[serde(flatten)]
    range: super::sweep::JsonRange,
    inputs: Inputs,
    given: &'a ShapePoint,
    points: &'a [ShapePoint],
}

/// `sweep.json`: every point's four overheads and the gain, in seconds.
pub fn json(r: &ShapeSweepResult) -> String {
    let s = &r.sweep;
    super::command_document(
        "sweep",
        &Doc {
            param: "shape",
            family: s.family(),
            range: super::sweep::JsonRange::of(&s.range),
            inputs: Inputs {
                mtbf_s: s.mtbf_s,
                cost_s: s.cost_s,
                restart_s: s.restart_s,
                dist: s.dist.to_string(),
            },
            given: &r.base,
            points: &r.points,
        },
    )
}

/// `sweep.csv`: one line per point.
pub fn csv(r: &ShapeSweepResult) -> String {
    let header = "family,shape,schedule_overhead,schedule_chunks,first_chunk_s,last_chunk_s,grid_error,periodic_interval_s,periodic_overhead,young_interval_s,young_overhead,daly_interval_s,daly_overhead,gain_pct";
    let family = r.sweep.family();
    let records = r.points.iter().map(|p| {
        vec![
            family.to_string(),
            format!("{:?}", p.shape),
            format!("{:?}", p.schedule_overhead),
            p.schedule_chunks.to_string(),
            format!("{:?}", p.first_chunk_s),
            format!("{:?}", p.last_chunk_s),
            format!("{:?}", p.grid_error),
            format!("{:?}", p.periodic_interval_s),
            format!("{:?}", p.periodic_overhead),
            format!("{:?}", p.young_interval_s),
            super::csv_cell(p.young_overhead),
            format!("{:?}", p.daly_interval_s),
            super::csv_cell(p.daly_overhead),
            format!("{:?}", p.gain_pct),
        ]
    });
    super::csv_document(header, records)
}

fn x_axis(r: &ShapeSweepResult) -> Axis {
    let what = if r.sweep.family() == "lognormal" {
        "sigma"
    } else {
        "shape"
    };
    Axis {
        label: format!(
            "{what} of the {} distribution (mean fixed)",
            r.sweep.family()
        ),
        log: r.sweep.range.log,
        unit: Unit::Plain,
    }
}

/// A marker at the given `--dist`, where it lies on the axis.
fn given(r: &ShapeSweepResult, y: f64, what: String) -> Vec<Marker> {
    shape_of(r.sweep.dist)
        .filter(|x| (r.sweep.range.lo..=r.sweep.range.hi).contains(x))
        .map(|x| Marker {
            name: format!("--dist {} ({what})", r.sweep.dist),
            x,
            y,
        })
        .into_iter()
        .collect()
}

/// What the schedule saves over the best period, against the shape.
pub fn gain_plot(r: &ShapeSweepResult) -> Plot {
    Plot {
        id: "gain".into(),
        title: "Wall time the schedule saves over the best period".into(),
        x: x_axis(r),
        y: Axis::percent("gain (%)"),
        bands: vec![],
        series: vec![Series {
            name: "schedule over best period".into(),
            points: r.points.iter().map(|p| (p.shape, p.gain_pct)).collect(),
            dashed: false,
        }],
        markers: given(r, r.base.gain_pct, format!("{:.3}%", r.base.gain_pct)),
        error_bars: vec![],
    }
}

/// The four policies' long-run overheads under `F`, against the shape.
pub fn overhead_plot(r: &ShapeSweepResult) -> Plot {
    let series = |name: &str, dashed: bool, f: &dyn Fn(&ShapePoint) -> Option<f64>| Series {
        name: name.into(),
        points: r
            .points
            .iter()
            .filter_map(|p| f(p).map(|y| (p.shape, y)))
            .collect(),
        dashed,
    };
    Plot {
        id: "overhead".into(),
        title: "Long-run overhead of each policy under the failure distribution".into(),
        x: x_axis(r),
        y: Axis::overhead(false),
        bands: vec![],
        series: vec![
            series("renewal-schedule", false, &|p| Some(p.schedule_overhead)),
            series("renewal-periodic", false, &|p| Some(p.periodic_overhead)),
            series("young", true, &|p| p.young_overhead),
            series("daly-complete", true, &|p| p.daly_overhead),
        ],
        markers: given(
            r,
            r.base.schedule_overhead,
            format!("schedule {:.4}", r.base.schedule_overhead),
        ),
        error_bars: vec![],
    }
}

/// The plots, in report order.
pub fn plots(r: &ShapeSweepResult) -> Vec<Plot> {
    vec![gain_plot(r), overhead_plot(r)]
}

fn describe(r: &ShapeSweepResult) -> String {
    let (Some(first), Some(last)) = (r.points.first(), r.points.last()) else {
        return String::new();
    };
    let best = r
        .points
        .iter()
        .max_by(|a, b| a.gain_pct.total_cmp(&b.gain_pct))
        .unwrap_or(first);
    let show = |p: &ShapePoint| {
        format!(
            "at {} the schedule's overhead is {:.4} against {:.4} for the best period (gain {:.3}%; chunks {} to {})",
            p.shape,
            p.schedule_overhead,
            p.periodic_overhead,
            p.gain_pct,
            format_duration(p.first_chunk_s),
            format_duration(p.last_chunk_s)
        )
    };
    format!(
        "{} points of the {} shape: {}; {}. The largest gain is {:.3}% at {}.",
        r.points.len(),
        r.sweep.family(),
        show(first),
        show(last),
        best.gain_pct,
        best.shape
    )
}

super::folder!(
    sweep ShapeSweepResult,
    "ckpt sweep (one job, renewal failures)",
    "Data: `sweep.json` (every point's four overheads, intervals and gain, seconds) and `sweep.csv` (one line per point). PNG copies of the plots sit beside the SVG files.\n"
);

/// The line `sweep --vary shape` prints.
pub fn summary_line(r: &ShapeSweepResult, out: &std::path::Path) -> String {
    let (lo, hi) = (
        r.points.first().map_or(0.0, |p| p.gain_pct),
        r.points.last().map_or(0.0, |p| p.gain_pct),
    );
    format!(
        "{} points of the {} shape; gain of the schedule over the best period {:.3}% at {} to {:.3}% at {}; at --dist {}: {:.3}%; report in {}\n",
        r.points.len(),
        r.sweep.family(),
        lo,
        r.sweep.range.lo,
        hi,
        r.sweep.range.hi,
        r.sweep.dist,
        r.base.gain_pct,
        out.join("report.md").display()
    )
}
