//! `wirebench explain FORMAT --data FILE.json [--schema S.avsc]`: every byte
//! of a user's own document, annotated, in the formats whose bytes can be
//! read back by an annotator written from the wire format and the schema.
//!
//! | format | how the annotator reads it |
//! |---|---|
//! | JSON, MessagePack | the catalog's annotators ([`super::json`], [`super::msgpack`]) walk the self-describing bytes; [`typed`] reads their tree by the Avro schema |
//! | Avro | [`avro`]: the bytes hold neither names nor types, so the walk follows the schema |
//! | Protobuf | [`protobuf`]: keys, varints and lengths of the proto3 message derived from the schema, by field number |
//! | FlatBuffers | [`flatbuffers`]: root offset, vtables, tables, vectors, strings and unions of the derived tables, every offset checked, the bytes no offset reaches as padding |
//!
//! Every annotator here writes what it read as plain JSON ([`plain`]), the
//! spelling of [`crate::generic::datum::Datum::write_json`], so a test holds
//! it to the schema-driven decoders' reading of the same bytes. The summary
//! adds the bytes up by category and by member of the root record
//! ([`super::Span::top`]).
//!
//! **Architecture Invariant:** nothing here calls `generic::*::decode`; the
//! annotators share only the schema with the codecs.

pub mod avro;
pub mod flatbuffers;
mod plain;
pub mod protobuf;
pub mod typed;

use super::render::{Summary, render};
use super::span::{Category, ExplainError, Explained, Failed, Unparsable, Walker};
use super::value::Value;
use crate::codec::Format;
use crate::generic::schema::Schema;
use std::fmt::Write;

/// An annotated document payload.
#[derive(Clone, Debug)]
pub struct DataExplained {
    pub explained: Explained,
    /// What the annotator read, as plain JSON.
    pub json: String,
    /// The root record's members in payload order ([`Span::top`] indexes them).
    pub members: Vec<String>,
}

/// Annotates `bytes`, an instance of `schema` in `format`.
pub fn explain(format: Format, schema: &Schema, bytes: &[u8]) -> Result<DataExplained, Failed> {
    let (spans, json, members) = match format {
        Format::Json | Format::Msgpack => {
            let (spans, value) = if format == Format::Json {
                super::json::annotate(bytes)?
            } else {
                super::msgpack::annotate(bytes)?
            };
            let json = typed::read(schema, &value).map_err(|message| Failed {
                spans: spans.clone(),
                error: ExplainError { offset: 0, message },
            })?;
            let members = match &value {
                Value::Record(m) => m.iter().map(|(k, _)| k.clone()).collect(),
                _ => Vec::new(),
            };
            (spans, json, members)
        }
        Format::Avro | Format::Protobuf | Format::Flatbuffers => {
            let mut w = Walker::new(bytes);
            let r = match format {
                Format::Avro => avro::annotate(&mut w, schema),
                Format::Protobuf => protobuf::annotate(&mut w, schema),
                _ => flatbuffers::annotate(&mut w, schema),
            };
            let (json, members) = match r {
                Ok(ok) => ok,
                Err(error) => return Err(Failed { spans: w.spans, error }),
            };
            let (spans, _) = w.finish(Ok(Value::Null))?;
            (spans, json, members)
        }
    };
    Ok(DataExplained {
        explained: Explained {
            format,
            bytes: bytes.to_vec(),
            spans,
            value: Value::Null,
        },
        json,
        members,
    })
}

/// Bytes per member of the root record, in payload order, then the bytes
/// no member owns: the root's own framing (its length, count or root
/// offset and table), and, where the format has them, the vtables members
/// share ([`flatbuffers::is_vtable`]) and padding (each row only when it
/// holds bytes).
pub fn by_member(ex: &DataExplained) -> Vec<(String, usize)> {
    let mut rows: Vec<(String, usize)> = ex.members.iter().map(|m| (m.clone(), 0)).collect();
    let (mut framing, mut vtables, mut padding) = (0, 0, 0);
    for s in &ex.explained.spans {
        match s.top.and_then(|i| rows.get_mut(i)) {
            Some(row) => row.1 += s.len,
            None if s.category == Category::Padding => padding += s.len,
            None if flatbuffers::is_vtable(s) => vtables += s.len,
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

/// The summary printed after the dump: by category, then by root member.
pub fn summary_text(ex: &DataExplained) -> String {
    let sum = Summary::of(&ex.explained);
    let total = sum.total.max(1) as f64;
    let mut out = String::new();
    let _ = writeln!(out, "where the bytes go ({}, {} bytes):", sum.format, sum.total);
    for (c, n) in Category::ALL.iter().zip(sum.by_category) {
        let _ = writeln!(out, "  {:<18} {n:>9}  {:>5.1}%", c.name(), 100.0 * n as f64 / total);
    }
    let _ = writeln!(out, "by member of the root (keys + structure + values of each member):");
    for (m, n) in by_member(ex) {
        let _ = writeln!(out, "  {m:<18} {n:>9}  {:>5.1}%", 100.0 * n as f64 / total);
    }
    out
}

/// The JSON form: [`super::to_json`] with the document read, the
/// per-member bytes and the members of `extra` added.
pub fn to_json(ex: &DataExplained, extra: &[(&str, String)]) -> String {
    let mut members = String::from("{");
    for (i, (m, n)) in by_member(ex).iter().enumerate() {
        let _ = write!(
            members,
            "{}{}:{n}",
            if i > 0 { "," } else { "" },
            crate::measure::json::quote(m)
        );
    }
    members.push('}');
    let mut all = vec![("document", ex.json.clone()), ("by_member", members)];
    all.extend(extra.iter().cloned());
    super::to_json(&ex.explained, &all)
}

/// The text `explain FORMAT --data` prints: the dump (when `dump`) and the
/// summary; for bytes that do not read, the dump of what did and the error.
pub fn text(format: Format, schema: &Schema, bytes: &[u8], dump: bool) -> Result<String, Unparsable> {
    match explain(format, schema, bytes) {
        Ok(ex) => {
            let mut out = String::new();
            if dump {
                out.push_str(&render(&ex.explained));
                out.push('\n');
            }
            out.push_str(&summary_text(&ex));
            Ok(out)
        }
        Err(failed) => Err(Unparsable {
            partial: render(&Explained {
                format,
                bytes: bytes.to_vec(),
                spans: failed.spans,
                value: Value::Null,
            }),
            error: failed.error,
        }),
    }
}
