//! The commands of the schema-driven path: `wirebench schema infer`,
//! `wirebench schema derive` ([`super::derive::cli_derive`]),
//! `wirebench encode FORMAT --data FILE.json`. (`wirebench decode FORMAT FILE
//! --schema S.avsc` is in [`crate::evolve::decode`], beside the catalog's
//! decode.)

use super::input;
use crate::cli::Args;
use crate::codec::Format;

const SCHEMA_USAGE: &str = "\
wirebench schema infer FILE.json [-o OUT.avsc]
  Prints the Avro schema inferred from the JSON document in FILE.json
  (docs/DATA.md, \"Inference\"). Warnings (empty arrays or objects) and
  renamed keys go to stderr.
  -o FILE   write the schema to FILE instead of stdout

wirebench schema derive S.avsc --to proto|fbs [-o OUT]
  Prints the proto3 (.proto) or FlatBuffers (.fbs) schema equivalent to the
  Avro schema S.avsc, by the conventions of docs/DATA-SCHEMAS.md.
  --to proto|fbs   the schema language (required)
  -o FILE          write the schema to FILE instead of stdout
";

const ENCODE_USAGE: &str = "\
wirebench encode FORMAT --data FILE.json [--schema S.avsc] -o OUT
  Encodes the JSON document in FILE.json in FORMAT (json, msgpack, avro,
  protobuf, flatbuffers) with
  the schema S.avsc, or the schema inferred from the document.
  --data FILE     the JSON document (required)
  --schema FILE   an Avro schema (.avsc) to use instead of inferring one
  -o FILE         output file, - for stdout (required)
";

/// `wirebench schema SUBCOMMAND`.
pub fn schema_main(args: &mut Args) -> Result<(), String> {
    if args.switch("--help") {
        print!("{SCHEMA_USAGE}");
        return Ok(());
    }
    if args.clone().subcommand().as_deref() == Some("derive") {
        args.subcommand();
        return super::derive::cli_derive(args);
    }
    let out = args.value("-o")?;
    let pos = args.positional();
    args.finish()?;
    match pos.as_slice() {
        [sub, file] if sub == "infer" => {
            let text = input::read_file(file)?;
            let (_, schema) = input::infer_text(file, &text)?;
            write_out(out.as_deref().unwrap_or("-"), schema.as_bytes())
        }
        _ => Err(format!(
            "expected `schema infer FILE.json` or `schema derive S.avsc --to proto|fbs`\n\n{SCHEMA_USAGE}"
        )),
    }
}

/// `wirebench encode FORMAT --data FILE.json [--schema S.avsc] -o OUT`.
pub fn encode_main(args: &mut Args) -> Result<(), String> {
    if args.switch("--help") {
        print!("{ENCODE_USAGE}");
        return Ok(());
    }
    let data = args.value("--data")?;
    let schema = args.value("--schema")?;
    let out = args.value("-o")?;
    let pos = args.positional();
    args.finish()?;
    let [format] = pos.as_slice() else {
        return Err(format!("expected FORMAT\n\n{ENCODE_USAGE}"));
    };
    let format: Format = format.parse()?;
    let data = data.ok_or("--data FILE.json is required")?;
    let out = out.ok_or("-o OUT is required")?;
    let loaded = input::load(&data, schema.as_deref())?;
    let mut bytes = Vec::new();
    super::encode(format, &loaded.schema, &loaded.datum, &mut bytes).map_err(|e| format!("{data}: {e}"))?;
    write_out(&out, &bytes)
}

fn write_out(path: &str, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    if path == "-" {
        std::io::stdout().write_all(bytes).map_err(|e| format!("stdout: {e}"))
    } else {
        std::fs::write(path, bytes).map_err(|e| format!("{path}: {e}"))
    }
}
