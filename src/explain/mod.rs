//! `wirebench explain`: every byte of every format, annotated — the
//! catalog's and a user's document's alike.
//!
//! One annotator per format, written from the wire format itself — none of
//! them calls a codec's decoder, a schema-driven decoder or generated code —
//! so it teaches the format and doubles as a second, independent reader:
//!
//! | format | how the annotator reads it |
//! |---|---|
//! | JSON, MessagePack | [`json`], [`msgpack`] walk the self-describing bytes into a [`Value`] tree; [`typed`] reads the tree by the Avro schema |
//! | Avro | [`avro`]: the bytes hold neither names nor types, so the walk follows the schema |
//! | Protobuf | [`protobuf`]: keys, varints and lengths of the proto3 message derived from the schema (the catalog's `.proto` is that derivation), by field number |
//! | FlatBuffers | [`flatbuffers`]: by the tables derived from the schema, with the catalog's file identifier and inline struct (schemas/catalog.fbs); shared vtables and strings, one span with every owner |
//!
//! The catalog is read by its Avro schema (`schemas/catalog.avsc`), its
//! `Product` records as entries ([`Walker::enter`]), so each span is also
//! owned by a product field. An annotator produces:
//!
//! - a list of [`Span`]s that cover every byte exactly once, in order: offset,
//!   length, nesting depth, what kind of byte it is ([`Category`]), which
//!   product field and root member it belongs to, and what it means in words;
//! - what it read as plain JSON ([`Explained::json`], [`plain`]), so tests
//!   hold it to the real decoders' reading of the same bytes.
//!
//! [`render`] prints the spans as an offset / hex / meaning table,
//! [`Summary`] adds them up per category ("where the bytes go") and per
//! product field, [`by_member`] per member of a document's root, and
//! [`to_json`] writes them as JSON (payload in base64, every owner of every
//! span) for scripts and the browser page.
//!
//! **Architecture Invariant:** annotators never call `codec::*::decode`,
//! `generic::*::decode` or the generated Protobuf/FlatBuffers code; they
//! share only the schema with the codecs.

pub mod avro;
pub mod flatbuffers;
pub mod json;
mod jsonform;
pub mod msgpack;
mod plain;
pub mod protobuf;
mod render;
mod span;
pub mod typed;
mod value;

pub use jsonform::{failed_json, to_json};
pub use render::{Summary, by_member, compare_table, render, summary_text};
pub use span::{Category, ENVELOPE, ExplainError, Explained, FRAMING, Failed, Owner, PRODUCT_FIELDS, Span, Unparsable};
pub use value::Value;

use crate::codec::Format;
use crate::generic::schema::{Node, NodeId, Schema};
use span::Walker;
use std::sync::OnceLock;

/// The catalog's Avro schema and its entry type (`Product`).
fn catalog() -> &'static (Schema, Option<NodeId>) {
    static CATALOG: OnceLock<(Schema, Option<NodeId>)> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let schema = Schema::parse(include_bytes!("../../schemas/catalog.avsc")).expect("schemas/catalog.avsc parses");
        // The items of the root's `products` array.
        let entry = match schema.node(schema.root()) {
            Node::Record(r) => r
                .fields
                .iter()
                .find(|f| &*f.name == "products")
                .and_then(|f| match schema.node(f.ty) {
                    Node::Array(item) => Some(*item),
                    _ => None,
                }),
            _ => None,
        };
        (schema, entry)
    })
}

/// Annotates `bytes` as a catalog in `format`.
pub fn explain(format: Format, bytes: &[u8]) -> Result<Explained, Failed> {
    let (schema, entry) = catalog();
    annotate(format, schema, *entry, bytes)
}

/// Annotates `bytes`, an instance of `schema` in `format`; the spans of
/// records of type `entry` are owned by product fields as well.
pub fn annotate(format: Format, schema: &Schema, entry: Option<NodeId>, bytes: &[u8]) -> Result<Explained, Failed> {
    let walked = match format {
        Format::Json => json::annotate(bytes, entry.is_none()).and_then(|(spans, v)| read_tree(schema, spans, &v))?,
        Format::Msgpack => {
            msgpack::annotate(bytes, entry.is_none()).and_then(|(spans, v)| read_tree(schema, spans, &v))?
        }
        Format::Avro | Format::Protobuf | Format::Flatbuffers => {
            let mut w = if entry.is_none() {
                Walker::document(bytes)
            } else {
                Walker::new(bytes)
            };
            w.entry = entry;
            let r = match format {
                Format::Avro => avro::annotate(&mut w, schema),
                Format::Protobuf => protobuf::annotate(&mut w, schema),
                _ => flatbuffers::annotate(&mut w, schema, std::ptr::eq(schema, &catalog().0)),
            };
            let (json, members) = match r {
                Ok(ok) => ok,
                Err(error) => return Err(Failed { spans: w.spans, error }),
            };
            let (spans, _) = w.finish(Ok(Value::Null))?;
            (spans, json, members)
        }
    };
    Ok(explained(format, bytes, walked))
}

/// What a walk gives: its spans, the plain JSON it read, the root's members.
type Walked = (Vec<Span>, String, Vec<String>);

fn explained(format: Format, bytes: &[u8], (spans, json, members): Walked) -> Explained {
    Explained {
        format,
        bytes: bytes.to_vec(),
        spans,
        json,
        members,
    }
}

/// A walk that built a [`Value`] tree: the tree read by `schema`.
fn read_tree(schema: &Schema, spans: Vec<Span>, value: &Value) -> Result<Walked, Failed> {
    let json = match typed::read(schema, value) {
        Ok(json) => json,
        Err(message) => {
            let error = ExplainError { offset: 0, message };
            return Err(Failed { spans, error });
        }
    };
    let members = match value {
        Value::Record(m) => m.iter().map(|(k, _)| k.clone()).collect(),
        _ => Vec::new(),
    };
    Ok((spans, json, members))
}

/// `wirebench explain FORMAT [--count N] [--fixture FILE | --file PAYLOAD] [--summary]`
/// and `wirebench explain compare [--count N] [--fixture FILE]`.
pub fn cli_main(args: &mut crate::cli::Args) -> Result<(), String> {
    if args.switch("--help") {
        println!(
            "wirebench explain FORMAT [--count N (default 1)] [--fixture FILE | --file PAYLOAD] [--summary]\n\
             wirebench explain FORMAT --data FILE.json [--schema S.avsc] [--file PAYLOAD] [--summary] [--json]\n\
             wirebench explain compare [--count N] [--fixture FILE]\n\n\
             FORMAT is one of json, msgpack, protobuf, avro, flatbuffers. --file explains a payload saved\n\
             from anywhere (e.g. `curl -o c.pb ...`); --summary prints only where the bytes go.\n\
             --data FILE.json explains your own document in any of the five formats, encoded with --schema S.avsc\n\
             or the schema inferred from it; with --file, PAYLOAD is read by that schema instead.\n\
             --json prints the annotation as one JSON object (with --data)."
        );
        return Ok(());
    }
    let count: usize = args.parse_or("--count", 1)?;
    let fixture = args.value("--fixture")?;
    let file = args.value("--file")?;
    let summary_only = args.switch("--summary");
    let data = args.value("--data")?;
    let schema = args.value("--schema")?;
    let json = args.switch("--json");
    let pos = args.positional();
    args.finish()?;
    let [what] = pos.as_slice() else {
        return Err("expected one FORMAT (json, msgpack, protobuf, avro, flatbuffers) or `compare`".into());
    };
    if let Some(data) = data {
        if fixture.is_some() || what == "compare" {
            return Err(
                "--data explains your document in one FORMAT; --fixture and compare are for the catalog".into(),
            );
        }
        let format: Format = what.parse()?;
        return data_main(format, &data, schema.as_deref(), file.as_deref(), summary_only, json);
    }
    if schema.is_some() || json {
        return Err("--schema and --json go with --data FILE.json".into());
    }
    let products = || -> Result<Vec<crate::model::Product>, String> {
        let catalog = match &fixture {
            Some(path) => crate::fixtures::load_file(std::path::Path::new(path))?,
            None => crate::fixtures::catalog(count),
        };
        if count == 0 || count > catalog.products.len() {
            return Err(format!("--count must be 1..={}, got {count}", catalog.products.len()));
        }
        Ok(catalog.products[..count].to_vec())
    };
    if what == "compare" {
        if file.is_some() {
            return Err("compare encodes the fixture in all five formats; --file is not allowed".into());
        }
        emit(&compare_text(&products()?)?);
        return Ok(());
    }
    let format: Format = what.parse()?;
    let bytes = match &file {
        Some(path) => std::fs::read(path).map_err(|e| format!("{path}: {e}"))?,
        None => format.encode_to_vec(&products()?).map_err(|e| e.to_string())?,
    };
    match explain_text(format, &bytes, !summary_only) {
        Ok(text) => {
            emit(&text);
            Ok(())
        }
        Err(Unparsable { partial, error }) => {
            // What did parse is still worth seeing; the error names the first bad byte.
            emit(&partial);
            let source = file.unwrap_or_else(|| "the encoded fixture".into());
            Err(format!("{source}: not valid {format}: {error}"))
        }
    }
}

/// Writes `text` to stdout. A reader that closed the pipe early (`explain … |
/// head`) has what it asked for, so a broken pipe ends the output quietly
/// instead of panicking as `print!` does.
fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("wirebench explain: stdout: {e}");
        }
    }
}

/// `explain FORMAT --data FILE.json [--schema S.avsc] [--file PAYLOAD]`.
fn data_main(
    format: Format,
    data: &str,
    schema: Option<&str>,
    file: Option<&str>,
    summary_only: bool,
    json: bool,
) -> Result<(), String> {
    let loaded = crate::generic::input::load(data, schema)?;
    let bytes = match file {
        Some(path) => crate::generic::input::read_file(path)?,
        None => {
            let mut out = Vec::new();
            crate::generic::encode(format, &loaded.schema, &loaded.datum, &mut out)
                .map_err(|e| format!("{data}: {e}"))?;
            out
        }
    };
    let source = file.map_or_else(|| format!("{data} encoded as {format}"), str::to_string);
    if json {
        let ex = annotate(format, &loaded.schema, None, &bytes)
            .map_err(|f| format!("{source}: not valid {format} of the schema: {}", f.error))?;
        emit(&format!("{}\n", document_json(&ex, &[])));
        return Ok(());
    }
    match document_text(format, &loaded.schema, &bytes, !summary_only) {
        Ok(text) => {
            emit(&text);
            Ok(())
        }
        Err(Unparsable { partial, error }) => {
            emit(&partial);
            Err(format!("{source}: not valid {format} of the schema: {error}"))
        }
    }
}

/// The full text `explain FORMAT` prints (also served at `/explain/{format}`):
/// the annotated dump (when `dump`) and the summary. A payload that does not
/// parse yields the spans read so far and an error naming the first bad byte.
pub fn explain_text(format: Format, bytes: &[u8], dump: bool) -> Result<String, Unparsable> {
    explain(format, bytes)
        .map(|ex| render::with_dump(&ex, dump, Summary::of(&ex).to_text()))
        .map_err(|failed| render::unparsable(format, bytes, failed))
}

/// The per-field byte table across all five formats for `products`.
pub fn compare_text(products: &[crate::model::Product]) -> Result<String, String> {
    let mut all = Vec::new();
    for format in Format::ALL {
        let bytes = format.encode_to_vec(products).map_err(|e| e.to_string())?;
        let ex = explain(format, &bytes).map_err(|f| format!("{format}: {}", f.error))?;
        all.push(ex);
    }
    Ok(compare_table(&all))
}

/// The text `explain FORMAT --data` prints: the dump (when `dump`) and the
/// summary by root member; for bytes that do not read, the dump of what did
/// and the error.
pub fn document_text(format: Format, schema: &Schema, bytes: &[u8], dump: bool) -> Result<String, Unparsable> {
    annotate(format, schema, None, bytes)
        .map(|ex| render::with_dump(&ex, dump, summary_text(&ex)))
        .map_err(|failed| render::unparsable(format, bytes, failed))
}

/// The JSON form of a document's annotation: [`to_json`] with the document
/// read, the per-member bytes and the members of `extra` added.
pub fn document_json(ex: &Explained, extra: &[(&str, String)]) -> String {
    let mut members = String::from("{");
    for (i, (m, n)) in by_member(ex).iter().enumerate() {
        if i > 0 {
            members.push(',');
        }
        members.push_str(&crate::measure::json::quote(m));
        members.push(':');
        members.push_str(&n.to_string());
    }
    members.push('}');
    let mut all = vec![("document", ex.json.clone()), ("by_member", members)];
    all.extend(extra.iter().cloned());
    to_json(ex, &all)
}
