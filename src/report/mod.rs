//! Reports: pure functions from results to bytes. Nothing here touches the disk or a terminal.

pub mod fit;
pub mod interval;
pub mod plot;
#[cfg(feature = "plots")]
pub mod render;
pub mod simulate;
pub mod sweep;
pub mod table;
pub mod validate;
pub mod validate_stencil;

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

/// How a command's answer is printed on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Aligned columns with durations a person reads.
    Table,
    /// One JSON object, in seconds.
    Json,
}
