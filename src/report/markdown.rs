//! The pieces every `report.md` is made of: the heading with the command that made it, the
//! embedded figures, and tables. One place, so every report reads the same way.

use super::plot::{self, Plot};
use super::table::Align;

/// The opening of a `report.md`: the title, then the command line that made the report.
///
/// ```
/// let h = ckpt::report::markdown::heading("ckpt sweep", "ckpt sweep --out r");
/// assert_eq!(h, "# ckpt sweep\n\n```\nckpt sweep --out r\n```\n\n");
/// ```
pub fn heading(title: &str, command: &str) -> String {
    format!("# {title}\n\n```\n{command}\n```\n\n")
}

/// A whole `report.md`: the [`heading`], the `intro` paragraph, each figure (caption, plot) as
/// [`figure`] says (`data`: where its figures are), then `rest` (tables, closing lines).
pub fn document(
    title: &str,
    command: &str,
    intro: &str,
    figures: &[(&str, &Plot)],
    data: &str,
    rest: &str,
) -> String {
    let mut s = heading(title, command);
    s.push_str(intro);
    s.push_str("\n\n");
    for (alt, plot) in figures {
        s.push_str(&figure(alt, plot, data));
    }
    s.push_str(rest);
    s
}

/// The `report.md` of a `validate` run: the [`heading`], the verdict paragraph, each plot
/// under its caption, then `table` and the line on the data files, `csv_holds` saying what
/// `validate.csv` holds (empty, or a parenthesis after the file names).
pub fn validation(
    title: &str,
    command: &str,
    verdict: &str,
    figures: &[(&str, Plot)],
    table: &str,
    csv_holds: &str,
) -> String {
    let figures: Vec<(&str, &Plot)> = figures.iter().map(|(alt, p)| (*alt, p)).collect();
    document(
        title,
        command,
        verdict,
        &figures,
        "validate.json",
        &format!("{table}\nData: `validate.json` and `validate.csv`{csv_holds}.\n"),
    )
}

/// A figure: the plot's SVG under the caption `alt` with the notes on what it cannot show
/// ([`plot::embed`]), or, when the plot has nothing finite to draw (and so no image was
/// written), one sentence saying so and where the figures are (`data`, a file name of the
/// report).
pub fn figure(alt: &str, plot: &Plot, data: &str) -> String {
    if plot::drawable(plot) {
        plot::embed(plot, alt)
    } else {
        format!(
            "*{alt}: not drawn, nothing finite to draw at these inputs (a log axis needs positive values); the figures are in `{data}`.*\n\n"
        )
    }
}

/// Rows under `header` as a Markdown table; `r` columns are right-aligned, as in
/// [`super::table::render`].
///
/// ```
/// use ckpt::report::{markdown, table::Align};
/// let t = markdown::table(&["a", "b"], &Align::columns("lr"), &[vec!["x".into(), "1".into()]]);
/// assert_eq!(t, "| a | b |\n|---|---:|\n| x | 1 |\n");
/// ```
pub fn table(header: &[&str], align: &[Align], rows: &[Vec<String>]) -> String {
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut s = String::from("|");
        for c in cells {
            s.push(' ');
            s.push_str(c);
            s.push_str(" |");
        }
        s.push('\n');
        s
    };
    let mut out = line(&mut header.iter().copied());
    out.push('|');
    for i in 0..header.len() {
        out.push_str(match align.get(i) {
            Some(Align::Right) => "---:|",
            _ => "---|",
        });
    }
    out.push('\n');
    for r in rows {
        out.push_str(&line(&mut r.iter().map(String::as_str)));
    }
    out
}
