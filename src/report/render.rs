//! Drawing a prepared [`Plot`] or [`StackedBars`] as SVG text or PNG bytes with plotters.
//! Built only with the `plots` feature, so a library user who wants the numbers alone compiles
//! no drawing backend.

use super::plot::{
    AxisScale, BandMode, Drawing, Layout, LegendItem, MarkerStyle, Plot, ReportError, Shape,
    StackedBars, axis_scale, layout, visible_components,
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
    let fail = draw_error(&plot.id);
    let Some(l) = layout(plot) else {
        return Err(ReportError::Empty {
            plot: plot.id.clone(),
        });
    };
    let (xr, yr) = (l.x_range, l.y_range);
    let legend_names = l.legend.iter().map(|item| legend_name(plot, *item));
    let Frame {
        root,
        chart: chart_area,
        legend: legend_area,
    } = frame(root, &plot.title, legend_names).map_err(fail)?;
    let xl = || (xr.0..xr.1).log_scale().with_key_points(l.x.ticks.clone());
    let yl = || (yr.0..yr.1).log_scale().with_key_points(l.y.ticks.clone());
    let xn = || Ticked::new(xr.0, xr.1, l.x.ticks.clone());
    let yn = || Ticked::new(yr.0, yr.1, l.y.ticks.clone());
    match (plot.x.log, plot.y.log) {
        (false, false) => chart(plot, &l, &chart_area, xn(), yn()),
        (true, false) => chart(plot, &l, &chart_area, xl(), yn()),
        (false, true) => chart(plot, &l, &chart_area, xn(), yl()),
        (true, true) => chart(plot, &l, &chart_area, xl(), yl()),
    }
    .map_err(fail)?;
    legend(plot, &l, &legend_area).map_err(fail)?;
    root.present().map_err(|e| fail(e.to_string()))?;
    Ok(())
}

/// The error of drawing the figure `id`, from what the backend said.
fn draw_error(id: &str) -> impl Fn(String) -> ReportError + Copy + '_ {
    move |message| ReportError::Draw {
        plot: id.to_string(),
        message,
    }
}

type Area<DB> = DrawingArea<DB, plotters::coord::Shift>;

/// A figure's areas: the whole, titled; the chart's; the legend's.
struct Frame<DB: DrawingBackend> {
    root: Area<DB>,
    chart: Area<DB>,
    legend: Area<DB>,
}

/// A figure's frame on a white ground: the title across the whole width, legend column
/// included, so a long one is not clipped; the legend gets a column of its own, as wide as its
/// longest name needs, so it can never cover the data.
fn frame<'a, DB: DrawingBackend>(
    root: Area<DB>,
    title: &str,
    legend_names: impl Iterator<Item = &'a str>,
) -> Result<Frame<DB>, String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let root = root
        .titled(title, ("sans-serif", 22))
        .map_err(|e| e.to_string())?;
    let (w, _) = root.dim_in_pixel();
    let longest = legend_names.map(|n| n.chars().count()).max().unwrap_or(0) as u32;
    let legend_w = (longest * 8 + 50).clamp(120, w / 2);
    let (chart, legend) = root.split_horizontally(w - legend_w);
    Ok(Frame {
        root,
        chart,
        legend,
    })
}

fn legend_name(plot: &Plot, item: LegendItem) -> &str {
    match item {
        LegendItem::Band(i) | LegendItem::ErrorBars(i) => &plot.bands[i].name,
        LegendItem::Line(i) => &plot.series[i].name,
        LegendItem::Marker(i) => &plot.markers[i].name,
    }
}

/// Colours by element: bands first, then series, then markers, as the legend lists them.
fn colour(plot: &Plot, item: LegendItem) -> RGBColor {
    let (nb, ns) = (plot.bands.len(), plot.series.len());
    palette(match item {
        LegendItem::Band(i) | LegendItem::ErrorBars(i) => i,
        LegendItem::Line(i) => nb + i,
        LegendItem::Marker(i) => nb + ns + i,
    })
}

fn chart<DB, XS, YS>(
    plot: &Plot,
    l: &Layout,
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
    let (xa, ya): (&AxisScale, &AxisScale) = (&l.x, &l.y);
    let xf = move |v: &f64| xa.label(*v);
    let yf = move |v: &f64| ya.label(*v);
    ch.configure_mesh()
        .x_desc(l.x.title.as_str())
        .y_desc(l.y.title.as_str())
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
    // A cap of an error bar spans this fraction of the horizontal range either side.
    let cap = |x: f64| {
        let f = 0.006;
        if plot.x.log {
            let k = ((xr_log(l.x_range)) * f).exp();
            (x / k, x * k)
        } else {
            let d = (l.x_range.1 - l.x_range.0) * f;
            (x - d, x + d)
        }
    };
    let bar = |x: f64, lo: f64, hi: f64, c: RGBColor, width: u32| {
        let (a, b) = cap(x);
        vec![
            PathElement::new(vec![(x, lo), (x, hi)], c.stroke_width(width)),
            PathElement::new(vec![(a, lo), (b, lo)], c.stroke_width(width)),
            PathElement::new(vec![(a, hi), (b, hi)], c.stroke_width(width)),
        ]
    };
    for (i, b) in plot.bands.iter().enumerate() {
        let c = palette(i);
        match l.bands[i] {
            BandMode::Area => {
                let mut poly: Vec<(f64, f64)> = b.points.iter().map(|p| (p.0, p.2)).collect();
                poly.extend(b.points.iter().rev().map(|p| (p.0, p.1)));
                poly.retain(ok);
                if poly.len() >= 3 {
                    ch.draw_series(std::iter::once(Polygon::new(poly, c.mix(0.25).filled())))
                        .map_err(e)?;
                }
            }
            BandMode::ErrorBars => {
                for &(x, lo, hi) in &b.points {
                    if ok(&(x, lo)) && ok(&(x, hi)) {
                        ch.draw_series(bar(x, lo, hi, c, 2)).map_err(e)?;
                    }
                }
            }
            BandMode::Hidden => {}
        }
    }
    for (i, s) in plot.series.iter().enumerate() {
        let c = palette(i + plot.bands.len());
        let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(ok).collect();
        let st = l.lines[i];
        match st.dash.pattern() {
            Some((size, gap)) => ch
                .draw_series(DashedLineSeries::new(
                    pts,
                    size,
                    gap,
                    c.stroke_width(st.width),
                ))
                .map_err(e)?,
            None => ch
                .draw_series(LineSeries::new(pts, c.stroke_width(st.width)))
                .map_err(e)?,
        };
    }
    let grey = RGBColor(90, 90, 90);
    for &(x, lo, hi) in &plot.error_bars {
        if ok(&(x, lo)) && ok(&(x, hi)) {
            ch.draw_series(bar(x, lo, hi, grey, 2)).map_err(e)?;
        }
    }
    let offset = plot.bands.len() + plot.series.len();
    for (i, m) in plot.markers.iter().enumerate() {
        if !ok(&(m.x, m.y)) {
            continue;
        }
        let c = palette(i + offset);
        ch.plotting_area()
            .draw(&marker((m.x, m.y), l.markers[i], c))
            .map_err(e)?;
    }
    Ok(())
}

fn xr_log(r: (f64, f64)) -> f64 {
    (r.1 / r.0).ln()
}

/// One marker, as an element at `at` in any coordinate system.
fn marker<C: Clone + 'static, DB: DrawingBackend>(
    at: C,
    st: MarkerStyle,
    c: RGBColor,
) -> DynElement<'static, DB, C> {
    let s = st.size as i32;
    match st.shape {
        Shape::Ring => Circle::new(at, s, c.stroke_width(3)).into_dyn(),
        Shape::Triangle => TriangleMarker::new(at, s, c.filled()).into_dyn(),
        Shape::Cross => Cross::new(at, s, c.stroke_width(3)).into_dyn(),
        Shape::Dot => Circle::new(at, s, c.filled()).into_dyn(),
    }
}

fn legend<DB: DrawingBackend>(
    plot: &Plot,
    l: &Layout,
    area: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let style = ("sans-serif", 14).into_font().color(&BLACK);
    let mut y = 24;
    for &item in &l.legend {
        let c = colour(plot, item);
        let yc = y;
        let (x0, x1) = (8, 40);
        match item {
            LegendItem::Band(_) => {
                area.draw(&Rectangle::new(
                    [(x0, yc - 6), (x1, yc + 6)],
                    c.mix(0.25).filled(),
                ))
                .map_err(e)?;
            }
            LegendItem::ErrorBars(_) => {
                let xm = (x0 + x1) / 2;
                for seg in [
                    vec![(xm, yc - 7), (xm, yc + 7)],
                    vec![(xm - 4, yc - 7), (xm + 4, yc - 7)],
                    vec![(xm - 4, yc + 7), (xm + 4, yc + 7)],
                ] {
                    area.draw(&PathElement::new(seg, c.stroke_width(2)))
                        .map_err(e)?;
                }
            }
            LegendItem::Line(i) => {
                let st = l.lines[i];
                let pts = vec![(x0, yc), (x1, yc)];
                match st.dash.pattern() {
                    Some((size, gap)) => {
                        for el in DashedLineSeries::new(pts, size, gap, c.stroke_width(st.width)) {
                            area.draw(&el).map_err(e)?;
                        }
                    }
                    None => area
                        .draw(&PathElement::new(pts, c.stroke_width(st.width)))
                        .map_err(e)?,
                }
            }
            LegendItem::Marker(i) => {
                // The colour tells the entries apart; a ring of a stack keeps to the row.
                let mut st = l.markers[i];
                st.size = st.size.min(10);
                area.draw(&marker(((x0 + x1) / 2, yc), st, c)).map_err(e)?;
            }
        }
        area.draw(&Text::new(
            legend_name(plot, item).to_string(),
            (x1 + 8, yc - 8),
            style.clone(),
        ))
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
    let fail = draw_error(&bars.id);
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
    let legend_names = bars.components.iter().map(|(c, _)| c.as_str());
    let Frame {
        root,
        chart: area,
        legend: legend_area,
    } = frame(root, &bars.title, legend_names).map_err(fail)?;
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| fail(e.to_string());
    let y_axis = super::plot::Axis {
        label: bars.y_label.clone(),
        log: false,
        unit: bars.y_unit,
    };
    let ys = axis_scale(&y_axis, 0.0, top * 1.05, false);
    let mut ch = ChartBuilder::on(&area)
        .margin(12)
        .x_label_area_size(64)
        .y_label_area_size(80)
        .build_cartesian_2d(
            -0.6f64..(n as f64 - 0.4),
            Ticked::new(0.0, top * 1.05, ys.ticks.clone()),
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
    let ysc = &ys;
    let yf = move |v: &f64| ysc.label(*v);
    ch.configure_mesh()
        .disable_x_mesh()
        .x_labels(n.max(2) * 2 + 1)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .y_desc(ys.title.as_str())
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
    let shown = visible_components(bars);
    for (row, (k, (name, _))) in bars
        .components
        .iter()
        .enumerate()
        .filter(|(k, _)| shown[*k])
        .enumerate()
    {
        let y = 24 + 24 * row as i32;
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
