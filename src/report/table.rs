//! Aligned plain-text tables, and the cells several tables share.

use crate::sim::stats::Estimate;

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Pad on the right.
    Left,
    /// Pad on the left (numbers).
    Right,
}

impl Align {
    /// One alignment per character of `spec`: `r` pads on the left (numbers), anything else on
    /// the right, so a table's columns read as one word.
    ///
    /// ```
    /// use ckpt::report::table::Align;
    /// assert_eq!(Align::columns("lr"), vec![Align::Left, Align::Right]);
    /// ```
    pub fn columns(spec: &str) -> Vec<Align> {
        spec.chars()
            .map(|c| if c == 'r' { Align::Right } else { Align::Left })
            .collect()
    }
}

/// A simulated mean with its standard error, `digits` decimals: `1.2210 ± 0.0027`.
///
/// ```
/// use ckpt::sim::stats::Estimate;
/// assert_eq!(ckpt::report::table::mean_se(&Estimate::exact(1.5, 10), 2), "1.50 ± 0.00");
/// ```
pub fn mean_se(e: &Estimate, digits: usize) -> String {
    format!(
        "{:.digits$} ± {:.digits$}",
        e.point,
        e.stderr.unwrap_or(0.0)
    )
}

/// A percentage: three decimals, or two significant digits in scientific form below 0.001%
/// and from 1e5% on, and `0%` for zero.
pub fn percent(x: f64) -> String {
    if x == 0.0 {
        "0%".into()
    } else {
        format!("{}%", regret_number(x, false))
    }
}

/// A duration in seconds for a table cell: three decimals below 10 s, one above, and three
/// significant digits below 10 ms, where fixed decimals would keep one digit or none (a nearly
/// fixed lifetime with a cost of nanoseconds has chunks of microseconds).
///
/// ```
/// use ckpt::report::table::seconds;
/// assert_eq!(seconds(9786.3), "9786.3");
/// assert_eq!(seconds(2.5), "2.500");
/// assert_eq!(seconds(0.00109544), "1.10e-3");
/// ```
pub fn seconds(t: f64) -> String {
    if t != 0.0 && t.abs() < 1e-2 {
        format!("{t:.2e}")
    } else if t < 10.0 {
        format!("{t:.3}")
    } else {
        format!("{t:.1}")
    }
}

/// Seconds for a script beside a person's duration (a schedule's chunk in a list, an
/// interval's `(7336 s)`): whole seconds from 1 s, rounded half away from zero; three
/// significant digits below (`0.00822` is `8.22e-3`), so that no positive value prints as 0.
///
/// ```
/// use ckpt::report::table::plain_seconds;
/// assert_eq!(plain_seconds(7336.4), "7336");
/// assert_eq!(plain_seconds(0.0082194), "8.22e-3");
/// assert_eq!(plain_seconds(6.5), "7");
/// ```
pub fn plain_seconds(w: f64) -> String {
    if w >= 1.0 {
        format!("{}", w.round())
    } else {
        format!("{w:.2e}")
    }
}

/// A z-score with its sign, or `-` where there is no prediction to compare with.
pub fn z_score(z: Option<f64>) -> String {
    z.map(|z| format!("{z:+.2}")).unwrap_or_else(|| "-".into())
}

/// A regret in percent with its 95% interval: `+0.025% [-0.191, 0.242]`.
pub fn regret(e: &Estimate) -> String {
    format!(
        "{}% [{}, {}]",
        regret_number(e.point, true),
        regret_number(e.ci95[0], false),
        regret_number(e.ci95[1], false)
    )
}

/// A regret in percent, without the `%`: three decimals as a rule, and scientific form below
/// 0.001 (or from 1e5 on), so that a regret a validation calls measurable is never written
/// `0.000` ([`percent`] follows the same rule). `signed` writes the sign of a positive value
/// too.
///
/// ```
/// use ckpt::report::table::regret_number;
/// assert_eq!(regret_number(1.23456, true), "+1.235");
/// assert_eq!(regret_number(1.58e-4, true), "+1.58e-4");
/// assert_eq!(regret_number(0.0, false), "0.000");
/// ```
pub fn regret_number(x: f64, signed: bool) -> String {
    let scientific = x != 0.0 && (x.abs() < 0.001 || x.abs() >= 1e5);
    match (scientific, signed) {
        (true, true) => format!("{x:+.2e}"),
        (true, false) => format!("{x:.2e}"),
        (false, true) => format!("{x:+.3}"),
        (false, false) => format!("{x:.3}"),
    }
}

/// Renders `rows` under `header` with two spaces between columns; widths count characters.
///
/// ```
/// use ckpt::report::table::{render, Align};
/// let t = render(&["a", "bb"], &[Align::Left, Align::Right], &[vec!["xyz".into(), "1".into()]]);
/// assert_eq!(t, "a    bb\nxyz   1\n");
/// ```
pub fn render(header: &[&str], align: &[Align], rows: &[Vec<String>]) -> String {
    layout(header, align, rows, false)
}

/// A table, a blank line, then a paragraph (a verdict): what the validations print.
pub fn with_paragraph(
    header: &[&str],
    align: &[Align],
    rows: &[Vec<String>],
    paragraph: &str,
) -> String {
    format!("{}\n{paragraph}\n", render(header, align, rows))
}

/// [`render`] with a rule of dashes under the header, as wide as the table.
///
/// ```
/// use ckpt::report::table::{ruled, Align};
/// let t = ruled(&["a", "bb"], &[Align::Left, Align::Right], &[vec!["xyz".into(), "1".into()]]);
/// assert_eq!(t, "a    bb\n-------\nxyz   1\n");
/// ```
pub fn ruled(header: &[&str], align: &[Align], rows: &[Vec<String>]) -> String {
    layout(header, align, rows, true)
}

fn layout(header: &[&str], align: &[Align], rows: &[Vec<String>], rule: bool) -> String {
    let cols = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, cell) in r.iter().enumerate().take(cols) {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: Vec<&str>, out: &mut String| {
        let mut parts = Vec::with_capacity(cols);
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            let a = align.get(i).copied().unwrap_or(Align::Left);
            let last = i + 1 == cols;
            parts.push(match a {
                Align::Right => format!("{}{}", " ".repeat(pad), cell),
                Align::Left if last => cell.to_string(),
                Align::Left => format!("{}{}", cell, " ".repeat(pad)),
            });
        }
        out.push_str(parts.join("  ").trim_end());
        out.push('\n');
    };
    line(header.to_vec(), &mut out);
    if rule {
        let width = widths.iter().sum::<usize>() + 2 * cols.saturating_sub(1);
        out.push_str(&"-".repeat(width));
        out.push('\n');
    }
    for r in rows {
        line(r.iter().map(|s| s.as_str()).collect(), &mut out);
    }
    out
}
