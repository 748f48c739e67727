//! Plots from prepared data: a [`Plot`] says what to draw (series, bands, markers, axes); the
//! renderers turn it into SVG text or PNG bytes. Nothing here computes a model or touches the
//! disk, so every plot can be tested in memory.

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::sync::Once;
use thiserror::Error;

/// The font every plot is drawn with, bundled so that no system font is needed (DejaVu Sans,
/// under the Bitstream Vera licence: `data/fonts/DejaVu-LICENSE.txt`).
static FONT: &[u8] = include_bytes!("../../data/fonts/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

/// A plot could not be drawn.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ReportError {
    /// The plotting library failed.
    #[error("drawing `{plot}` failed: {message}")]
    Draw { plot: String, message: String },
    /// Encoding the PNG failed.
    #[error("encoding `{plot}` as PNG failed: {message}")]
    Png { plot: String, message: String },
    /// Nothing to draw.
    #[error("`{plot}` has no finite data to draw")]
    Empty { plot: String },
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

fn palette(i: usize) -> RGBColor {
    // Colour-blind-safe (Okabe-Ito) first, then darker extras.
    const C: [RGBColor; 10] = [
        RGBColor(0, 114, 178),
        RGBColor(213, 94, 0),
        RGBColor(0, 158, 115),
        RGBColor(204, 121, 167),
        RGBColor(230, 159, 0),
        RGBColor(86, 180, 233),
        RGBColor(0, 0, 0),
        RGBColor(170, 68, 68),
        RGBColor(102, 102, 51),
        RGBColor(120, 90, 180),
    ];
    C[i % C.len()]
}

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

/// A linear axis with chosen tick positions (plotters' own key points ignore units).
#[derive(Clone)]
struct Ticked {
    inner: plotters::coord::types::RangedCoordf64,
    ticks: Vec<f64>,
}

impl Ticked {
    fn new(lo: f64, hi: f64, ticks: Vec<f64>) -> Ticked {
        Ticked {
            inner: (lo..hi).into(),
            ticks,
        }
    }
}

impl plotters::coord::ranged1d::Ranged for Ticked {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;
    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }
    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }
    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
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

fn finite_range(values: impl Iterator<Item = f64>, log: bool) -> Option<(f64, f64)> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for v in values {
        if v.is_finite() && (!log || v > 0.0) {
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

impl Plot {
    fn x_values(&self) -> impl Iterator<Item = f64> + '_ {
        let s = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0));
        let b = self.bands.iter().flat_map(|b| b.points.iter().map(|p| p.0));
        s.chain(b).chain(self.markers.iter().map(|m| m.x))
    }

    fn y_values(&self) -> impl Iterator<Item = f64> + '_ {
        let s = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1));
        let b = self
            .bands
            .iter()
            .flat_map(|b| b.points.iter().flat_map(|p| [p.1, p.2]));
        s.chain(b).chain(self.markers.iter().map(|m| m.y))
    }

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

fn register_font() {
    REGISTER.call_once(|| {
        // The bundled font is valid; a failure here would only lose text, never crash.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// Renders `plot` as an SVG document of `size` pixels.
pub fn render_svg(plot: &Plot, size: (u32, u32)) -> Result<String, ReportError> {
    register_font();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        draw(plot, root)?;
    }
    Ok(out)
}

/// Renders `plot` as PNG bytes of `size` pixels.
pub fn render_png(plot: &Plot, size: (u32, u32)) -> Result<Vec<u8>, ReportError> {
    register_font();
    let mut rgb = vec![0u8; (size.0 * size.1 * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        draw(plot, root)?;
    }
    encode_png(&plot.id, &rgb, size)
}

fn draw<DB: DrawingBackend>(
    plot: &Plot,
    root: DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), ReportError> {
    let fail = |e: String| ReportError::Draw {
        plot: plot.id.clone(),
        message: e,
    };
    let (xr, yr) = match (
        finite_range(plot.x_values(), plot.x.log),
        finite_range(plot.y_values(), plot.y.log),
    ) {
        (Some(x), Some(y)) => (x, y),
        _ => {
            return Err(ReportError::Empty {
                plot: plot.id.clone(),
            });
        }
    };
    root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
    // The title spans the whole width, legend column included, so a long one is not clipped.
    let root = root
        .titled(&plot.title, ("sans-serif", 22))
        .map_err(|e| fail(e.to_string()))?;
    let (w, _) = root.dim_in_pixel();
    // The legend gets a column of its own, so it can never cover the data.
    let longest = plot
        .legend()
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0) as u32;
    let legend_w = (longest * 8 + 50).clamp(120, w / 2);
    let (chart_area, legend_area) = root.split_horizontally(w - legend_w);
    let xl = || {
        (xr.0..xr.1)
            .log_scale()
            .with_key_points(log_ticks(xr.0, xr.1, plot.x.unit))
    };
    let yl = || {
        (yr.0..yr.1)
            .log_scale()
            .with_key_points(log_ticks(yr.0, yr.1, plot.y.unit))
    };
    // Whole-number data on a short axis (levels, counts) get whole-number ticks.
    let integer_x =
        plot.x_values().all(|v| !v.is_finite() || v.fract() == 0.0) && xr.1 - xr.0 <= 30.0;
    let xn = || {
        let ticks = if integer_x {
            (xr.0.ceil() as i64..=xr.1.floor() as i64)
                .map(|v| v as f64)
                .collect()
        } else {
            linear_ticks(xr.0, xr.1, plot.x.unit)
        };
        Ticked::new(xr.0, xr.1, ticks)
    };
    let yn = || Ticked::new(yr.0, yr.1, linear_ticks(yr.0, yr.1, plot.y.unit));
    match (plot.x.log, plot.y.log) {
        (false, false) => chart(plot, &chart_area, xn(), yn()),
        (true, false) => chart(plot, &chart_area, xl(), yn()),
        (false, true) => chart(plot, &chart_area, xn(), yl()),
        (true, true) => chart(plot, &chart_area, xl(), yl()),
    }
    .map_err(fail)?;
    legend(plot, &legend_area).map_err(fail)?;
    root.present().map_err(|e| fail(e.to_string()))?;
    Ok(())
}

fn chart<DB, XS, YS>(
    plot: &Plot,
    area: &DrawingArea<DB, plotters::coord::Shift>,
    xs: XS,
    ys: YS,
) -> Result<(), String>
where
    DB: DrawingBackend,
    XS: AsRangedCoord<Value = f64>,
    YS: AsRangedCoord<Value = f64>,
    XS::CoordDescType: ValueFormatter<f64>,
    YS::CoordDescType: ValueFormatter<f64>,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let mut ch = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(xs, ys)
        .map_err(e)?;
    let (xu, yu) = (plot.x.unit, plot.y.unit);
    let xf = move |v: &f64| tick_label(*v, xu);
    let yf = move |v: &f64| tick_label(*v, yu);
    ch.configure_mesh()
        .x_desc(plot.x.label.as_str())
        .y_desc(plot.y.label.as_str())
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    let ok = |p: &(f64, f64)| {
        p.0.is_finite()
            && p.1.is_finite()
            && (!plot.x.log || p.0 > 0.0)
            && (!plot.y.log || p.1 > 0.0)
    };
    for (i, b) in plot.bands.iter().enumerate() {
        let c = palette(i);
        let mut poly: Vec<(f64, f64)> = b.points.iter().map(|p| (p.0, p.2)).collect();
        poly.extend(b.points.iter().rev().map(|p| (p.0, p.1)));
        poly.retain(ok);
        if poly.len() >= 3 {
            ch.draw_series(std::iter::once(Polygon::new(poly, c.mix(0.18).filled())))
                .map_err(e)?;
        }
    }
    let offset = plot.bands.len();
    for (i, s) in plot.series.iter().enumerate() {
        let c = palette(i + offset);
        let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(ok).collect();
        if s.dashed {
            ch.draw_series(DashedLineSeries::new(pts, 8, 5, c.stroke_width(2)))
                .map_err(e)?;
        } else {
            ch.draw_series(LineSeries::new(pts, c.stroke_width(2)))
                .map_err(e)?;
        }
    }
    for &(x, lo, hi) in &plot.error_bars {
        if ok(&(x, lo)) && ok(&(x, hi)) {
            let grey = RGBColor(90, 90, 90).stroke_width(2);
            ch.draw_series(std::iter::once(PathElement::new(
                vec![(x, lo), (x, hi)],
                grey,
            )))
            .map_err(e)?;
        }
    }
    let offset = offset + plot.series.len();
    for (i, m) in plot.markers.iter().enumerate() {
        if !ok(&(m.x, m.y)) {
            continue;
        }
        let c = palette(i + offset);
        let at = (m.x, m.y);
        match i % 4 {
            0 => ch.draw_series(std::iter::once(Circle::new(at, 7, c.stroke_width(3)))),
            1 => ch.draw_series(std::iter::once(TriangleMarker::new(at, 8, c.filled()))),
            2 => ch.draw_series(std::iter::once(Cross::new(at, 7, c.stroke_width(3)))),
            _ => ch.draw_series(std::iter::once(Circle::new(at, 5, c.filled()))),
        }
        .map_err(e)?;
    }
    Ok(())
}

fn legend<DB: DrawingBackend>(
    plot: &Plot,
    area: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let style = ("sans-serif", 14).into_font().color(&BLACK);
    let mut y = 24;
    let entries = plot.legend();
    let (nb, ns) = (plot.bands.len(), plot.series.len());
    for (idx, (name, kind)) in entries.iter().enumerate() {
        let c = palette(idx);
        let (x0, x1, yc) = (8, 36, y);
        match kind {
            LegendKind::Band => {
                area.draw(&Rectangle::new(
                    [(x0, yc - 6), (x1, yc + 6)],
                    c.mix(0.25).filled(),
                ))
                .map_err(e)?;
            }
            LegendKind::Line => {
                area.draw(&PathElement::new(
                    vec![(x0, yc), (x1, yc)],
                    c.stroke_width(2),
                ))
                .map_err(e)?;
            }
            LegendKind::Dashed => {
                area.draw(&PathElement::new(
                    vec![(x0, yc), (x0 + 10, yc)],
                    c.stroke_width(2),
                ))
                .map_err(e)?;
                area.draw(&PathElement::new(
                    vec![(x0 + 16, yc), (x1, yc)],
                    c.stroke_width(2),
                ))
                .map_err(e)?;
            }
            LegendKind::Marker => {
                let i = idx - nb - ns;
                let at = ((x0 + x1) / 2, yc);
                match i % 4 {
                    0 => area
                        .draw(&Circle::new(at, 6, c.stroke_width(3)))
                        .map_err(e)?,
                    1 => area
                        .draw(&TriangleMarker::new(at, 7, c.filled()))
                        .map_err(e)?,
                    2 => area
                        .draw(&Cross::new(at, 6, c.stroke_width(3)))
                        .map_err(e)?,
                    _ => area.draw(&Circle::new(at, 5, c.filled())).map_err(e)?,
                }
            }
        }
        area.draw(&Text::new(name.clone(), (x1 + 8, yc - 8), style.clone()))
            .map_err(e)?;
        y += 24;
    }
    Ok(())
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

/// Renders stacked bars as SVG.
pub fn render_bars_svg(bars: &StackedBars, size: (u32, u32)) -> Result<String, ReportError> {
    register_font();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        draw_bars(bars, root)?;
    }
    Ok(out)
}

/// Renders stacked bars as PNG bytes.
pub fn render_bars_png(bars: &StackedBars, size: (u32, u32)) -> Result<Vec<u8>, ReportError> {
    register_font();
    let mut rgb = vec![0u8; (size.0 * size.1 * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        draw_bars(bars, root)?;
    }
    encode_png(&bars.id, &rgb, size)
}

fn encode_png(id: &str, rgb: &[u8], size: (u32, u32)) -> Result<Vec<u8>, ReportError> {
    let mut png_bytes = Vec::new();
    let err = |e: png::EncodingError| ReportError::Png {
        plot: id.to_string(),
        message: e.to_string(),
    };
    {
        let mut enc = png::Encoder::new(&mut png_bytes, size.0, size.1);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(err)?;
        w.write_image_data(rgb).map_err(err)?;
    }
    Ok(png_bytes)
}

fn draw_bars<DB: DrawingBackend>(
    bars: &StackedBars,
    root: DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), ReportError> {
    let fail = |e: String| ReportError::Draw {
        plot: bars.id.clone(),
        message: e,
    };
    let n = bars.categories.len();
    let totals: Vec<f64> = (0..n)
        .map(|i| {
            bars.components
                .iter()
                .map(|(_, v)| v.get(i).copied().unwrap_or(0.0).max(0.0))
                .sum()
        })
        .collect();
    let top = totals.iter().cloned().fold(0.0, f64::max);
    if n == 0 || !(top > 0.0 && top.is_finite()) {
        return Err(ReportError::Empty {
            plot: bars.id.clone(),
        });
    }
    root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
    let root = root
        .titled(&bars.title, ("sans-serif", 22))
        .map_err(|e| fail(e.to_string()))?;
    let (w, _) = root.dim_in_pixel();
    let longest = bars
        .components
        .iter()
        .map(|(c, _)| c.chars().count())
        .max()
        .unwrap_or(0) as u32;
    let legend_w = (longest * 8 + 50).clamp(120, w / 2);
    let (area, legend_area) = root.split_horizontally(w - legend_w);
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| fail(e.to_string());
    let mut ch = ChartBuilder::on(&area)
        .margin(12)
        .x_label_area_size(64)
        .y_label_area_size(80)
        .build_cartesian_2d(
            -0.6f64..(n as f64 - 0.4),
            Ticked::new(0.0, top * 1.05, linear_ticks(0.0, top * 1.05, bars.y_unit)),
        )
        .map_err(e)?;
    let cats = bars.categories.clone();
    let xf = move |v: &f64| {
        let i = v.round();
        if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < cats.len() {
            cats[i as usize].clone()
        } else {
            String::new()
        }
    };
    let yu = bars.y_unit;
    let yf = move |v: &f64| tick_label(*v, yu);
    ch.configure_mesh()
        .disable_x_mesh()
        .x_labels(n.max(2) * 2 + 1)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .y_desc(bars.y_label.as_str())
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 16))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(e)?;
    let mut base = vec![0.0; n];
    for (k, (_, values)) in bars.components.iter().enumerate() {
        let c = palette(k);
        let rects: Vec<Rectangle<(f64, f64)>> = (0..n)
            .map(|i| {
                let v = values.get(i).copied().unwrap_or(0.0).max(0.0);
                let r = Rectangle::new(
                    [(i as f64 - 0.35, base[i]), (i as f64 + 0.35, base[i] + v)],
                    c.filled(),
                );
                base[i] += v;
                r
            })
            .collect();
        ch.draw_series(rects).map_err(e)?;
    }
    let style = ("sans-serif", 14).into_font().color(&BLACK);
    for (k, (name, _)) in bars.components.iter().enumerate() {
        let y = 24 + 24 * k as i32;
        legend_area
            .draw(&Rectangle::new(
                [(8, y - 7), (36, y + 7)],
                palette(k).filled(),
            ))
            .map_err(|x| fail(x.to_string()))?;
        legend_area
            .draw(&Text::new(name.clone(), (44, y - 8), style.clone()))
            .map_err(|x| fail(x.to_string()))?;
    }
    root.present().map_err(|x| fail(x.to_string()))?;
    Ok(())
}
