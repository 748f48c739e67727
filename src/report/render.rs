//! Drawing a prepared [`Plot`] or [`StackedBars`] as SVG text or PNG bytes with plotters.
//! Built only with the `plots` feature, so a library user who wants the numbers alone compiles
//! no drawing backend.

use super::plot::{
    Drawing, LegendKind, Plot, ReportError, StackedBars, linear_ticks, log_ticks, tick_label,
};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::sync::Once;

/// The font every plot is drawn with, bundled so that no system font is needed (DejaVu Sans,
/// under the Bitstream Vera licence: `data/fonts/DejaVu-LICENSE.txt`).
static FONT: &[u8] = include_bytes!("../../data/fonts/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

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

fn register_font() {
    REGISTER.call_once(|| {
        // The bundled font is valid; a failure here would only lose text, never crash.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// Renders a figure as an SVG document of `size` pixels.
pub fn render_svg<'a>(
    figure: impl Into<Drawing<'a>>,
    size: (u32, u32),
) -> Result<String, ReportError> {
    register_font();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        draw_any(figure.into(), root)?;
    }
    Ok(out)
}

/// Renders a figure as PNG bytes of `size` pixels.
pub fn render_png<'a>(
    figure: impl Into<Drawing<'a>>,
    size: (u32, u32),
) -> Result<Vec<u8>, ReportError> {
    register_font();
    let figure = figure.into();
    let mut rgb = vec![0u8; (size.0 * size.1 * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area();
        draw_any(figure, root)?;
    }
    encode_png(figure.id(), &rgb, size)
}

fn draw_any<DB: DrawingBackend>(
    figure: Drawing,
    root: DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), ReportError> {
    match figure {
        Drawing::Plot(p) => draw(p, root),
        Drawing::Bars(b) => draw_bars(b, root),
    }
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
        // Lossless whatever the level, so the pixels are the same. The default (zlib level 6
        // with adaptive filters) was 95% of the instructions of a sweep with plots; fdeflate's
        // PNG-tuned coder takes a small fraction of that time for files about as small on flat
        // plots like these.
        enc.set_compression(png::Compression::Fast);
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

/// The coordinates a plot spans, for its axis ranges.
trait Extent {
    fn x_values(&self) -> impl Iterator<Item = f64> + '_;
    fn y_values(&self) -> impl Iterator<Item = f64> + '_;
}

impl Extent for Plot {
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
}
