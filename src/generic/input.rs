//! A user's JSON document and its schema, loaded the one way every `--data`
//! command loads them (`encode`, `schema infer`, `sizes`, `codec-bench`,
//! `serve`): the schema from `--schema S.avsc`, else inferred from the
//! document ([`super::infer`], warnings and renames printed to stderr), then
//! the document read against it ([`super::json`]).

use super::datum::Datum;
use super::schema::Schema;

/// Largest document, schema or payload file a command reads.
pub const MAX_FILE: u64 = 256 * 1024 * 1024;

/// A loaded document.
#[derive(Debug)]
pub struct Data {
    pub schema: Schema,
    /// The `.avsc` text of [`Data::schema`] (given or inferred).
    pub schema_text: String,
    pub datum: Datum,
}

/// Reads a file of at most [`MAX_FILE`] bytes.
pub fn read_file(path: &str) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{path}: {e}"))?;
    if meta.len() > MAX_FILE {
        return Err(format!("{path}: {} bytes is more than the {MAX_FILE} read", meta.len()));
    }
    std::fs::read(path).map_err(|e| format!("{path}: {e}"))
}

/// Parses the `.avsc` at `path`.
pub fn schema_file(path: &str) -> Result<(Schema, String), String> {
    let text = read_file(path)?;
    let schema = Schema::parse(&text).map_err(|e| format!("{path}: {e}"))?;
    Ok((schema, String::from_utf8_lossy(&text).into_owned()))
}

/// Infers the schema of `text` (from `path`), printing warnings and renames
/// to stderr.
pub fn infer_text(path: &str, text: &[u8]) -> Result<(Schema, String), String> {
    let inferred = super::infer::infer(text).map_err(|e| format!("{path}: {e}"))?;
    for w in &inferred.warnings {
        eprintln!("warning: {path}: {w}");
    }
    for (pointer, key, name) in &inferred.renames {
        eprintln!("note: {path}: {pointer}: key {key:?} is field {name:?}");
    }
    let schema = Schema::parse(inferred.schema.as_bytes()).map_err(|e| format!("inferred schema: {e}"))?;
    Ok((schema, inferred.schema))
}

/// Loads the document at `data` with the schema at `schema`, or inferred.
pub fn load(data: &str, schema: Option<&str>) -> Result<Data, String> {
    let text = read_file(data)?;
    let (schema, schema_text) = match schema {
        Some(path) => schema_file(path)?,
        None => infer_text(data, &text)?,
    };
    let datum = super::json::decode(&schema, &text).map_err(|e| format!("{data}: {e}"))?;
    Ok(Data {
        schema,
        schema_text,
        datum,
    })
}
