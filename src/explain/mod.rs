//! `wirebench explain`: every byte of every format, annotated.
//!
//! Each format has an annotator (`explain::json`, `explain::msgpack`, …) written
//! from the wire format itself — none of them calls the codec's decoder or the
//! generated code — so it teaches the format and doubles as a second,
//! independent reader. An annotator walks a payload and produces:
//!
//! - a list of [`Span`]s that cover every byte exactly once, in order: offset,
//!   length, nesting depth, what kind of byte it is ([`Category`]), which
//!   product field it belongs to, and what it means in words;
//! - the decoded data as a generic [`Value`] tree, which [`Value::to_catalog`]
//!   turns into our domain types, so tests can check that the annotator reads
//!   the same catalog as the real decoder.
//!
//! [`render`] prints the spans as an offset / hex / meaning table,
//! [`Summary`] adds them up per category ("where the bytes go") and per field,
//! and [`to_json`] writes them as JSON (payload in base64, every owner of
//! every span) for scripts and the browser page.
//!
//! **Architecture Invariant:** annotators never call `codec::*::decode` or the
//! generated Protobuf/FlatBuffers code; they share only the byte-level helpers
//! (`Cursor`, `varint`).

pub mod avro;
pub mod data;
pub mod flatbuffers;
pub mod json;
mod jsonform;
pub mod msgpack;
pub mod protobuf;
mod render;
mod span;
mod value;

pub use jsonform::{failed_json, to_json};
pub use render::{Summary, compare_table, render};
pub use span::{Category, ENVELOPE, ExplainError, Explained, FRAMING, Failed, Owner, PRODUCT_FIELDS, Span, Unparsable};
pub use value::Value;

use crate::codec::Format;

/// Annotates `bytes` as `format`.
pub fn explain(format: Format, bytes: &[u8]) -> Result<Explained, Failed> {
    let (spans, value) = match format {
        Format::Json => json::annotate(bytes),
        Format::Msgpack => msgpack::annotate(bytes),
        Format::Avro => avro::annotate(bytes),
        Format::Protobuf => protobuf::annotate(bytes),
        Format::Flatbuffers => flatbuffers::annotate(bytes),
    }?;
    Ok(Explained {
        format,
        bytes: bytes.to_vec(),
        spans,
        value,
    })
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
        let ex = data::explain(format, &loaded.schema, &bytes)
            .map_err(|f| format!("{source}: not valid {format} of the schema: {}", f.error))?;
        emit(&format!("{}\n", data::to_json(&ex, &[])));
        return Ok(());
    }
    match data::text(format, &loaded.schema, &bytes, !summary_only) {
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
    match explain(format, bytes) {
        Ok(ex) => {
            let mut out = String::new();
            if dump {
                out.push_str(&render(&ex));
                out.push('\n');
            }
            out.push_str(&Summary::of(&ex).to_text());
            Ok(out)
        }
        Err(failed) => {
            let partial = Explained {
                format,
                bytes: bytes.to_vec(),
                spans: failed.spans,
                value: Value::Null,
            };
            Err(Unparsable {
                partial: render(&partial),
                error: failed.error,
            })
        }
    }
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
