//! Lines of an input file as people's editors write them: a leading UTF-8 byte-order mark is not
//! part of the first line, and a line ends at `\n`, `\r\n` or a lone `\r` (old Mac files), so a
//! file never reads as one long line.

/// The lines of `text`, without their endings and without a leading byte-order mark; like
/// [`str::lines`], a final line ending does not start another line.
///
/// ```
/// let v: Vec<&str> = ckpt::text::lines("\u{feff}a\r\nb\rc\n\nd").collect();
/// assert_eq!(v, ["a", "b", "c", "", "d"]);
/// ```
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text.strip_prefix('\u{feff}').unwrap_or(text);
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match rest.find(['\n', '\r']) {
            None => {
                let line = rest;
                rest = "";
                Some(line)
            }
            Some(i) => {
                let line = &rest[..i];
                let end = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + end..];
                Some(line)
            }
        }
    })
}

/// `x` as a message quotes it: Rust's shortest form, which never uses an exponent, while it
/// is at most 24 characters, and scientific form beyond (`1e-170`, not 171 digits).
///
/// ```
/// use ckpt::text::number;
/// assert_eq!(number(0.30000000000000004), "0.30000000000000004");
/// assert_eq!(number(600.0), "600");
/// assert_eq!(number(1e-170), "1e-170");
/// assert_eq!(number(-2.5e300), "-2.5e300");
/// ```
pub fn number(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() <= 24 {
        plain
    } else {
        format!("{x:e}")
    }
}

/// `text` as an error message quotes it: control characters escaped, so an error stays one
/// line whatever a file holds, and a long value cut short.
///
/// ```
/// assert_eq!(ckpt::text::shown("a\nb"), "a\\nb");
/// ```
pub fn shown(text: &str) -> String {
    let escaped = escaped(text);
    if escaped.chars().count() > 80 {
        let head: String = escaped.chars().take(60).collect();
        format!("{head}...")
    } else {
        escaped
    }
}

/// `text` with its control characters escaped (a newline as `\n`) and nothing cut: a value
/// typed on the command line, quoted whole in a one-line refusal.
///
/// ```
/// assert_eq!(ckpt::text::escaped("mt\nbf=1h..7d"), "mt\\nbf=1h..7d");
/// ```
pub fn escaped(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::lines;
    use proptest::prelude::*;

    #[test]
    fn endings() {
        assert_eq!(lines("").count(), 0);
        assert_eq!(lines("\n").collect::<Vec<_>>(), [""]);
        assert_eq!(lines("a\r\r\nb").collect::<Vec<_>>(), ["a", "", "b"]);
        assert_eq!(lines("\u{feff}x").collect::<Vec<_>>(), ["x"]);
    }

    proptest! {
        /// Without lone `\r`, the same lines as the standard library's (a second implementation).
        #[test]
        fn as_std_without_lone_cr(s in "[a-c\\n]{0,40}", crlf in any::<bool>()) {
            let t = if crlf { s.replace('\n', "\r\n") } else { s.clone() };
            let ours: Vec<&str> = lines(&t).collect();
            let std: Vec<&str> = t.lines().collect();
            prop_assert_eq!(ours, std);
        }

        /// A lone `\r` ends a line just as `\n` does.
        #[test]
        fn lone_cr_is_newline(s in "[a-c\\n]{0,40}") {
            let cr = s.replace('\n', "\r");
            prop_assert_eq!(lines(&cr).collect::<Vec<_>>(), lines(&s).collect::<Vec<_>>());
        }
    }
}
