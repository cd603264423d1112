//! Turning spans into text: the offset / hex / meaning dump, the per-category
//! summary ("where the bytes go"), and the per-field table across formats.

use super::span::{Category, ENVELOPE, Explained, FRAMING, Failed, PRODUCT_FIELDS, Unparsable};
use crate::codec::Format;
use std::fmt::Write;

/// The text an `explain` prints for an annotation: the dump of `ex` (when
/// `dump`), then its `summary`.
pub fn with_dump(ex: &Explained, dump: bool, summary: String) -> String {
    if !dump {
        return summary;
    }
    let mut out = render(ex);
    out.push('\n');
    out.push_str(&summary);
    out
}

/// What an `explain` prints for `bytes` in `format` that did not read: the
/// dump of the spans read so far, and the error.
pub fn unparsable(format: Format, bytes: &[u8], failed: Failed) -> Unparsable {
    Unparsable {
        partial: render(&Explained {
            format,
            bytes: bytes.to_vec(),
            spans: failed.spans,
            json: String::new(),
            members: Vec::new(),
        }),
        error: failed.error,
    }
}

/// Hex bytes shown per line.
const BYTES_PER_LINE: usize = 16;
/// Lines shown for one span before the rest is summarised (long strings).
const MAX_LINES_PER_SPAN: usize = 4;

/// The annotated dump: one line per span (more for long spans), meaning
/// indented by nesting depth.
pub fn render(ex: &Explained) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {} payload, {} bytes", ex.format, ex.bytes.len());
    let _ = writeln!(out, "{:>7}  {:<47}  meaning", "offset", "bytes (hex)");
    for span in &ex.spans {
        let end = (span.offset + span.len).min(ex.bytes.len());
        let mut at = span.offset.min(end);
        let mut lines = 0;
        loop {
            let line_end = (at + BYTES_PER_LINE).min(end);
            let hex = hex_bytes(&ex.bytes[at..line_end]);
            if lines == 0 {
                let indent = "  ".repeat(span.depth);
                let _ = writeln!(out, "{at:>7}  {hex:<47}  {indent}{}", span.meaning);
            } else {
                let _ = writeln!(out, "{at:>7}  {hex}");
            }
            lines += 1;
            at = line_end;
            if at >= end {
                break;
            }
            if lines == MAX_LINES_PER_SPAN {
                let _ = writeln!(out, "{at:>7}  … {} more bytes of this span", end - at);
                break;
            }
        }
    }
    out
}

fn hex_bytes(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Where the bytes of one payload go: by category and by product field.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub format: crate::codec::Format,
    pub total: usize,
    /// Bytes per category, in [`Category::ALL`] order.
    pub by_category: [usize; 4],
    /// Bytes per field: envelope, product framing, then [`PRODUCT_FIELDS`].
    pub by_field: Vec<(&'static str, usize)>,
}

/// Row labels of the per-field tables.
fn field_rows() -> Vec<&'static str> {
    let mut rows = vec![ENVELOPE, FRAMING];
    rows.extend(PRODUCT_FIELDS);
    rows
}

impl Summary {
    pub fn of(ex: &Explained) -> Summary {
        let mut by_category = [0usize; 4];
        let mut by_field: Vec<(&'static str, usize)> = field_rows().into_iter().map(|f| (f, 0)).collect();
        for s in &ex.spans {
            let c = Category::ALL.iter().position(|c| *c == s.category).unwrap_or(0);
            by_category[c] += s.len;
            if let Some(row) = by_field.iter_mut().find(|(f, _)| *f == s.field) {
                row.1 += s.len;
            }
        }
        Summary {
            format: ex.format,
            total: ex.bytes.len(),
            by_category,
            by_field,
        }
    }

    fn pct(&self, n: usize) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            100.0 * n as f64 / self.total as f64
        }
    }

    /// Plain-text summary printed after the dump: by category, then `rows`
    /// under `heading`.
    fn text<'r>(&self, heading: &str, rows: impl IntoIterator<Item = (&'r str, usize)>) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "where the bytes go ({}, {} bytes):", self.format, self.total);
        for (c, n) in Category::ALL.iter().zip(self.by_category) {
            let _ = writeln!(out, "  {:<18} {n:>9}  {:>5.1}%", c.name(), self.pct(n));
        }
        let _ = writeln!(out, "{heading}:");
        for (f, n) in rows {
            let _ = writeln!(out, "  {f:<18} {n:>9}  {:>5.1}%", self.pct(n));
        }
        out
    }

    /// The catalog's summary: by category, then by product field.
    pub fn to_text(&self) -> String {
        self.text(
            "by field (keys + structure + values of each field, all products)",
            self.by_field.iter().map(|(f, n)| (*f, *n)),
        )
    }
}

/// A Markdown table with one column per payload: bytes per field, then per
/// category, then the total — "the same record in five formats", per field.
pub fn compare_table(all: &[Explained]) -> String {
    let sums: Vec<Summary> = all.iter().map(Summary::of).collect();
    let mut out = String::new();
    let _ = write!(out, "| bytes |");
    for s in &sums {
        let _ = write!(out, " {} |", s.format);
    }
    let _ = write!(out, "\n|---|");
    for _ in &sums {
        let _ = write!(out, "---:|");
    }
    out.push('\n');
    for (i, f) in field_rows().iter().enumerate() {
        let _ = write!(out, "| {f} |");
        for s in &sums {
            let _ = write!(out, " {} |", s.by_field[i].1);
        }
        out.push('\n');
    }
    for (i, c) in Category::ALL.iter().enumerate() {
        let _ = write!(out, "| *{}* |", c.name());
        for s in &sums {
            let _ = write!(out, " {} ({:.0}%) |", s.by_category[i], s.pct(s.by_category[i]));
        }
        out.push('\n');
    }
    let _ = write!(out, "| **total** |");
    for s in &sums {
        let _ = write!(out, " **{}** |", s.total);
    }
    out.push('\n');
    out
}

/// Bytes per member of the root record, in payload order, then the bytes
/// no member owns: the root's own framing (its length, count or root
/// offset and table), and, where the format has them, the vtables members
/// share ([`super::flatbuffers::is_vtable`]) and padding (each row only
/// when it holds bytes).
pub fn by_member(ex: &Explained) -> Vec<(String, usize)> {
    let mut rows: Vec<(String, usize)> = ex.members.iter().map(|m| (m.clone(), 0)).collect();
    let (mut framing, mut vtables, mut padding) = (0, 0, 0);
    for s in &ex.spans {
        match s.top.and_then(|i| rows.get_mut(i)) {
            Some(row) => row.1 += s.len,
            None if s.category == Category::Padding => padding += s.len,
            None if super::flatbuffers::is_vtable(s) => vtables += s.len,
            None => framing += s.len,
        }
    }
    rows.push(("(root framing)".to_string(), framing));
    for (label, n) in [("(vtables)", vtables), ("(padding)", padding)] {
        if n > 0 {
            rows.push((label.to_string(), n));
        }
    }
    rows
}

/// A document's summary: by category, then by root member.
pub fn summary_text(ex: &Explained) -> String {
    let rows = by_member(ex);
    Summary::of(ex).text(
        "by member of the root (keys + structure + values of each member)",
        rows.iter().map(|(m, n)| (m.as_str(), *n)),
    )
}
