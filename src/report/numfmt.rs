//! Number formatting shared by the report's sections and `compare`: the
//! precision a figure is printed with, thousands separators, and latency
//! percentiles printed only as precisely as their sample supports; and the
//! Markdown rows the report's tables are built of.

use std::fmt::{Display, Write as _};

/// A number with a precision that suits its size.
pub fn num(x: f64) -> String {
    let a = x.abs();
    if !x.is_finite() {
        "n/a".into()
    } else if a >= 1_000.0 {
        group(x.round() as i64)
    } else if a >= 100.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// [`num`], or `n/a`.
pub fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".into(), num)
}

/// One Markdown table row: `| a | b |`.
pub fn row(o: &mut String, cells: impl IntoIterator<Item = impl Display>) {
    o.push('|');
    for c in cells {
        let _ = write!(o, " {c} |");
    }
    o.push('\n');
}

/// A Markdown table's header row and its `|---|` rule.
pub fn head(o: &mut String, cells: impl IntoIterator<Item = impl Display>) {
    let cells: Vec<String> = cells.into_iter().map(|c| c.to_string()).collect();
    row(o, &cells);
    let _ = writeln!(o, "|{}", "---|".repeat(cells.len()));
}

/// A fraction as a percentage without needless decimals: 0.05 → `5`, 0.025 → `2.5`.
pub fn pct_plain(x: f64) -> String {
    let t = format!("{:.1}", x * 100.0);
    t.strip_suffix(".0").map_or(t.clone(), str::to_string)
}

/// `1 product`, `1,000 products`.
pub fn products(count: usize) -> String {
    format!("{} product{}", group(count as i64), if count == 1 { "" } else { "s" })
}

/// A latency percentile with the precision its sample supports: when fewer
/// than [`TAIL_MIN`] of `n` requests lie above quantile `q`, the value is
/// near the sample's maximum and prints as `≥ v` with two significant digits.
pub fn tail(value: Option<f64>, q: f64, n: u64) -> String {
    match value {
        None => "n/a".into(),
        Some(v) if (n as f64) * (1.0 - q) < TAIL_MIN => {
            let digits = if v.abs() >= 10.0 {
                0
            } else if v.abs() >= 1.0 {
                1
            } else {
                2
            };
            format!("≥ {v:.digits$}")
        }
        Some(v) => num(v),
    }
}

/// Requests above a percentile needed to print it as a value.
pub const TAIL_MIN: f64 = 10.0;

/// An integer with thousands separators: 169241 → "169,241".
pub fn group(n: i64) -> String {
    let s = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}
