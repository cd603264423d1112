//! `wirebench decode FORMAT FILE`: any catalog payload as plain JSON, like
//! `protoc --decode` or avro-tools `tojson`.
//!
//! For Avro it takes `--writer-schema W.avsc [--reader-schema R.avsc]` and
//! works for any schema: the datum is read with the schema-resolution
//! reader and printed as plain JSON (a union's value bare, `bytes` and
//! `fixed` as strings of code points 0–255 as in the Avro specification's
//! "JSON Encoding", enums as their symbol). Without `--writer-schema`, Avro
//! payloads are read with the catalog schema. Other formats are decoded by
//! the production decoder and printed as the catalog datum.

use crate::cli::Args;
use crate::codec::Format;
use crate::generic::resolve::Resolver;
use crate::generic::schema::Schema;

/// Largest file `decode` reads (payloads and schemas).
const MAX_FILE: u64 = 256 * 1024 * 1024;

fn read_file(path: &str) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{path}: {e}"))?;
    if meta.len() > MAX_FILE {
        return Err(format!(
            "{path}: {} bytes is more than the {MAX_FILE} decode reads",
            meta.len()
        ));
    }
    std::fs::read(path).map_err(|e| format!("{path}: {e}"))
}

fn schema(path: &str) -> Result<Schema, String> {
    Schema::parse(&read_file(path)?).map_err(|e| format!("{path}: {e}"))
}

/// Decodes `bytes` as `format` into plain JSON; Avro with the given schemas.
pub fn decode_to_json(
    format: Format,
    bytes: &[u8],
    writer: Option<&Schema>,
    reader: Option<&Schema>,
) -> Result<String, String> {
    match format {
        Format::Avro => {
            let catalog;
            let w = match writer {
                Some(w) => w,
                None => {
                    catalog = super::v1_schema();
                    &catalog
                }
            };
            let r = reader.unwrap_or(w);
            Resolver::new(w, r)
                .read(bytes)
                .map(|d| d.to_json())
                .map_err(|e| e.to_string())
        }
        other => {
            let c = other.decode(bytes).map_err(|e| e.to_string())?;
            super::catalog_datum(&c).map(|d| d.to_json())
        }
    }
}

pub fn cli_main(args: &mut Args) -> Result<(), String> {
    if args.switch("--help") {
        println!(
            "wirebench decode FORMAT FILE [--writer-schema W.avsc] [--reader-schema R.avsc]\n\n\
             Prints the payload in FILE as plain JSON. FORMAT: json, msgpack, protobuf, avro, flatbuffers.\n\
             Avro: any schema; the schemas default to schemas/catalog.avsc; with both, the datum\n\
             is resolved from the writer's schema to the reader's (exit 2 when they do not resolve)."
        );
        return Ok(());
    }
    let writer = args.value("--writer-schema")?;
    let reader = args.value("--reader-schema")?;
    let pos = args.positional();
    args.finish()?;
    let [format, file] = pos.as_slice() else {
        return Err("expected FORMAT FILE".to_string());
    };
    let format: Format = format.parse()?;
    if format != Format::Avro && (writer.is_some() || reader.is_some()) {
        return Err("--writer-schema and --reader-schema are for avro only".to_string());
    }
    if writer.is_none() && reader.is_some() {
        return Err("--reader-schema needs --writer-schema".to_string());
    }
    let w = writer.as_deref().map(schema).transpose()?;
    let r = reader.as_deref().map(schema).transpose()?;
    let bytes = read_file(file)?;
    let json = decode_to_json(format, &bytes, w.as_ref(), r.as_ref()).map_err(|e| format!("{file}: {e}"))?;
    println!("{json}");
    Ok(())
}
