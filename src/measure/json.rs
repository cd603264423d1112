//! Just enough JSON writing for `medians.json` and `environment.json`:
//! string quoting (RFC 8259 §7) and finite numbers. The report never needs to
//! parse arbitrary JSON, only the one-key-per-line files it wrote itself.

use std::fmt::Write as _;

/// `s` as a JSON string literal.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The inverse of [`quote`] for the escapes it writes; `None` if `lit` is not a
/// string literal of that shape.
pub fn unquote(lit: &str) -> Option<String> {
    let inner = lit.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '/' => out.push('/'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// A finite number as JSON (`null` for NaN/∞, which JSON cannot carry).
pub fn number(x: f64) -> String {
    if x.is_finite() { format!("{x}") } else { "null".into() }
}

/// `Some(x)` → number, `None` → `null`.
pub fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "null".into(), number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips() {
        for s in ["plain", "a\"b\\c", "tab\tnl\n", "\u{1}", "ไทย 🎉"] {
            assert_eq!(unquote(&quote(s)).as_deref(), Some(s), "{s:?}");
        }
        assert_eq!(quote("\u{1f}"), "\"\\u001f\"");
        assert_eq!(number(1.5), "1.5");
        assert_eq!(number(f64::NAN), "null");
        assert_eq!(unquote("nope"), None);
    }
}
