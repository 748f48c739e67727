//! Plots from prepared data: a [`Plot`] says what to draw (series, bands, markers, axes); the
//! renderers turn it into SVG text or PNG bytes. Nothing here computes a model or touches the
//! disk, so every plot can be tested in memory.

use thiserror::Error;

/// A plot could not be drawn.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ReportError {
    /// The plotting library failed.
    #[error("drawing `{plot}` failed: {message}")]
    Draw {
        /// The plot.
        plot: String,
        /// What the library said.
        message: String,
    },
    /// Encoding the PNG failed.
    #[error("encoding `{plot}` as PNG failed: {message}")]
    Png {
        /// The plot.
        plot: String,
        /// What the library said.
        message: String,
    },
    /// Nothing to draw.
    #[error("`{plot}` has no finite data to draw")]
    Empty {
        /// The plot.
        plot: String,
    },
}

/// How the numbers on an axis read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Plain numbers.
    Plain,
    /// Durations in seconds, labelled as `30s`, `5m`, `2h`, `3d`.
    Seconds,
    /// Percentages (the value is already in percent).
    Percent,
}

/// One axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// The label, with its unit.
    pub label: String,
    /// Logarithmic scale.
    pub log: bool,
    /// How tick labels read.
    pub unit: Unit,
}

/// A line through points.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// The points, in drawing order.
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed (a secondary curve).
    pub dashed: bool,
}

/// A shaded band between a lower and an upper curve (a confidence interval).
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// Legend entry.
    pub name: String,
    /// `(x, low, high)`.
    pub points: Vec<(f64, f64, f64)>,
}

/// A marked point (a model's choice, the optimum).
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    /// Legend entry.
    pub name: String,
    /// Where.
    pub x: f64,
    /// Where.
    pub y: f64,
}

/// Everything one plot shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// File stem and identifier (`interval`, `overhead`, ...).
    pub id: String,
    /// The title.
    pub title: String,
    /// Horizontal axis.
    pub x: Axis,
    /// Vertical axis.
    pub y: Axis,
    /// Shaded bands, drawn first.
    pub bands: Vec<Band>,
    /// Lines.
    pub series: Vec<Series>,
    /// Marked points, drawn last.
    pub markers: Vec<Marker>,
    /// Vertical error bars `(x, low, high)`, drawn under the markers, without legend entries.
    pub error_bars: Vec<(f64, f64, f64)>,
}

/// Default size of a rendered plot in pixels.
pub const SIZE: (u32, u32) = (960, 600);

/// Short human label for a tick.
pub fn tick_label(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Plain => short_number(v),
        Unit::Percent => format!("{}%", short_number(v)),
        Unit::Seconds => {
            let a = v.abs();
            // A round tick reads in the largest unit it is a whole number of.
            let whole = |u: f64| a >= u && (a / u - (a / u).round()).abs() < 1e-9;
            if a > 0.0 && a < 1e9 {
                for (u, suffix) in [(86400.0, "d"), (3600.0, "h"), (60.0, "m"), (1.0, "s")] {
                    if whole(u) {
                        return format!("{}{}", short_number(v / u), suffix);
                    }
                }
            }
            let (value, suffix) = if a >= 86400.0 {
                (v / 86400.0, "d")
            } else if a >= 3600.0 {
                (v / 3600.0, "h")
            } else if a >= 60.0 {
                (v / 60.0, "m")
            } else if a >= 1.0 || a == 0.0 {
                (v, "s")
            } else {
                (v * 1e3, "ms")
            };
            format!("{}{}", short_number(value), suffix)
        }
    }
}

fn short_number(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e6).contains(&a) {
        format!("{v:.0e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    }
}

/// The most tick positions considered on one axis before thinning: bounds the time and memory
/// of any range, however wide or far from zero.
const MAX_TICK_CANDIDATES: i64 = 10_000;

/// Whether `plot` has something to draw: a point with finite coordinates on both axes (positive
/// on a log axis). A report shows a plot without one as a sentence instead.
pub fn drawable(plot: &Plot) -> bool {
    let ok = |v: f64, log: bool| v.is_finite() && (!log || v > 0.0);
    let (xl, yl) = (plot.x.log, plot.y.log);
    let series = plot.series.iter().flat_map(|s| s.points.iter().copied());
    let bands = plot
        .bands
        .iter()
        .flat_map(|b| b.points.iter().flat_map(|p| [(p.0, p.1), (p.0, p.2)]));
    let markers = plot.markers.iter().map(|m| (m.x, m.y));
    let xs = series
        .clone()
        .chain(bands.clone())
        .chain(markers.clone())
        .any(|p| ok(p.0, xl));
    let ys = series.chain(bands).chain(markers).any(|p| ok(p.1, yl));
    xs && ys
}

/// Tick positions for a linear axis: multiples of a round step (a round duration for
/// seconds: 10 s, 5 min, 2 h, 1 d, ...), five to ten of them.
pub fn linear_ticks(lo: f64, hi: f64, unit: Unit) -> Vec<f64> {
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        return vec![lo];
    }
    let mut steps: Vec<f64> = Vec::new();
    if unit == Unit::Seconds && span >= 60.0 {
        steps.extend([
            60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0, 10800.0, 21600.0, 43200.0,
        ]);
        steps.extend([
            86400.0,
            2.0 * 86400.0,
            5.0 * 86400.0,
            7.0 * 86400.0,
            14.0 * 86400.0,
            30.0 * 86400.0,
        ]);
        steps.extend([100.0 * 86400.0, 365.25 * 86400.0]);
    }
    if steps.iter().all(|st| span / st > 8.0) || steps.is_empty() {
        let e = span.log10().floor() as i32 - 2;
        for k in e..e + 5 {
            for m in [1.0, 2.0, 2.5, 5.0] {
                steps.push(m * 10f64.powi(k));
            }
        }
    }
    steps.sort_by(|a, b| a.total_cmp(b));
    let step = steps
        .into_iter()
        .find(|st| span / st <= 8.0)
        .unwrap_or(span);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    if last.saturating_sub(first) > MAX_TICK_CANDIDATES {
        // Only when `lo` is so far from zero that the step is lost in its rounding.
        return vec![lo, hi];
    }
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Tick positions for a log axis: round durations for seconds, 1-2-5 steps for numbers, thinned
/// to at most about eight.
pub fn log_ticks(lo: f64, hi: f64, unit: Unit) -> Vec<f64> {
    let mut candidates: Vec<f64> = Vec::new();
    match unit {
        Unit::Seconds => {
            const MIN: f64 = 60.0;
            const H: f64 = 3600.0;
            const D: f64 = 86400.0;
            let mut base = vec![
                1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0,
            ];
            base.extend([
                MIN,
                2.0 * MIN,
                5.0 * MIN,
                10.0 * MIN,
                15.0 * MIN,
                30.0 * MIN,
            ]);
            base.extend([
                H,
                2.0 * H,
                3.0 * H,
                6.0 * H,
                12.0 * H,
                D,
                2.0 * D,
                7.0 * D,
                14.0 * D,
                30.0 * D,
            ]);
            base.extend([
                90.0 * D,
                365.25 * D,
                2.0 * 365.25 * D,
                5.0 * 365.25 * D,
                10.0 * 365.25 * D,
            ]);
            candidates.extend(base.into_iter().filter(|v| *v >= lo && *v <= hi));
            if candidates.len() < 3 {
                // A narrow range: multiples of the coarsest round step that gives three ticks.
                const STEPS: [f64; 16] = [
                    86400.0, 21600.0, 7200.0, 3600.0, 1800.0, 600.0, 300.0, 120.0, 60.0, 30.0,
                    10.0, 5.0, 1.0, 0.1, 0.01, 0.001,
                ];
                for step in STEPS {
                    let first = (lo / step).ceil() as i64;
                    let last = (hi / step).floor() as i64;
                    // A range many thousand steps wide is not narrow: the decades below serve it.
                    if last - first > MAX_TICK_CANDIDATES {
                        break;
                    }
                    if last - first >= 2 {
                        candidates = (first..=last).map(|k| k as f64 * step).collect();
                        break;
                    }
                }
            }
            if candidates.len() < 2 {
                candidates.clear();
            }
        }
        Unit::Plain | Unit::Percent => {}
    }
    if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
        // No log axis spans zero, a negative number or infinity: nothing to mark.
        return Vec::new();
    }
    if candidates.is_empty() && hi / lo <= 64.0 {
        // Narrow ranges read best in powers of two (0.25, 0.5, 1, 2, 4).
        let (a, b) = (lo.log2().floor() as i32, hi.log2().ceil() as i32);
        candidates.extend(
            (a..=b)
                .map(|e| 2f64.powi(e))
                .filter(|v| *v >= lo && *v <= hi),
        );
        if candidates.len() < 3 {
            candidates.clear();
        }
    }
    if candidates.is_empty() {
        let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        let decades = b - a;
        let steps: &[f64] = if decades <= 1 {
            &[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.0]
        } else if decades <= 3 {
            &[1.0, 2.0, 5.0]
        } else {
            &[1.0]
        };
        for e in a..=b {
            for m in steps {
                let v = m * 10f64.powi(e);
                if v >= lo && v <= hi {
                    candidates.push(v);
                }
            }
        }
    }
    let keep = candidates.len().div_ceil(8).max(1);
    candidates
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % keep == 0)
        .map(|(_, v)| v)
        .collect()
}

impl Plot {
    /// Legend entries in drawing order: (name, kind).
    pub fn legend(&self) -> Vec<(String, LegendKind)> {
        let mut v = Vec::new();
        for b in &self.bands {
            v.push((b.name.clone(), LegendKind::Band));
        }
        for s in &self.series {
            v.push((
                s.name.clone(),
                if s.dashed {
                    LegendKind::Dashed
                } else {
                    LegendKind::Line
                },
            ));
        }
        for m in &self.markers {
            v.push((m.name.clone(), LegendKind::Marker));
        }
        v
    }
}

/// What a legend entry shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegendKind {
    /// A shaded band.
    Band,
    /// A solid line.
    Line,
    /// A dashed line.
    Dashed,
    /// A marker.
    Marker,
}

/// Stacked bars: one bar per category, one stacked segment per component.
#[derive(Debug, Clone, PartialEq)]
pub struct StackedBars {
    /// File stem and identifier.
    pub id: String,
    /// The title.
    pub title: String,
    /// Label of the vertical axis, with its unit.
    pub y_label: String,
    /// How the vertical axis reads.
    pub y_unit: Unit,
    /// Bar labels, left to right.
    pub categories: Vec<String>,
    /// `(component name, value per category)`, stacked bottom up.
    pub components: Vec<(String, Vec<f64>)>,
}

/// Either kind of figure, for the functions that render or write both alike.
#[derive(Debug, Clone, Copy)]
pub enum Drawing<'a> {
    /// Lines, bands and markers on two axes.
    Plot(&'a Plot),
    /// Stacked bars.
    Bars(&'a StackedBars),
}

impl Drawing<'_> {
    /// The file stem of the figure's images.
    pub fn id(&self) -> &str {
        match self {
            Drawing::Plot(p) => &p.id,
            Drawing::Bars(b) => &b.id,
        }
    }
}

impl<'a> From<&'a Plot> for Drawing<'a> {
    fn from(p: &'a Plot) -> Self {
        Drawing::Plot(p)
    }
}

impl<'a> From<&'a StackedBars> for Drawing<'a> {
    fn from(b: &'a StackedBars) -> Self {
        Drawing::Bars(b)
    }
}

/// The image files of a figure: `<id>.svg` and `<id>.png` of `size` pixels, or none when the
/// crate is built without the `plots` feature (the report's data and text do not depend on
/// them).
pub fn images<'a>(
    figure: impl Into<Drawing<'a>>,
    size: (u32, u32),
) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
    let figure = figure.into();
    #[cfg(feature = "plots")]
    {
        Ok(vec![
            (
                format!("{}.svg", figure.id()),
                super::render::render_svg(figure, size)?.into_bytes(),
            ),
            (
                format!("{}.png", figure.id()),
                super::render::render_png(figure, size)?,
            ),
        ])
    }
    #[cfg(not(feature = "plots"))]
    {
        let _ = (figure, size);
        Ok(Vec::new())
    }
}

/// A report folder's files in their fixed order: `<stem>.json`, `<stem>.csv`, the images of
/// every drawable plot, then `extra` images, then `report.md` (whose text says what a plot
/// left out would have shown).
pub fn folder(
    stem: &str,
    data: [String; 2],
    plots: &[Plot],
    extra: Vec<(String, Vec<u8>)>,
    markdown: String,
) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
    let [json, csv] = data;
    let mut out = vec![
        (format!("{stem}.json"), json.into_bytes()),
        (format!("{stem}.csv"), csv.into_bytes()),
    ];
    for p in plots.iter().filter(|p| drawable(p)) {
        out.extend(images(p, SIZE)?);
    }
    out.extend(extra);
    out.push(("report.md".to_string(), markdown.into_bytes()));
    Ok(out)
}

#[cfg(feature = "plots")]
pub use super::render::{render_png, render_svg};
