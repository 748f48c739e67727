//! Reports: pure functions from results to bytes. Nothing here touches the disk or a terminal.

/// The report folder's functions of a report module, which are the same wiring in every
/// module: `files`, the folder (`STEM.json`, `STEM.csv`, each plot's images, `report.md`) from
/// the module's `json`, `csv`, `plots` and `markdown`; with `sweep`, also the sweep's
/// `markdown`: the heading, the `describe` paragraph, every plot under its own title, then the
/// line on the data files.
macro_rules! folder {
    (sweep $result:ty, $title:literal, $data:literal) => {
        /// `report.md`: the plots embedded, one paragraph on what they show.
        pub fn markdown(r: &$result, command: &str) -> String {
            let plots = plots(r);
            let figures: Vec<(&str, &Plot)> = plots.iter().map(|p| (p.title.as_str(), p)).collect();
            super::markdown::document($title, command, &describe(r), &figures, "sweep.json", $data)
        }

        super::folder!("sweep", $result);
    };
    ($stem:literal, $result:ty) => {
        /// Every file of the report, `(name, bytes)`, in a fixed order.
        pub fn files(r: &$result, command: &str) -> Result<super::Files, super::plot::ReportError> {
            let plots = plots(r);
            super::plot::folder(
                $stem,
                [json(r), csv(r)],
                &plots,
                vec![],
                markdown(r, command),
            )
        }
    };
}
pub(crate) use folder;

/// The verdict table's columns, the table, `report.md`, plots and report folder of a validation
/// whose module has `rows(v)` (cells under the columns, the prediction under `$predicted`),
/// `verdict_paragraph(v)`, `json(v)` and `csv(v)`, and whose two plots are named with their
/// captions: every such report is laid out the same way, so the layout is written once.
macro_rules! validation_report {
    ($result:ty, $title:literal, $csv_holds:literal, $predicted:literal,
     [($caption1:literal, $plot1:ident), ($caption2:literal, $plot2:ident)]) => {
        /// The columns of the verdict table, in the terminal and in `report.md`.
        const COLUMNS: [&str; 7] = [
            "model",
            "interval",
            $predicted,
            "simulated (± stderr)",
            "z",
            "regret (95% CI)",
            "verdict",
        ];

        /// The columns' alignment.
        const ALIGN: &str = "lrrrrrl";

        /// The table for a terminal, then the verdict.
        pub fn table(v: &$result) -> String {
            let align = super::table::Align::columns(ALIGN);
            super::table::with_paragraph(&COLUMNS, &align, &rows(v), &verdict_paragraph(v))
        }

        /// `report.md`.
        pub fn markdown(v: &$result, command: &str) -> String {
            let align = super::table::Align::columns(ALIGN);
            super::markdown::validation(
                $title,
                command,
                &verdict_paragraph(v),
                &figures(v),
                &super::markdown::table(&COLUMNS, &align, &rows(v)),
                $csv_holds,
            )
        }

        /// The plots in report order, each with its caption in `report.md`.
        fn figures(v: &$result) -> [(&'static str, super::plot::Plot); 2] {
            [($caption1, $plot1(v)), ($caption2, $plot2(v))]
        }

        fn plots(v: &$result) -> [super::plot::Plot; 2] {
            figures(v).map(|(_, p)| p)
        }

        super::folder!("validate", $result);
    };
}
pub(crate) use validation_report;

pub mod encoding;
pub mod finite;
pub mod fit;
pub mod interval;
pub mod markdown;
pub mod multilevel;
pub mod plot;
#[cfg(feature = "plots")]
pub mod render;
pub mod renewal;
pub mod simulate;
pub mod simulate_multilevel;
pub mod sweep;
pub mod sweep_multilevel;
pub mod sweep_renewal;
pub mod table;
pub mod validate;
pub mod validate_allocation;
pub mod validate_multilevel;
pub mod validate_renewal;
pub mod validate_stencil;

/// A report folder's files, `(name, bytes)`, in the order they are written.
pub type Files = Vec<(String, Vec<u8>)>;

/// The schema version every JSON document opens with (`docs/interface.md`); it changes only when
/// a field's meaning does, so that a script can refuse a document it does not know.
pub const SCHEMA_VERSION: u32 = 1;

/// What every JSON document opens with, ahead of its own fields: the schema version, then the
/// command that wrote it, the simulator, or both (`validate` names the simulator it ran).
#[derive(serde::Serialize)]
struct Envelope<'a, B> {
    schema_version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    command: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    simulator: Option<&'static str>,
    #[serde(flatten)]
    body: &'a B,
}

/// The JSON document of a command's answer: `{"schema_version": 1, "command": ..., body...}`.
/// `body` serializes as a map (a struct), whose fields follow the envelope's.
pub fn command_document<B: serde::Serialize>(command: &'static str, body: &B) -> String {
    json_document(&Envelope {
        schema_version: SCHEMA_VERSION,
        command: Some(command),
        simulator: None,
        body,
    })
}

/// The JSON document of one simulation: `{"schema_version": 1, "simulator": ..., body...}`.
pub fn simulation_document<B: serde::Serialize>(simulator: &'static str, body: &B) -> String {
    json_document(&Envelope {
        schema_version: SCHEMA_VERSION,
        command: None,
        simulator: Some(simulator),
        body,
    })
}

/// The JSON document of `validate`: `{"schema_version": 1, "command": "validate", "simulator":
/// ..., body...}`.
pub fn validation_document<B: serde::Serialize>(simulator: &'static str, body: &B) -> String {
    json_document(&Envelope {
        schema_version: SCHEMA_VERSION,
        command: Some("validate"),
        simulator: Some(simulator),
        body,
    })
}

/// A JSON document as every report writes it: pretty, with a final newline. The documents hold
/// only finite numbers (missing figures are null), so serialization cannot fail in practice;
/// if it ever did, the error itself becomes the document rather than a panic.
pub fn json_document<T: serde::Serialize>(doc: &T) -> String {
    let mut s =
        serde_json::to_string_pretty(doc).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}

/// A CSV cell for an optional number: Rust's shortest round-trip form, so CSV and JSON agree to
/// the bit; empty where JSON has null.
pub fn csv_cell(v: Option<f64>) -> String {
    v.map(|x| format!("{x:?}")).unwrap_or_default()
}

/// An estimate's CSV cells, `point,stderr,ci95_lo,ci95_hi,runs`, in the form of [`csv_cell`].
pub fn estimate_cells(e: &crate::sim::stats::Estimate) -> [String; 5] {
    [
        format!("{:?}", e.point),
        csv_cell(e.stderr),
        format!("{:?}", e.ci95[0]),
        format!("{:?}", e.ci95[1]),
        e.runs.to_string(),
    ]
}

/// A CSV document as every report writes it: the header (its names joined by commas, as the
/// first line reads), then one line per record, each line
/// ending in `\n`. The csv crate quotes a cell only when it must (a comma, a quote or a line
/// break in it), so ordinary numbers and names come out as written. Writing to memory cannot
/// fail in practice; if it ever did, the error itself becomes the document rather than a panic.
///
/// ```
/// let rows = [vec!["1.5".to_string(), "a,b".to_string()], vec!["2".into(), "say \"hi\"".into()]];
/// assert_eq!(
///     ckpt::report::csv_document("x,name", rows),
///     "x,name\n1.5,\"a,b\"\n2,\"say \"\"hi\"\"\"\n"
/// );
/// ```
pub fn csv_document<R, C>(header: &str, records: R) -> String
where
    R: IntoIterator<Item = C>,
    C: IntoIterator<Item = String>,
{
    let write = || -> Result<Vec<u8>, String> {
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        w.write_record(header.split(','))
            .map_err(|e| e.to_string())?;
        for record in records {
            w.write_record(record).map_err(|e| e.to_string())?;
        }
        w.into_inner().map_err(|e| e.to_string())
    };
    match write() {
        // Every cell is a `String`, so the bytes are UTF-8.
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => format!("error: {e}\n"),
    }
}

/// How a command's answer is printed on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Aligned columns with durations a person reads.
    Table,
    /// One JSON object, in seconds.
    Json,
}
