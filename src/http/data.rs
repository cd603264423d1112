//! `serve --data FILE.json`: a user's own JSON document served through the
//! schema-driven codecs of [`crate::generic`].
//!
//! | route | response |
//! |---|---|
//! | `/data/{format}` | the document in that format, encoded afresh per request; `Link` to its schema |
//! | `/data` | the format chosen by `Accept` ([`super::negotiate`], the offers of `/catalog`), `Vary: Accept`; 406 when none is served |
//! | `/schemas/data.avsc` | the Avro schema (given with `--schema`, or inferred) |
//! | `/schemas/data.proto`, `/schemas/data.fbs` | the schemas derived from it (`schema derive`) |
//!
//! The `Link` header (RFC 8288) names the schema that reads the body:
//! `data.avsc` for JSON, MessagePack and Avro, `data.proto` for Protobuf,
//! `data.fbs` for FlatBuffers, with `rel="describedby"`. Only GET and HEAD
//! are allowed; no route here takes a query parameter. Responses count under
//! the `other` route label of `/metrics` (schemas under `/schemas/{file}`).
//!
//! A document body is admitted like a catalog body ([`super::admission`]):
//! its exact size in the format, measured when the document is loaded,
//! is reserved from `--max-inflight-bytes` before it is encoded, and held
//! until the response is sent; when the budget stays full the answer is the
//! catalog's 503 with `Retry-After: 1`. A large one is encoded on the
//! worker thread, into the buffers admission lends it.

use super::admission::REFUSED;
use super::buffers::Scratch;
use super::negotiate;
use super::parse::Request;
use super::response::Head;
use crate::codec::Format;
use crate::generic::{self, datum::Datum, schema::Schema};
use std::time::Instant;

/// The document a server serves under `/data`.
#[derive(Debug)]
pub struct DataSet {
    pub schema: Schema,
    /// `/schemas/data.avsc`.
    pub avsc: String,
    /// `/schemas/data.proto` and `/schemas/data.fbs`, when derived.
    pub proto: Option<String>,
    pub fbs: Option<String>,
    pub datum: Datum,
    /// The document's encoded size in each served format: what admission reserves.
    sizes: Vec<(Format, usize)>,
}

impl DataSet {
    /// Loads `--data FILE.json` with `--schema S.avsc` or the inferred schema,
    /// and checks that every served format encodes it.
    pub fn load(data: &str, schema: Option<&str>) -> Result<DataSet, String> {
        let loaded = generic::input::load(data, schema)?;
        let mut sizes = Vec::new();
        for f in Format::ALL.into_iter().filter(|&f| generic::supports(f)) {
            let mut out = Vec::new();
            generic::encode(f, &loaded.schema, &loaded.datum, &mut out)
                .map_err(|e| format!("{data}: {}: {e}", f.name()))?;
            sizes.push((f, out.len()));
        }
        Ok(DataSet {
            sizes,
            proto: derived(&loaded.schema, "proto"),
            fbs: derived(&loaded.schema, "fbs"),
            schema: loaded.schema,
            avsc: loaded.schema_text,
            datum: loaded.datum,
        })
    }

    /// The document's encoded size in `format` (0 for a format not served).
    pub fn size(&self, format: Format) -> usize {
        self.sizes.iter().find(|(f, _)| *f == format).map_or(0, |(_, n)| *n)
    }
}

/// The `.proto` (`to` = "proto") or `.fbs` text derived from the Avro schema
/// ([`crate::generic::derive`]); `None` when the schema has no derivation.
fn derived(schema: &Schema, to: &str) -> Option<String> {
    let target = if to == "proto" {
        generic::derive::Target::Proto
    } else {
        generic::derive::Target::Fbs
    };
    generic::derive::derive(schema, target).ok()
}

/// What a `/data` or `/schemas/data.*` route answers; the body is in the
/// scratch body [`route`] was given. The router (`routes.rs`) makes it a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub head: Head,
    /// Counted under `/schemas/{file}` (else under `other`).
    pub schema: bool,
    pub format: Option<Format>,
    /// Time spent in the encode, ns (0 when nothing was encoded).
    pub encode_ns: u64,
}

impl Answer {
    fn new(head: Head) -> Answer {
        Answer {
            head,
            schema: false,
            format: None,
            encode_ns: 0,
        }
    }
}

const ALLOW: &str = "Allow: GET, HEAD\r\n";
const JSON: &str = "application/json";
const TEXT: &str = "text/plain; charset=utf-8";

/// `Link` (and, on `/data`, `Vary`) header lines per format.
fn extra(format: Format, negotiated: bool) -> &'static str {
    const AVSC: &str = "Link: </schemas/data.avsc>; rel=\"describedby\"\r\n";
    const PROTO: &str = "Link: </schemas/data.proto>; rel=\"describedby\"\r\n";
    const FBS: &str = "Link: </schemas/data.fbs>; rel=\"describedby\"\r\n";
    match (format, negotiated) {
        (Format::Protobuf, false) => PROTO,
        (Format::Protobuf, true) => "Vary: Accept\r\nLink: </schemas/data.proto>; rel=\"describedby\"\r\n",
        (Format::Flatbuffers, false) => FBS,
        (Format::Flatbuffers, true) => "Vary: Accept\r\nLink: </schemas/data.fbs>; rel=\"describedby\"\r\n",
        (_, false) => AVSC,
        (_, true) => "Vary: Accept\r\nLink: </schemas/data.avsc>; rel=\"describedby\"\r\n",
    }
}

/// The reply for `path` when it is one of this module's routes, else `None`
/// (the caller routes it). Without `--data` the routes are 404s naming the flag.
pub fn route(
    data: Option<&DataSet>,
    req: &Request<'_>,
    path: &str,
    query: &str,
    scratch: &mut Scratch,
) -> Option<Answer> {
    enum R {
        Negotiated,
        Format(Format),
        Schema(&'static str),
    }
    let s = &mut scratch.body;
    let r = match path {
        "/data" => R::Negotiated,
        "/schemas/data.avsc" => R::Schema("avsc"),
        "/schemas/data.proto" => R::Schema("proto"),
        "/schemas/data.fbs" => R::Schema("fbs"),
        _ => match path.strip_prefix("/data/") {
            Some(name) => match Format::from_name(name) {
                Some(f) => R::Format(f),
                None => {
                    let msg = format!("no format {name:?}; available: json, msgpack, protobuf, avro, flatbuffers");
                    return Some(error(s, 404, &msg, ""));
                }
            },
            None => return None,
        },
    };
    let schema = matches!(r, R::Schema(_));
    let labelled = |mut a: Answer| {
        a.schema = schema;
        Some(a)
    };
    let Some(data) = data else {
        return labelled(error(
            s,
            404,
            &format!("{path} is served with `serve --data FILE.json`"),
            "",
        ));
    };
    if req.method != "GET" && req.method != "HEAD" {
        let msg = format!("method {} is not allowed on {path}; allowed: GET, HEAD", req.method);
        return labelled(error(s, 405, &msg, ALLOW));
    }
    if let Some(param) = query.split('&').find(|p| !p.is_empty()) {
        let name = param.split_once('=').map_or(param, |(n, _)| n);
        return labelled(error(
            s,
            400,
            &format!("unknown query parameter {name:?}; {path} takes no parameters"),
            "",
        ));
    }
    let reply = match r {
        R::Schema(ext) => {
            let (text, content_type) = match ext {
                "avsc" => (Some(data.avsc.as_str()), JSON),
                "proto" => (data.proto.as_deref(), TEXT),
                _ => (data.fbs.as_deref(), TEXT),
            };
            match text {
                Some(t) => {
                    s.clear();
                    s.extend_from_slice(t.as_bytes());
                    Answer::new(Head::ok(content_type, ""))
                }
                None => error(s, 404, &format!("the schema of --data has no .{ext} derivation"), ""),
            }
        }
        R::Format(f) => encode(data, f, None, scratch),
        R::Negotiated => match negotiate::choose(req.header_values("accept")) {
            Ok(offer) if generic::supports(offer.format) => encode(data, offer.format, Some(offer.media_type), scratch),
            Ok(offer) => error(
                s,
                406,
                &format!("{} is not served under /data in this build", offer.media_type),
                "Vary: Accept\r\n",
            ),
            Err(negotiate::Error::NotAcceptable) => error(
                s,
                406,
                "none of the media types in Accept is served under /data",
                "Vary: Accept\r\n",
            ),
            Err(e) => error(s, 400, &e.to_string(), "Vary: Accept\r\n"),
        },
    };
    labelled(reply)
}

fn encode(data: &DataSet, format: Format, negotiated: Option<&'static str>, scratch: &mut Scratch) -> Answer {
    let vary = if negotiated.is_some() { "Vary: Accept\r\n" } else { "" };
    if scratch.admit(data.size(format), false).is_none() {
        return error(&mut scratch.body, 503, REFUSED, "Retry-After: 1\r\n");
    }
    let s = &mut scratch.body;
    s.clear();
    let t0 = Instant::now();
    let r = generic::encode(format, &data.schema, &data.datum, s);
    let encode_ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX).max(1);
    if let Err(e) = r {
        return error(s, 500, &format!("encoding {} failed: {e}", format.name()), vary);
    }
    let content_type = negotiated.unwrap_or_else(|| {
        negotiate::OFFERS
            .iter()
            .find(|o| o.format == format)
            .map_or("application/octet-stream", |o| o.media_type)
    });
    let mut a = Answer::new(Head::ok(content_type, extra(format, negotiated.is_some())));
    a.format = Some(format);
    a.encode_ns = encode_ns;
    a
}

fn error(s: &mut Vec<u8>, status: u16, message: &str, extra: &'static str) -> Answer {
    Answer::new(Head::error(s, status, message, extra))
}

#[cfg(test)]
mod tests {
    use super::super::config::ServerConfig;
    use super::super::memory::Resources;
    use super::super::parse::{Limits, Parsed, parse};
    use super::*;
    use std::sync::Arc;

    const DOC: &str = r#"{"items":[{"id":1,"name":"a"},{"id":2,"name":"bb"}],"note":"hi"}"#;

    fn data_set(name: &str) -> DataSet {
        let dir = std::env::temp_dir().join(format!("wirebench-data-admission-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, DOC).unwrap();
        DataSet::load(path.to_str().unwrap(), None).unwrap()
    }

    fn resources(max_inflight_bytes: usize) -> Arc<Resources> {
        let config = ServerConfig {
            max_inflight_bytes,
            budget_wait: std::time::Duration::ZERO,
            ..ServerConfig::default()
        };
        Arc::new(Resources::new(&config, 1, None).unwrap())
    }

    fn get(data: &DataSet, path: &str, accept: &str, s: &mut Scratch) -> Answer {
        let raw = format!("GET {path} HTTP/1.1\r\nHost: x\r\nAccept: {accept}\r\n\r\n");
        let Ok(Parsed::Complete(req)) = parse(raw.as_bytes(), &Limits::default()) else {
            panic!("request does not parse");
        };
        route(Some(data), &req, path, "", s).expect("a /data route")
    }

    #[test]
    fn a_data_body_holds_its_bytes_of_the_budget_until_released() {
        let data = data_set("held");
        let res = resources(1 << 20);
        for (path, accept, format) in [
            ("/data/avro", "*/*", Format::Avro),
            ("/data/flatbuffers", "*/*", Format::Flatbuffers),
            ("/data", "application/vnd.msgpack", Format::Msgpack),
        ] {
            let mut s = Scratch::new(Arc::clone(&res));
            let a = get(&data, path, accept, &mut s);
            assert_eq!(a.head.status, 200, "{path}");
            assert_eq!(
                s.body.len(),
                data.size(format),
                "{path}: the reservation is the exact size"
            );
            assert_eq!(res.admission.in_use(), data.size(format), "{path}: reserved while held");
            s.settle();
            assert_eq!(res.admission.in_use(), s.body.len(), "{path}");
            s.release();
            assert_eq!(res.admission.in_use(), 0, "{path}: given back");
        }
        // Schemas are static text, not admitted (like the catalog's).
        let mut s = Scratch::new(Arc::clone(&res));
        assert_eq!(get(&data, "/schemas/data.avsc", "*/*", &mut s).head.status, 200);
        assert_eq!(res.admission.in_use(), 0);
    }

    #[test]
    fn a_data_body_beyond_the_budget_gets_the_catalogs_refusal() {
        let data = data_set("refused");
        let res = resources(data.size(Format::Json) + 1);
        let mut holder = Scratch::new(Arc::clone(&res));
        assert!(holder.admit(data.size(Format::Json), false).is_some());
        let mut s = Scratch::new(Arc::clone(&res));
        let a = get(&data, "/data/json", "*/*", &mut s);
        assert_eq!(a.head.status, 503);
        assert_eq!(a.head.extra, "Retry-After: 1\r\n");
        assert!(String::from_utf8_lossy(&s.body).contains(REFUSED));
        assert_eq!(res.admission.refused(), 1);
        holder.release();
        s.release();
        // Alone, it is served.
        assert_eq!(get(&data, "/data/json", "*/*", &mut s).head.status, 200);
    }
}
