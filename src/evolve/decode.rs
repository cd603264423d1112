//! `wirebench decode FORMAT FILE`: any payload as plain JSON, like
//! `protoc --decode` or avro-tools `tojson`.
//!
//! With `--schema S.avsc` it decodes any format with the schema-driven
//! codec of [`crate::generic`] (the bytes `wirebench encode` writes); for
//! Avro, `--schema` is the writer's schema. For Avro it also takes `--writer-schema W.avsc [--reader-schema R.avsc]` and
//! works for any schema: the datum is read with the schema-resolution
//! reader and printed as plain JSON (a union's value bare, `bytes` and
//! `fixed` as strings of code points 0–255 as in the Avro specification's
//! "JSON Encoding", enums as their symbol). Without `--writer-schema`, Avro
//! payloads are read with the catalog schema. Other formats are decoded by
//! the production decoder and printed as the catalog datum.

use crate::cli::Args;
use crate::codec::Format;
use crate::generic::input::read_file;
use crate::generic::resolve::Resolver;
use crate::generic::schema::Schema;

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
            let v1 = super::v1_schema();
            let w = writer.unwrap_or(&v1);
            let r = reader.unwrap_or(w);
            Resolver::new(w, r)
                .read(bytes)
                .map(|d| plain_json(r, &d))
                .map_err(|e| e.to_string())
        }
        other => {
            let c = other.decode(bytes).map_err(|e| e.to_string())?;
            super::catalog_datum(&c).map(|d| d.to_json())
        }
    }
}

/// The document a datum came from: JSON with the schema's keys, or, for a
/// datum JSON cannot spell (NaN, infinities), [`Datum::to_json`]'s rendering.
///
/// [`Datum::to_json`]: crate::generic::datum::Datum::to_json
pub fn plain_json(schema: &Schema, d: &crate::generic::datum::Datum) -> String {
    let mut out = Vec::new();
    match crate::generic::json::encode(schema, d, &mut out) {
        Ok(()) => String::from_utf8_lossy(&out).into_owned(),
        Err(_) => d.to_json(),
    }
}

pub fn cli_main(args: &mut Args) -> Result<(), String> {
    if args.switch("--help") {
        println!(
            "wirebench decode FORMAT FILE [--schema S.avsc] [--writer-schema W.avsc] [--reader-schema R.avsc]\n\n\
             Prints the payload in FILE as plain JSON. FORMAT: json, msgpack, protobuf, avro, flatbuffers.\n\
             --schema S.avsc: decode with the schema-driven codec (the bytes `wirebench encode` writes);\n\
             for avro it is the writer's schema, the same as --writer-schema.\n\
             Avro: any schema; the schemas default to schemas/catalog.avsc; with both, the datum\n\
             is resolved from the writer's schema to the reader's (exit 2 when they do not resolve)."
        );
        return Ok(());
    }
    let given = args.value("--schema")?;
    let writer = args.value("--writer-schema")?;
    let reader = args.value("--reader-schema")?;
    let pos = args.positional();
    args.finish()?;
    let [format, file] = pos.as_slice() else {
        return Err("expected FORMAT FILE".to_string());
    };
    let format: Format = format.parse()?;
    if given.is_some() && writer.is_some() {
        return Err("--schema and --writer-schema name the same schema: give one".to_string());
    }
    if let Some(path) = &given
        && format != Format::Avro
    {
        if reader.is_some() {
            return Err("--reader-schema is for avro only".to_string());
        }
        let s = schema(path)?;
        let bytes = read_file(file)?;
        let d = crate::generic::decode(format, &s, &bytes).map_err(|e| format!("{file}: {e}"))?;
        println!("{}", plain_json(&s, &d));
        return Ok(());
    }
    let writer = writer.or(given);
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
