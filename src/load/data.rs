//! `load --url http://HOST:PORT/data[/{format}] --data FILE.json`: every
//! response of `serve --data` verified against the user's document.
//!
//! The check is the document itself, not a count: a body counts only when
//! the schema-driven decoder of its format ([`crate::generic::decode`])
//! reads it with the document's Avro schema, and its plain JSON
//! ([`Datum::write_json`]) is the document's. A body that does not decode is
//! a `decode` failure, one that decodes to anything else a `mismatch`.
//!
//! - The schema is `--schema S.avsc`, else fetched once, before the run,
//!   from `/schemas/data.avsc` on the `--url` server (what `serve --data`
//!   serves beside the document).
//! - The document is read against that schema ([`crate::generic::document`]),
//!   so an absent nullable field and a `null` compare equal, as they decode.
//! - The format is `--verify FORMAT` (which also sets `Accept`, so `/data`
//!   negotiates it), else the last segment of a `/data/{format}` path.

use super::client::{Client, get_request_accepting};
use super::failure::FailureKind;
use crate::codec::Format;
use crate::generic::{self, datum::Datum, input, schema::Schema};
use std::net::SocketAddr;
use std::time::Duration;

/// What a `/data` body must decode to.
#[derive(Debug)]
pub struct Expected {
    pub format: Format,
    schema: Schema,
    /// The document's plain JSON ([`Datum::write_json`]).
    json: String,
}

impl Expected {
    /// The document `datum` of `schema`, as `format` must carry it.
    pub fn new(format: Format, schema: Schema, datum: &Datum) -> Expected {
        Expected {
            format,
            schema,
            json: datum.to_json(),
        }
    }

    /// Ok when `body` decodes as [`Expected::format`] to the document.
    pub fn verify(&self, body: &[u8]) -> Result<(), FailureKind> {
        let datum = generic::decode(self.format, &self.schema, body).map_err(|_| FailureKind::Decode)?;
        let mut json = String::with_capacity(self.json.len());
        datum.write_json(&mut json);
        if json == self.json {
            Ok(())
        } else {
            Err(FailureKind::Mismatch)
        }
    }

    /// The first difference between `body` and the document, for the
    /// warm-up's report: `None` when they agree.
    pub fn difference(&self, body: &[u8]) -> Option<String> {
        match generic::decode(self.format, &self.schema, body) {
            Err(e) => Some(format!("the body does not decode as {}: {e}", self.format.name())),
            Ok(d) => {
                let got = d.to_json();
                let at = got.bytes().zip(self.json.bytes()).take_while(|(a, b)| a == b).count();
                (got != self.json).then(|| {
                    let context = |s: &str| {
                        s.get(at.saturating_sub(20)..(at + 20).min(s.len()))
                            .unwrap_or("")
                            .to_string()
                    };
                    format!(
                        "the body decodes to a different document: at JSON byte {at}, expected …{}…, found …{}…",
                        context(&self.json),
                        context(&got)
                    )
                })
            }
        }
    }
}

/// The format a `/data` URL is verified as: `verify` (from `--verify
/// FORMAT`), else the `{format}` of a `/data/{format}` path.
pub fn format_of(path: &str, verify: Option<Format>) -> Result<Format, String> {
    if let Some(f) = verify {
        return Ok(f);
    }
    let path = path.split('?').next().unwrap_or(path);
    match path.strip_prefix("/data/").and_then(Format::from_name) {
        Some(f) => Ok(f),
        None => Err(format!(
            "--data: cannot tell the format of {path:?}; use a /data/{{format}} path or --verify FORMAT"
        )),
    }
}

/// Largest schema accepted from the server.
const MAX_SCHEMA: usize = 16 << 20;

/// `GET /schemas/data.avsc` from `addr` (`authority` for the Host header).
pub fn fetch_schema(addr: SocketAddr, authority: &str, timeout: Duration) -> Result<(Schema, String), String> {
    let url = format!("http://{authority}/schemas/data.avsc");
    let mut client = Client::new(addr, timeout);
    let request = get_request_accepting(authority, "/schemas/data.avsc", "application/json");
    let resp = client
        .send(&request)
        .map_err(|k| format!("{url}: the request failed ({})", k.name()))?;
    if resp.status != 200 {
        return Err(format!(
            "{url}: status {} (is the server `wirebench serve --data`? or give --schema S.avsc)",
            resp.status
        ));
    }
    if resp.body.len() > MAX_SCHEMA {
        return Err(format!("{url}: {} bytes is more than a schema may be", resp.body.len()));
    }
    let schema = Schema::parse(resp.body).map_err(|e| format!("{url}: {e}"))?;
    Ok((schema, String::from_utf8_lossy(resp.body).into_owned()))
}

/// Builds the [`Expected`] of a run: the schema from `schema_path` or the
/// server at `addr`, then the document at `data` read against it.
pub fn expected(
    data: &str,
    schema_path: Option<&str>,
    format: Format,
    addr: SocketAddr,
    authority: &str,
    timeout: Duration,
) -> Result<Expected, String> {
    let (schema, _) = match schema_path {
        Some(p) => input::schema_file(p)?,
        None => fetch_schema(addr, authority, timeout)?,
    };
    let text = input::read_file(data)?;
    let datum = generic::document::read(&schema, &text).map_err(|e| format!("{data}: {e}"))?;
    Ok(Expected::new(format, schema, &datum))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &[u8] = br#"{"a":[1,2,3],"b":"x","c":null}"#;

    fn schema() -> Schema {
        Schema::parse(generic::infer::infer(DOC).unwrap().schema.as_bytes()).unwrap()
    }

    fn expected(format: Format) -> (Expected, Vec<u8>) {
        let doc = DOC;
        let schema = schema();
        let datum = generic::document::read(&schema, doc).unwrap();
        let mut body = Vec::new();
        generic::encode(format, &schema, &datum, &mut body).unwrap();
        (Expected::new(format, schema, &datum), body)
    }

    #[test]
    fn the_document_passes_and_anything_else_fails() {
        for format in Format::ALL {
            let (e, body) = expected(format);
            assert_eq!(e.verify(&body), Ok(()), "{format:?}");
            assert_eq!(e.difference(&body), None, "{format:?}");
            assert_eq!(
                e.verify(&body[..body.len() - 1]),
                Err(FailureKind::Decode),
                "{format:?}"
            );
            // The same schema, another document: decodes, but is not the one served.
            let other_schema = schema();
            let other = generic::document::read(&other_schema, br#"{"a":[1,2,4],"b":"x","c":null}"#).unwrap();
            let mut other_body = Vec::new();
            generic::encode(format, &other_schema, &other, &mut other_body).unwrap();
            assert_eq!(e.verify(&other_body), Err(FailureKind::Mismatch), "{format:?}");
            assert!(
                e.difference(&other_body).unwrap().contains("different document"),
                "{format:?}"
            );
        }
    }

    #[test]
    fn the_format_comes_from_verify_or_the_path() {
        assert_eq!(format_of("/data/avro", None), Ok(Format::Avro));
        assert_eq!(format_of("/data", Some(Format::Protobuf)), Ok(Format::Protobuf));
        assert_eq!(format_of("/data/avro", Some(Format::Json)), Ok(Format::Json));
        assert!(format_of("/data", None).unwrap_err().contains("--verify FORMAT"));
        assert!(format_of("/data/xml", None).is_err());
    }
}
