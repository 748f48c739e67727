//! `ckpt sweep`: the report layer in memory, and the command through the binary.

use crate::common::ckpt;
use ckpt::interval::{IntervalInputs, Replication};
use ckpt::model::replicated::Detect;
use ckpt::report::plot::{self, Plot};
use ckpt::report::sweep as report;
use ckpt::sweep::{self, SweepResult, SweepSpec};

fn result(inputs: &IntervalInputs, vary: &str, points: usize) -> SweepResult {
    let spec = SweepSpec::parse(vary, points, true).unwrap();
    sweep::run(inputs, &spec, &|| {}).unwrap()
}

fn daly() -> SweepResult {
    result(
        &IntervalInputs::single(86400.0, 300.0, 600.0),
        "mtbf=15m..7d",
        25,
    )
}

fn replicated() -> SweepResult {
    let mut i = IntervalInputs::single(3600.0, 60.0, 120.0);
    i.replication = Some(Replication {
        procs: 8,
        replicas: 2,
        detect: Detect::End,
        shape: ckpt::failure::Shape::Exponential,
    });
    result(&i, "procs=1..512", 12)
}

/// Parses the SVG as XML and returns every text node.
fn svg_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .map(|t| t.trim().to_string())
        .collect()
}

fn check_svg(p: &Plot) {
    let svg = plot::render_svg(p, plot::SIZE).unwrap();
    let texts = svg_texts(&svg);
    let has = |s: &str| texts.iter().any(|t| t == s);
    assert!(has(&p.title), "{}: no title", p.id);
    let layout = plot::layout(p).expect("drawable");
    assert!(
        has(&layout.x.title) && has(&layout.y.title),
        "{}: axis titles",
        p.id
    );
    for item in &layout.legend {
        let name = match *item {
            plot::LegendItem::Band(i) | plot::LegendItem::ErrorBars(i) => &p.bands[i].name,
            plot::LegendItem::Line(i) => &p.series[i].name,
            plot::LegendItem::Marker(i) => &p.markers[i].name,
        };
        assert!(has(name), "{}: legend entry {name} missing", p.id);
    }
    // One polyline per series with points (plotters draws a line series as a polyline).
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let lines = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "polyline")
        .count();
    let drawn = p.series.iter().filter(|s| !s.points.is_empty()).count();
    assert!(
        lines >= drawn,
        "{}: {lines} polylines for {drawn} series",
        p.id
    );
    if !p.markers.is_empty() {
        let shapes = doc
            .descendants()
            .filter(|n| matches!(n.tag_name().name(), "circle" | "polygon" | "line"))
            .count();
        assert!(shapes >= p.markers.len(), "{}: markers", p.id);
    }
}

#[test]
fn every_plot_renders_as_valid_svg_with_its_series_labels_and_markers() {
    for r in [daly(), replicated()] {
        let plots = report::plots(&r);
        assert_eq!(
            plots.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
            ["interval", "overhead", "loss", "sensitivity"]
        );
        for p in &plots {
            check_svg(p);
        }
        let overhead = &plots[1];
        assert_eq!(
            overhead.markers.len(),
            r.base.rows.len(),
            "every row's choice is marked"
        );
    }
}

#[test]
fn png_files_decode_with_the_expected_size() {
    for p in report::plots(&daly()) {
        let bytes = plot::render_png(&p, (640, 400)).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (640, 400), "{}", p.id);
        // Not a blank image: the plot drew something other than white.
        assert!(buf.iter().any(|&b| b < 200), "{} is blank", p.id);
    }
}

#[test]
fn csv_and_json_agree_point_for_point() {
    for r in [daly(), replicated()] {
        let json: serde_json::Value = serde_json::from_str(&report::json(&r)).unwrap();
        let csv = report::csv(&r);
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().unwrap(),
            "param,value,model,kind,interval_s,overhead,efficiency,loss_pct,expected_failures,recommended"
        );
        let mut rows = 0;
        for p in json["points"].as_array().unwrap() {
            for m in p["models"].as_array().unwrap() {
                let line = lines.next().expect("a CSV line per JSON row");
                let cells: Vec<&str> = line.split(',').collect();
                assert_eq!(
                    cells[1].parse::<f64>().unwrap(),
                    p["value"].as_f64().unwrap()
                );
                assert_eq!(cells[2], m["name"].as_str().unwrap());
                assert_eq!(cells[3], m["kind"].as_str().unwrap());
                for (i, key) in [
                    (4, "interval_s"),
                    (5, "overhead"),
                    (6, "efficiency"),
                    (7, "loss_pct"),
                    (8, "expected_failures"),
                ] {
                    match m[key].as_f64() {
                        Some(v) => assert_eq!(cells[i].parse::<f64>().unwrap(), v, "{key}"),
                        None => assert_eq!(cells[i], "", "{key}"),
                    }
                }
                assert_eq!(cells[9] == "true", m["name"] == p["recommended"]);
                rows += 1;
            }
        }
        assert!(lines.next().is_none());
        assert!(rows > 0);
    }
}

#[test]
fn the_sweep_moves_the_optimum_the_right_way() {
    let r = daly();
    let opt: Vec<f64> = r
        .points
        .iter()
        .map(|p| {
            p.models
                .iter()
                .find(|m| m.name == "daly-complete")
                .unwrap()
                .interval_s
                .unwrap()
        })
        .collect();
    assert!(
        opt.windows(2).all(|w| w[1] > w[0]),
        "the optimum grows with the MTBF"
    );
    assert_eq!(r.points.first().unwrap().value, 900.0);
    assert_eq!(r.points.last().unwrap().value, 7.0 * 86400.0);
    // The report says what the plots show, with the figures in them.
    let md = report::markdown(&r, "ckpt sweep ...");
    for f in [
        "interval.svg",
        "overhead.svg",
        "loss.svg",
        "sensitivity.svg",
        "daly-complete",
        "1h 56m 41s",
    ] {
        assert!(md.contains(f), "report.md lacks {f}");
    }
}

#[test]
fn integer_parameters_are_deduplicated() {
    let spec = SweepSpec::parse("procs=1..10", 50, true).unwrap();
    let v = spec.values();
    assert_eq!(v, (1..=10).map(|x| x as f64).collect::<Vec<_>>());
}

/// `ckpt sweep` of a 6 h MTBF and 5 min checkpoints over `vary`, its report in `out`.
fn sweep_to(vary: &str, out: &std::path::Path) -> assert_cmd::Command {
    let mut c = ckpt();
    c.args([
        "sweep", "--mtbf", "6h", "--cost", "5m", "--vary", vary, "--out",
    ])
    .arg(out);
    c
}

#[test]
fn sweep_writes_every_file() {
    let dir = crate::common::temp_path("ckpt-sweep-test");
    sweep_to("cost=10s..2h", &dir)
        .args(["--points", "8", "--log", "--quiet"])
        .assert()
        .success();
    for f in ["sweep.json", "sweep.csv", "report.md"]
        .into_iter()
        .map(String::from)
        .chain(
            ["interval", "overhead", "loss", "sensitivity"]
                .iter()
                .flat_map(|p| [format!("{p}.svg"), format!("{p}.png")]),
        )
    {
        let meta = std::fs::metadata(dir.join(&f)).unwrap_or_else(|_| panic!("{f} missing"));
        assert!(meta.len() > 0, "{f} empty");
    }
}

#[test]
fn bad_sweeps_fail_before_any_work() {
    let file = crate::common::temp_path("ckpt-not-a-dir");
    std::fs::write(&*file, b"x").unwrap();
    let out = sweep_to("mtbf=1h..2d", &file.join("sub"))
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--out") && err.lines().count() == 1, "{err}");
    let never = crate::common::temp_path("ckpt-never-written");
    for vary in ["mtbf=2d..1h", "speed=1..2", "mtbf=1h", "procs=1..8"] {
        let out = sweep_to(vary, &never).assert().code(2).get_output().clone();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.lines().count() == 1, "{vary}: {err}");
        assert!(
            err.contains("--vary") || err.contains("procs"),
            "{vary}: {err}"
        );
        assert!(
            !never.exists(),
            "{vary}: the folder was created before the arguments were checked"
        );
    }
}
