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
    /// Durations in seconds, drawn in one unit per axis chosen from its range ([`TimeUnit`]).
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

impl Axis {
    /// The overhead (wall time / work) that the sweeps and validations plot, on a `log` scale
    /// or not.
    pub fn overhead(log: bool) -> Axis {
        Axis {
            label: "overhead (wall time / work)".into(),
            log,
            unit: Unit::Plain,
        }
    }

    /// The checkpoint interval, a duration, on a `log` scale or not.
    pub fn interval(log: bool) -> Axis {
        Axis {
            label: "checkpoint interval".into(),
            log,
            unit: Unit::Seconds,
        }
    }

    /// A percentage (a gain, a regret) under `label`: linear, as a percentage can be negative.
    pub fn percent(label: &str) -> Axis {
        Axis {
            label: label.into(),
            log: false,
            unit: Unit::Percent,
        }
    }
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
    finite_range(x_values(plot), plot.x.log).is_some()
        && finite_range(y_values(plot), plot.y.log).is_some()
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
            for m in [1.0, 2.0, 5.0] {
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
        } else if decades <= 4 {
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

/// The unit of an axis of durations, chosen from the data's range, so that every tick of one
/// axis reads in one unit (`interval (h)`: 18, 20, ... 30, never `18h, 1d, 30h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Milliseconds.
    Millis,
    /// Seconds.
    Seconds,
    /// Minutes.
    Minutes,
    /// Hours.
    Hours,
    /// Days.
    Days,
}

impl TimeUnit {
    /// One of it, in seconds.
    pub fn seconds(self) -> f64 {
        match self {
            TimeUnit::Millis => 1e-3,
            TimeUnit::Seconds => 1.0,
            TimeUnit::Minutes => 60.0,
            TimeUnit::Hours => 3600.0,
            TimeUnit::Days => 86400.0,
        }
    }

    /// Its symbol in an axis title.
    pub fn symbol(self) -> &'static str {
        match self {
            TimeUnit::Millis => "ms",
            TimeUnit::Seconds => "s",
            TimeUnit::Minutes => "min",
            TimeUnit::Hours => "h",
            TimeUnit::Days => "d",
        }
    }

    /// The unit for an axis from `lo` to `hi` seconds: the largest of which the axis' typical
    /// value is at least one (log axis: the geometric middle) or two (linear axis: the largest
    /// magnitude), seconds from 1 s, milliseconds below. Two on a linear axis keeps its tick
    /// numbers whole (18..30 h, not 0.75..1.25 d); one on a log axis puts the middle decade's
    /// round numbers (0.5, 1, 2 h) near its middle.
    pub fn for_range(lo: f64, hi: f64, log: bool) -> TimeUnit {
        let (typical, at_least) = if log && lo > 0.0 && hi > 0.0 {
            // The product of two large durations may overflow; the roots' product does not.
            (lo.sqrt() * hi.sqrt(), 1.0)
        } else {
            (lo.abs().max(hi.abs()), 2.0)
        };
        if typical.is_nan() {
            return TimeUnit::Seconds;
        }
        for u in [TimeUnit::Days, TimeUnit::Hours, TimeUnit::Minutes] {
            if typical >= at_least * u.seconds() {
                return u;
            }
        }
        if typical >= 1.0 || typical == 0.0 {
            TimeUnit::Seconds
        } else {
            TimeUnit::Millis
        }
    }
}

/// An axis as drawn: its title with the unit, where its ticks go and how they read.
#[derive(Debug, Clone, PartialEq)]
pub struct AxisScale {
    /// The title, with the unit chosen for durations (`checkpoint interval (min)`).
    pub title: String,
    /// Tick positions, in the data's own unit (seconds for durations).
    pub ticks: Vec<f64>,
    /// The unit of a duration axis.
    pub time_unit: Option<TimeUnit>,
    percent: bool,
}

impl AxisScale {
    /// The label of a tick at `v` (in the data's unit): a number in the axis' unit, with `%` on
    /// a percentage axis and no unit letter otherwise (the title carries it).
    pub fn label(&self, v: f64) -> String {
        let n = short_number(v / self.time_unit.map_or(1.0, TimeUnit::seconds));
        if self.percent { format!("{n}%") } else { n }
    }

    /// The label of every tick.
    pub fn labels(&self) -> Vec<String> {
        self.ticks.iter().map(|&t| self.label(t)).collect()
    }
}

/// The scale of `axis` over the drawn range `lo..hi`; `whole` for whole-number data on a short
/// axis (levels, counts), which get whole-number ticks.
pub fn axis_scale(axis: &Axis, lo: f64, hi: f64, whole: bool) -> AxisScale {
    let time_unit = (axis.unit == Unit::Seconds).then(|| TimeUnit::for_range(lo, hi, axis.log));
    let d = time_unit.map_or(1.0, TimeUnit::seconds);
    let (l, h) = (lo / d, hi / d);
    let ticks: Vec<f64> = if whole && time_unit.is_none() {
        (l.ceil() as i64..=h.floor() as i64)
            .map(|v| v as f64)
            .collect()
    } else if axis.log {
        // Durations read best in 1-2-5 steps (10, 20, 50 min); powers of two only when those
        // give too few ticks.
        let t = match time_unit.map(|_| log_ticks_125(l, h)) {
            Some(t) if t.len() >= 3 => t,
            _ => log_ticks(l, h, Unit::Plain),
        };
        if t.len() >= 3 {
            t
        } else {
            // A log axis narrower than its round numbers: evenly spaced ones read as well.
            linear_ticks(l, h, Unit::Plain)
                .into_iter()
                .filter(|v| *v > 0.0)
                .collect()
        }
    } else {
        linear_ticks(l, h, Unit::Plain)
    };
    AxisScale {
        title: match time_unit {
            Some(u) => format!("{} ({})", axis.label, u.symbol()),
            None => axis.label.clone(),
        },
        ticks: ticks.into_iter().map(|t| t * d).collect(),
        time_unit,
        percent: axis.unit == Unit::Percent,
    }
}

/// 1, 2 and 5 times the powers of ten from `lo` to `hi`, thinned to at most about eight.
fn log_ticks_125(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
        return Vec::new();
    }
    // At most about 650 decades between the smallest and the largest positive f64: bounded.
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let all: Vec<f64> = (a..=b)
        .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
        .filter(|v| *v >= lo && *v <= hi)
        .collect();
    let keep = all.len().div_ceil(8).max(1);
    all.into_iter().step_by(keep).collect()
}

/// Series whose values differ by less than this fraction everywhere they share an `x` are
/// drawn so that each stays visible, and named in the report.
pub const COINCIDE: f64 = 0.005;

/// The dash pattern of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dash {
    /// Solid.
    Solid,
    /// Dashes.
    Dashed,
    /// Dots.
    Dotted,
    /// Long dashes.
    LongDash,
}

impl Dash {
    /// Dash length and gap in pixels (`None` for solid).
    pub fn pattern(self) -> Option<(u32, u32)> {
        match self {
            Dash::Solid => None,
            Dash::Dashed => Some((10, 6)),
            Dash::Dotted => Some((3, 5)),
            Dash::LongDash => Some((22, 6)),
        }
    }

    fn word(self) -> &'static str {
        match self {
            Dash::Solid => "solid",
            Dash::Dashed => "dashed",
            Dash::Dotted => "dotted",
            Dash::LongDash => "long-dashed",
        }
    }
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineStyle {
    /// Stroke width in pixels.
    pub width: u32,
    /// Dash pattern.
    pub dash: Dash,
}

/// The shape of a marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A hollow circle.
    Ring,
    /// A filled triangle.
    Triangle,
    /// A cross.
    Cross,
    /// A filled circle.
    Dot,
}

/// How a marker is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkerStyle {
    /// Its shape.
    pub shape: Shape,
    /// Its radius in pixels.
    pub size: u32,
}

/// How a confidence band is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BandMode {
    /// A shaded area: wide enough to see beside the line.
    Area,
    /// Error bars with caps: too thin for an area, but wider than the line somewhere.
    ErrorBars,
    /// Narrower than the line everywhere: not drawn, and said in the report.
    Hidden,
}

/// One legend entry: what it names, by index into the plot's bands, series or markers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegendItem {
    /// A band drawn as an area.
    Band(usize),
    /// A band drawn as error bars.
    ErrorBars(usize),
    /// A series.
    Line(usize),
    /// A marker.
    Marker(usize),
}

/// Everything the renderer needs beyond the plot's data, decided from that data alone.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The drawn horizontal range (padded).
    pub x_range: (f64, f64),
    /// The drawn vertical range (padded).
    pub y_range: (f64, f64),
    /// The horizontal axis.
    pub x: AxisScale,
    /// The vertical axis.
    pub y: AxisScale,
    /// Per band.
    pub bands: Vec<BandMode>,
    /// Per series.
    pub lines: Vec<LineStyle>,
    /// Per marker.
    pub markers: Vec<MarkerStyle>,
    /// Groups of series (two or more) that coincide within [`COINCIDE`], in drawing order.
    pub coinciding: Vec<Vec<usize>>,
    /// Groups of markers (two or more) that land on one spot.
    pub stacked: Vec<Vec<usize>>,
    /// The legend: only what is visible.
    pub legend: Vec<LegendItem>,
}

/// A band is an area when its median height is at least this fraction of the vertical range
/// (about 10 pixels of a [`SIZE`] plot), error bars when its largest height is at least
/// [`BAND_VISIBLE`] (wider than a 2-pixel line), and hidden below that.
const BAND_AREA: f64 = 0.02;
const BAND_VISIBLE: f64 = 0.008;

/// Markers closer than this fraction of both axes overlap (a marker is about 14 pixels wide).
const MARKER_NEAR: f64 = 0.025;

fn ok(v: f64, log: bool) -> bool {
    v.is_finite() && (!log || v > 0.0)
}

/// Where `v` falls in `range`, as a fraction (log axes in log space).
fn fraction(v: f64, range: (f64, f64), log: bool) -> f64 {
    if log {
        (v.log10() - range.0.log10()) / (range.1.log10() - range.0.log10())
    } else {
        (v - range.0) / (range.1 - range.0)
    }
}

/// Whether series `a` and `b` coincide: at least two shared `x` with drawable values, and a
/// relative difference below [`COINCIDE`] at every one.
pub fn coincide(a: &Series, b: &Series, x_log: bool, y_log: bool) -> bool {
    // `b`'s first value at each `x`, found in constant time: a sweep of 10^5 points would
    // otherwise compare 10^10 pairs. `0.0` and `-0.0` are one key, as `==` has them.
    let key = |x: f64| if x == 0.0 { 0 } else { x.to_bits() };
    let mut at: std::collections::HashMap<u64, f64> =
        std::collections::HashMap::with_capacity(b.points.len());
    for &(x, y) in &b.points {
        at.entry(key(x)).or_insert(y);
    }
    let mut shared = 0;
    for &(x, ya) in &a.points {
        if !ok(x, x_log) || !ok(ya, y_log) {
            continue;
        }
        let Some(&yb) = at.get(&key(x)) else {
            continue;
        };
        if !ok(yb, y_log) {
            continue;
        }
        let scale = ya.abs().max(yb.abs());
        if scale > 0.0 && (ya - yb).abs() / scale >= COINCIDE {
            return false;
        }
        shared += 1;
    }
    shared >= 2
}

/// Groups of series that coincide pairwise, in drawing order; singletons left out.
pub fn coinciding_groups(plot: &Plot) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, s) in plot.series.iter().enumerate() {
        let home = groups.iter_mut().find(|g| {
            g.iter()
                .all(|&j| coincide(&plot.series[j], s, plot.x.log, plot.y.log))
        });
        match home {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    groups.retain(|g| g.len() > 1);
    groups
}

/// The layout of `plot`, or `None` when it has nothing to draw ([`drawable`]).
pub fn layout(plot: &Plot) -> Option<Layout> {
    let (xl, yl) = (plot.x.log, plot.y.log);
    let x_range = finite_range(x_values(plot), xl)?;
    let y_range = finite_range(y_values(plot), yl)?;
    let whole_x =
        x_values(plot).all(|v| !v.is_finite() || v.fract() == 0.0) && x_range.1 - x_range.0 <= 30.0;
    let x = axis_scale(&plot.x, x_range.0, x_range.1, whole_x);
    let y = axis_scale(&plot.y, y_range.0, y_range.1, false);

    let bands: Vec<BandMode> = plot
        .bands
        .iter()
        .map(|b| {
            let mut h: Vec<f64> = b
                .points
                .iter()
                .filter(|p| ok(p.0, xl) && ok(p.1, yl) && ok(p.2, yl))
                .map(|p| (fraction(p.2, y_range, yl) - fraction(p.1, y_range, yl)).abs())
                .collect();
            h.sort_by(f64::total_cmp);
            match (h.get(h.len() / 2), h.last()) {
                (Some(&m), _) if m >= BAND_AREA => BandMode::Area,
                (_, Some(&top)) if top >= BAND_VISIBLE => BandMode::ErrorBars,
                _ => BandMode::Hidden,
            }
        })
        .collect();

    let coinciding = coinciding_groups(plot);
    let lines: Vec<LineStyle> = plot
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| match coinciding.iter().find(|g| g.contains(&i)) {
            // The first of a group is drawn widest, each next one narrower and with another
            // dash pattern on top of it, so every one shows.
            Some(g) => {
                let k = g.iter().position(|&j| j == i).unwrap_or(0);
                let n = g.len();
                LineStyle {
                    width: (2 + 2 * (n - 1 - k)).min(8) as u32,
                    dash: [Dash::Solid, Dash::Dashed, Dash::Dotted, Dash::LongDash][k % 4],
                }
            }
            None => LineStyle {
                width: 2,
                dash: if s.dashed { Dash::Dashed } else { Dash::Solid },
            },
        })
        .collect();

    // Markers that land on one spot: connected groups of pairwise near ones.
    let at: Vec<Option<(f64, f64)>> = plot
        .markers
        .iter()
        .map(|m| {
            (ok(m.x, xl) && ok(m.y, yl))
                .then(|| (fraction(m.x, x_range, xl), fraction(m.y, y_range, yl)))
        })
        .collect();
    let mut group: Vec<usize> = (0..plot.markers.len()).collect();
    for i in 0..at.len() {
        for j in 0..i {
            if let (Some(a), Some(b)) = (at[i], at[j])
                && (a.0 - b.0).abs() < MARKER_NEAR
                && (a.1 - b.1).abs() < MARKER_NEAR
            {
                let (gi, gj) = (group[i], group[j]);
                for g in group.iter_mut() {
                    if *g == gi {
                        *g = gj;
                    }
                }
            }
        }
    }
    let mut stacked: Vec<Vec<usize>> = Vec::new();
    for i in 0..plot.markers.len() {
        if let Some(g) = stacked.iter_mut().find(|g| group[g[0]] == group[i]) {
            g.push(i);
        } else {
            stacked.push(vec![i]);
        }
    }
    stacked.retain(|g| g.len() > 1);
    let markers: Vec<MarkerStyle> = (0..plot.markers.len())
        .map(|i| match stacked.iter().find(|g| g.contains(&i)) {
            // Rings of growing size around one spot: each colour stays visible.
            Some(g) => MarkerStyle {
                shape: Shape::Ring,
                size: 5 + 3 * g.iter().position(|&j| j == i).unwrap_or(0).min(6) as u32,
            },
            None => match i % 4 {
                0 => MarkerStyle {
                    shape: Shape::Ring,
                    size: 7,
                },
                1 => MarkerStyle {
                    shape: Shape::Triangle,
                    size: 8,
                },
                2 => MarkerStyle {
                    shape: Shape::Cross,
                    size: 7,
                },
                _ => MarkerStyle {
                    shape: Shape::Dot,
                    size: 5,
                },
            },
        })
        .collect();

    let mut legend = Vec::new();
    for (i, mode) in bands.iter().enumerate() {
        match mode {
            BandMode::Area => legend.push(LegendItem::Band(i)),
            BandMode::ErrorBars => legend.push(LegendItem::ErrorBars(i)),
            BandMode::Hidden => {}
        }
    }
    for (i, s) in plot.series.iter().enumerate() {
        if s.points
            .iter()
            .filter(|p| ok(p.0, xl) && ok(p.1, yl))
            .count()
            >= 2
        {
            legend.push(LegendItem::Line(i));
        }
    }
    for (i, a) in at.iter().enumerate() {
        if a.is_some() {
            legend.push(LegendItem::Marker(i));
        }
    }
    Some(Layout {
        x_range,
        y_range,
        x,
        y,
        bands,
        lines,
        markers,
        coinciding,
        stacked,
        legend,
    })
}

fn quoted_list(names: &[String]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} and {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// What a reader cannot see at a glance in `plot`, in sentences for `report.md`: curves that
/// coincide, markers on one spot, a confidence band too thin to draw, a curve with nothing to
/// draw. Empty when there is nothing to say.
pub fn notes(plot: &Plot) -> String {
    let Some(l) = layout(plot) else {
        return String::new();
    };
    let mut out: Vec<String> = Vec::new();
    for g in &l.coinciding {
        let names: Vec<String> = g.iter().map(|&i| plot.series[i].name.clone()).collect();
        let styles: Vec<&str> = g.iter().map(|&i| l.lines[i].dash.word()).collect();
        out.push(format!(
            "{} coincide (less than {}% apart wherever they are drawn): {} lines of decreasing width.",
            quoted_list(&names),
            COINCIDE * 100.0,
            styles.join(", ")
        ));
    }
    for g in &l.stacked {
        let names: Vec<String> = g.iter().map(|&i| plot.markers[i].name.clone()).collect();
        out.push(format!(
            "{} mark nearly the same spot: rings of growing size.",
            quoted_list(&names)
        ));
    }
    for (b, mode) in plot.bands.iter().zip(&l.bands) {
        let widest = b
            .points
            .iter()
            .filter(|p| p.1.is_finite() && p.2.is_finite())
            .map(|p| (p.2 - p.1) / 2.0)
            .fold(0.0, f64::max);
        let widest = match l.y.time_unit {
            Some(u) => format!("{} {}", short_number(widest / u.seconds()), u.symbol()),
            None => short_number(widest),
        };
        match mode {
            BandMode::Area => {}
            BandMode::ErrorBars => out.push(format!(
                "The {} (at most ±{widest}) is too thin for a band: error bars.",
                b.name
            )),
            BandMode::Hidden => out.push(format!(
                "The {} (at most ±{widest}) is narrower than the line, so it is not drawn.",
                b.name
            )),
        }
    }
    for (i, s) in plot.series.iter().enumerate() {
        if !l.legend.contains(&LegendItem::Line(i)) {
            out.push(format!(
                "`{}` has nothing to draw on these axes (fewer than two finite points{}).",
                s.name,
                if plot.y.log {
                    ", or zero on a log axis"
                } else {
                    ""
                }
            ));
        }
    }
    if out.is_empty() {
        String::new()
    } else {
        format!("In this plot: {}", out.join(" "))
    }
}

/// `report.md`'s lines for `plot`: the image under `alt`, then what [`notes`] says about it.
pub fn embed(plot: &Plot, alt: &str) -> String {
    with_notes(&plot.id, alt, notes(plot))
}

/// [`embed`] for stacked bars, with what [`bar_notes`] says about them.
pub fn embed_bars(bars: &StackedBars, alt: &str) -> String {
    with_notes(&bars.id, alt, bar_notes(bars))
}

fn with_notes(id: &str, alt: &str, notes: String) -> String {
    let mut s = format!("![{alt}]({id}.svg)\n\n");
    if !notes.is_empty() {
        s.push_str(&notes);
        s.push_str("\n\n");
    }
    s
}

/// The components of `bars` that show: at least a pixel-ish (0.25% of the tallest bar) high in
/// some bar. The others are left out of the legend.
pub fn visible_components(bars: &StackedBars) -> Vec<bool> {
    let n = bars.categories.len();
    let top = (0..n)
        .map(|i| {
            bars.components
                .iter()
                .map(|(_, v)| v.get(i).copied().unwrap_or(0.0).max(0.0))
                .sum::<f64>()
        })
        .fold(0.0, f64::max);
    bars.components
        .iter()
        .map(|(_, v)| {
            v.iter()
                .any(|&x| x.is_finite() && x >= 0.0025 * top && x > 0.0)
        })
        .collect()
}

/// The sentence for `report.md` naming the components of `bars` too small to see.
pub fn bar_notes(bars: &StackedBars) -> String {
    let hidden: Vec<String> = bars
        .components
        .iter()
        .zip(visible_components(bars))
        .filter(|(_, v)| !v)
        .map(|((n, _), _)| n.clone())
        .collect();
    if hidden.is_empty() {
        String::new()
    } else {
        format!(
            "In this plot: {} {} too small to see in every bar and left out of the legend.",
            quoted_list(&hidden),
            if hidden.len() == 1 { "is" } else { "are" }
        )
    }
}

/// The range of the finite values (positive on a log axis), padded by 5%; `None` without any.
pub(crate) fn finite_range(values: impl Iterator<Item = f64>, log: bool) -> Option<(f64, f64)> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for v in values {
        if ok(v, log) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if lo > hi {
        return None;
    }
    Some(pad_range(lo, hi, log))
}

fn pad_range(lo: f64, hi: f64, log: bool) -> (f64, f64) {
    if log {
        let (l, h) = (lo.log10(), hi.log10());
        let pad = ((h - l) * 0.05).max(0.02);
        (10f64.powf(l - pad), 10f64.powf(h + pad))
    } else {
        let span = hi - lo;
        let pad = if span > 0.0 {
            span * 0.05
        } else {
            lo.abs().max(1.0) * 0.05
        };
        (lo - pad, hi + pad)
    }
}

fn x_values(p: &Plot) -> impl Iterator<Item = f64> + '_ {
    let s = p.series.iter().flat_map(|s| s.points.iter().map(|q| q.0));
    let b = p.bands.iter().flat_map(|b| b.points.iter().map(|q| q.0));
    let e = p.error_bars.iter().map(|q| q.0);
    s.chain(b).chain(e).chain(p.markers.iter().map(|m| m.x))
}

fn y_values(p: &Plot) -> impl Iterator<Item = f64> + '_ {
    let s = p.series.iter().flat_map(|s| s.points.iter().map(|q| q.1));
    let b = p
        .bands
        .iter()
        .flat_map(|b| b.points.iter().flat_map(|q| [q.1, q.2]));
    let e = p.error_bars.iter().flat_map(|q| [q.1, q.2]);
    s.chain(b).chain(e).chain(p.markers.iter().map(|m| m.y))
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

#[cfg(test)]
mod tests {
    use super::*;

    const H: f64 = 3600.0;

    fn axis(log: bool, unit: Unit) -> Axis {
        Axis {
            label: "interval".into(),
            log,
            unit,
        }
    }

    fn series(name: &str, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.into(),
            points,
            dashed: false,
        }
    }

    fn plot(series: Vec<Series>, markers: Vec<Marker>, bands: Vec<Band>) -> Plot {
        Plot {
            id: "p".into(),
            title: "t".into(),
            x: axis(true, Unit::Seconds),
            y: Axis {
                label: "overhead".into(),
                log: false,
                unit: Unit::Plain,
            },
            bands,
            series,
            markers,
            error_bars: vec![],
        }
    }

    /// Every label is a plain number: no unit letter, so no axis can mix units.
    fn plain_numbers(labels: &[String]) -> bool {
        labels.iter().all(|l| l.parse::<f64>().is_ok())
    }

    #[test]
    fn a_duration_axis_reads_in_one_unit_chosen_from_its_range() {
        assert_eq!(
            TimeUnit::for_range(18.0 * H, 30.0 * H, false),
            TimeUnit::Hours
        );
        assert_eq!(
            TimeUnit::for_range(50.0 * 60.0, 70.0 * 60.0, false),
            TimeUnit::Minutes
        );
        assert_eq!(
            TimeUnit::for_range(3.0 * 86400.0, 9.0 * 86400.0, false),
            TimeUnit::Days
        );
        assert_eq!(TimeUnit::for_range(5.0, 40.0, false), TimeUnit::Seconds);
        assert_eq!(TimeUnit::for_range(0.002, 0.5, false), TimeUnit::Millis);
        // Log axes by their geometric middle: 15 min to 7 d is about 6.5 h in the middle.
        assert_eq!(
            TimeUnit::for_range(900.0, 7.0 * 86400.0, true),
            TimeUnit::Hours
        );
        assert_eq!(TimeUnit::for_range(105.0, 1680.0, true), TimeUnit::Minutes);

        // 18 h to 30 h: every two hours, in hours (the old labels read `18h, 1d, 30h`).
        let s = axis_scale(&axis(false, Unit::Seconds), 18.0 * H, 30.0 * H, false);
        assert_eq!(s.title, "interval (h)");
        assert_eq!(s.labels(), ["18", "20", "22", "24", "26", "28", "30"]);
        // 50 to 70 min: in minutes (the old labels read `50m, 1h, 70m`).
        let s = axis_scale(&axis(false, Unit::Seconds), 3000.0, 4200.0, false);
        assert_eq!(s.title, "interval (min)");
        assert_eq!(s.labels(), ["50", "55", "60", "65", "70"]);
        // A log axis of durations steps 1-2-5 in its unit.
        let s = axis_scale(&axis(true, Unit::Seconds), 105.0, 1680.0, false);
        assert_eq!(s.labels(), ["2", "5", "10", "20"]);
        assert!((s.ticks[1] - 300.0).abs() < 1e-9);
        // A narrow log axis (5.6 to 7.1 min) gets evenly spaced round numbers, not one tick.
        let s = axis_scale(&axis(true, Unit::Seconds), 336.0, 426.0, false);
        assert_eq!(
            s.labels(),
            ["5.6", "5.8", "6", "6.2", "6.4", "6.6", "6.8", "7"]
        );
    }

    #[test]
    fn ticks_are_few_and_plain_over_any_range() {
        for (lo, hi, log) in [
            (1.0, 1e9, true),
            (1e12, 1e15, true),
            (1e-300, 1e300, true),
            (1.0, 1.0 + 1e-9, false),
            (0.0, 1e300, false),
            (1e12, 1e15, false),
        ] {
            let s = axis_scale(&axis(log, Unit::Seconds), lo, hi, false);
            assert!(s.ticks.len() <= 12, "{lo}..{hi}: {:?}", s.ticks);
            assert!(plain_numbers(&s.labels()), "{lo}..{hi}: {:?}", s.labels());
            assert!(
                s.ticks
                    .iter()
                    .all(|t| *t >= lo * (1.0 - 1e-9) && *t <= hi * (1.0 + 1e-9))
            );
        }
        let pct = axis_scale(&axis(false, Unit::Percent), 0.0, 5.0, false);
        assert_eq!(pct.labels(), ["0%", "1%", "2%", "3%", "4%", "5%"]);
        let levels = axis_scale(&axis(false, Unit::Plain), 0.75, 6.25, true);
        assert_eq!(levels.ticks, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    }

    #[test]
    fn coinciding_series_are_found_and_drawn_distinctly() {
        let x: Vec<f64> = (1..=20).map(|i| i as f64 * 600.0).collect();
        let base = |k: f64| x.iter().map(|&t| (t, 1.0 + k * t / 12000.0)).collect();
        let p = plot(
            vec![
                series("young", base(1.2)),
                series("exact", base(1.0)),
                // 0.1% above exact everywhere: coincides.
                series(
                    "complete",
                    x.iter()
                        .map(|&t| (t, 1.001 * (1.0 + t / 12000.0)))
                        .collect(),
                ),
                // 0.6% above exact at one point: does not.
                series(
                    "other",
                    x.iter()
                        .map(|&t| {
                            (
                                t,
                                (1.0 + t / 12000.0) * if t == 6000.0 { 1.006 } else { 1.0 },
                            )
                        })
                        .collect(),
                ),
                // One shared point only: nothing to compare along.
                series("dot", vec![(600.0, 1.05)]),
            ],
            vec![],
            vec![],
        );
        assert_eq!(coinciding_groups(&p), vec![vec![1, 2]]);
        let l = layout(&p).unwrap();
        assert_ne!(l.lines[1], l.lines[2]);
        assert!(
            l.lines[1].width > l.lines[2].width,
            "the first drawn is the widest"
        );
        assert_eq!(
            l.lines[0],
            LineStyle {
                width: 2,
                dash: Dash::Solid
            }
        );
        // A one-point series draws nothing: no legend entry, and the report says so.
        assert!(!l.legend.contains(&LegendItem::Line(4)));
        let n = notes(&p);
        assert!(n.contains("`exact` and `complete` coincide"), "{n}");
        assert!(n.contains("`dot` has nothing to draw"), "{n}");
    }

    #[test]
    fn markers_on_one_spot_become_rings_of_growing_size() {
        let curve = series("curve", vec![(60.0, 1.0), (6000.0, 2.0)]);
        let m = |name: &str, x: f64, y: f64| Marker {
            name: name.into(),
            x,
            y,
        };
        let p = plot(
            vec![curve],
            vec![
                m("a", 600.0, 1.5),
                m("far", 3000.0, 1.9),
                m("b", 601.0, 1.5005),
                m("c", 602.0, 1.501),
            ],
            vec![],
        );
        let l = layout(&p).unwrap();
        assert_eq!(l.stacked, vec![vec![0, 2, 3]]);
        let sizes: Vec<u32> = [0, 2, 3].iter().map(|&i| l.markers[i].size).collect();
        assert!(sizes.windows(2).all(|w| w[0] < w[1]), "{sizes:?}");
        assert!([0, 2, 3].iter().all(|&i| l.markers[i].shape == Shape::Ring));
        assert!(notes(&p).contains("`a`, `b` and `c` mark nearly the same spot"));
    }

    #[test]
    fn a_band_thinner_than_the_line_is_error_bars_or_hidden() {
        let x: Vec<f64> = (1..=10).map(|i| i as f64 * 60.0).collect();
        let curve = series("mean", x.iter().map(|&t| (t, t / 60.0)).collect());
        // The vertical range is about 1..10: a band 1 high is wide, 0.1 thin, 0.01 invisible.
        let band = |half: f64| Band {
            name: "CI".into(),
            points: x
                .iter()
                .map(|&t| (t, t / 60.0 - half, t / 60.0 + half))
                .collect(),
        };
        for (half, mode) in [
            (0.5, BandMode::Area),
            (0.05, BandMode::ErrorBars),
            (0.005, BandMode::Hidden),
        ] {
            let p = plot(vec![curve.clone()], vec![], vec![band(half)]);
            let l = layout(&p).unwrap();
            assert_eq!(l.bands, vec![mode], "half-width {half}");
            assert_eq!(
                l.legend.contains(&LegendItem::Band(0)),
                mode == BandMode::Area
            );
            if mode == BandMode::Hidden {
                assert!(notes(&p).contains("narrower than the line"));
            }
        }
    }

    #[test]
    fn bar_components_too_small_to_see_leave_the_legend() {
        let bars = StackedBars {
            id: "b".into(),
            title: "t".into(),
            y_label: "time".into(),
            y_unit: Unit::Seconds,
            categories: vec!["a".into(), "b".into()],
            components: vec![
                ("big".into(), vec![1000.0, 800.0]),
                ("tiny".into(), vec![1.0, 0.0]),
                ("none".into(), vec![0.0, 0.0]),
            ],
        };
        assert_eq!(visible_components(&bars), [true, false, false]);
        assert!(bar_notes(&bars).contains("`tiny` and `none` are too small"));
    }
}
