//! The writer half of `make test-interop` (tests/interop/run.sh): for one
//! JSON document, writes into OUTDIR the schema inferred from it (or the
//! given one), the `.proto` and `.fbs` derived from that schema, and the
//! document's bytes in all five formats, for the Python libraries to read.
//!
//! ```text
//! cargo run --example interop_write -- DOC.json OUTDIR [--schema S.avsc]
//! OUTDIR/doc.avsc doc.proto doc.fbs doc.json doc.msgpack doc.avro doc.pb doc.fb
//! ```

use std::process::ExitCode;
use wirebench::codec::Format;
use wirebench::generic::{self, derive, document, infer, schema::Schema};

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (doc, dir, given) = match args.as_slice() {
        [doc, dir] => (doc, dir, None),
        [doc, dir, flag, s] if flag == "--schema" => (doc, dir, Some(s)),
        _ => return Err("usage: interop_write DOC.json OUTDIR [--schema S.avsc]".into()),
    };
    let text = std::fs::read(doc).map_err(|e| format!("{doc}: {e}"))?;
    let avsc = match given {
        Some(s) => String::from_utf8(std::fs::read(s).map_err(|e| format!("{s}: {e}"))?).map_err(|e| e.to_string())?,
        None => {
            let inferred = infer::infer(&text).map_err(|e| format!("{doc}: infer: {e}"))?;
            for w in &inferred.warnings {
                eprintln!("{doc}: warning: {w}");
            }
            inferred.schema
        }
    };
    let schema = Schema::parse(avsc.as_bytes()).map_err(|e| format!("{doc}: {e}"))?;
    let datum = document::read(&schema, &text).map_err(|e| format!("{doc}: {e}"))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
    let write = |name: &str, bytes: &[u8]| std::fs::write(format!("{dir}/{name}"), bytes).map_err(|e| format!("{dir}/{name}: {e}"));
    write("doc.avsc", avsc.as_bytes())?;
    write("doc.proto", derive::derive(&schema, derive::Target::Proto)?.as_bytes())?;
    write("doc.fbs", derive::derive(&schema, derive::Target::Fbs)?.as_bytes())?;
    for (format, file) in [
        (Format::Json, "doc.json"),
        (Format::Msgpack, "doc.msgpack"),
        (Format::Avro, "doc.avro"),
        (Format::Protobuf, "doc.pb"),
        (Format::Flatbuffers, "doc.fb"),
    ] {
        let mut out = Vec::new();
        generic::encode(format, &schema, &datum, &mut out).map_err(|e| format!("{doc}: {}: {e}", format.name()))?;
        // Each format reads its own bytes back to the same datum first.
        let back = generic::decode(format, &schema, &out).map_err(|e| format!("{doc}: {} decode: {e}", format.name()))?;
        if back.to_json() != datum.to_json() {
            return Err(format!("{doc}: {} does not read its own bytes back", format.name()));
        }
        write(file, &out)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("interop_write: {e}");
            ExitCode::from(1)
        }
    }
}
