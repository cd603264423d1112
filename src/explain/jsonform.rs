//! The explainer's JSON form, for scripts and the browser page
//! (`/explain/{format}?count=N` with `Accept: application/json`):
//!
//! ```text
//! {"format":"msgpack","bytes":312,"payload":"gaho…",   payload: base64 (RFC 4648 §4)
//!  "spans":[{"offset":0,"length":1,"depth":0,"category":"structure",
//!            "field":"(envelope)","fields":["(envelope)"],"meaning":"fixmap, 1 entry (0x80 | 1)"},…],
//!  "summary":{"by_category":{"keys":…},"by_field":{"(envelope)":…,"id":…}},
//!  "error":null}
//! ```
//!
//! `spans` cover every byte exactly once, in order. `fields` lists the JSON
//! path (without `$.`) of every value the bytes belong to: `products[3].name`,
//! `products[3]` for a product's framing, a document's `orders[0].tags.gift`,
//! `(envelope)` for the root's own framing; one for data read once, several
//! for data several tables point at (a FlatBuffers vtable or a shared string).
//! `field` is the one product field the summary credits the bytes to. A payload that does not parse
//! gives the spans read so far and `error` `{"offset":…,"message":…}`.

use super::render::Summary;
use super::span::{Category, ExplainError, Explained, Failed, Span};
use crate::measure::hlog::base64_encode;
use crate::measure::json::quote;
use std::fmt::Write;

/// The JSON document of an annotated payload. `extra` members (name, raw
/// JSON value) are written after `format`, e.g. the gzip size.
pub fn to_json(ex: &Explained, extra: &[(&str, String)]) -> String {
    document(ex, &ex.spans, None, extra)
}

/// The JSON document of a payload that does not parse: the spans read so
/// far and the error.
pub fn failed_json(format: crate::codec::Format, bytes: &[u8], failed: &Failed, extra: &[(&str, String)]) -> String {
    let partial = Explained {
        format,
        bytes: bytes.to_vec(),
        spans: Vec::new(),
        json: String::new(),
        members: Vec::new(),
    };
    document(&partial, &failed.spans, Some(&failed.error), extra)
}

fn document(ex: &Explained, spans: &[Span], error: Option<&ExplainError>, extra: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(ex.bytes.len() * 2 + spans.len() * 120);
    let _ = write!(out, "{{\"format\":{}", quote(ex.format.name()));
    for (name, value) in extra {
        let _ = write!(out, ",{}:{value}", quote(name));
    }
    let _ = write!(
        out,
        ",\"bytes\":{},\"payload\":\"{}\",\"spans\":[",
        ex.bytes.len(),
        base64_encode(&ex.bytes)
    );
    for (i, s) in spans.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        span(&mut out, s);
    }
    out.push_str("],\"summary\":");
    let sum = Summary::of(&Explained {
        format: ex.format,
        bytes: ex.bytes.clone(),
        spans: spans.to_vec(),
        json: String::new(),
        members: Vec::new(),
    });
    out.push_str("{\"by_category\":{");
    for (i, (c, n)) in Category::ALL.iter().zip(sum.by_category).enumerate() {
        let _ = write!(out, "{}{}:{n}", if i > 0 { "," } else { "" }, quote(c.name()));
    }
    out.push_str("},\"by_field\":{");
    for (i, (f, n)) in sum.by_field.iter().enumerate() {
        let _ = write!(out, "{}{}:{n}", if i > 0 { "," } else { "" }, quote(f));
    }
    out.push_str("}},\"error\":");
    match error {
        Some(e) => {
            let _ = write!(out, "{{\"offset\":{},\"message\":{}}}", e.offset, quote(&e.message));
        }
        None => out.push_str("null"),
    }
    out.push('}');
    out
}

fn span(out: &mut String, s: &Span) {
    let _ = write!(
        out,
        "{{\"offset\":{},\"length\":{},\"depth\":{},\"category\":{},\"field\":{},\"fields\":[",
        s.offset,
        s.len,
        s.depth,
        quote(category_name(s.category)),
        quote(s.field)
    );
    for (i, o) in s.owners.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&quote(&o.path()));
    }
    let _ = write!(out, "],\"meaning\":{}}}", quote(&s.meaning));
}

/// The singular category name the JSON form uses.
fn category_name(c: Category) -> &'static str {
    match c {
        Category::Key => "key",
        Category::Structure => "structure",
        Category::Padding => "padding",
        Category::Value => "value",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Format;

    #[test]
    fn one_span_per_line_shape() {
        let bytes = Format::Msgpack
            .encode_to_vec(&crate::fixtures::catalog(1).products)
            .unwrap();
        let ex = super::super::explain(Format::Msgpack, &bytes).unwrap();
        let json = to_json(&ex, &[("gzip_bytes", "7".into())]);
        assert!(
            json.starts_with("{\"format\":\"msgpack\",\"gzip_bytes\":7,\"bytes\":"),
            "{json:.80}"
        );
        assert!(json.contains("\"fields\":[\"products[0].id\"]"), "{json:.400}");
        assert!(json.ends_with(",\"error\":null}"));
        assert_eq!(json.matches("\"offset\":").count(), ex.spans.len());
    }

    #[test]
    fn failed_payload_names_its_error() {
        let failed = super::super::explain(Format::Msgpack, &[0x81, 0xa1]).unwrap_err();
        let json = failed_json(Format::Msgpack, &[0x81, 0xa1], &failed, &[]);
        assert!(json.contains("\"error\":{\"offset\":"), "{json}");
    }
}
