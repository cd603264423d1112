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

use super::negotiate;
use super::parse::Request;
use super::response::{Head, json_error};
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
}

impl DataSet {
    /// Loads `--data FILE.json` with `--schema S.avsc` or the inferred schema,
    /// and checks that every served format encodes it.
    pub fn load(data: &str, schema: Option<&str>) -> Result<DataSet, String> {
        let loaded = generic::input::load(data, schema)?;
        for f in Format::ALL.into_iter().filter(|&f| generic::supports(f)) {
            generic::encode(f, &loaded.schema, &loaded.datum, &mut Vec::new())
                .map_err(|e| format!("{data}: {}: {e}", f.name()))?;
        }
        Ok(DataSet {
            proto: derived(&loaded.schema, "proto"),
            fbs: derived(&loaded.schema, "fbs"),
            schema: loaded.schema,
            avsc: loaded.schema_text,
            datum: loaded.datum,
        })
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
/// buffer [`route`] was given. The router (`routes.rs`) makes it a reply.
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
pub fn route(data: Option<&DataSet>, req: &Request<'_>, path: &str, query: &str, s: &mut Vec<u8>) -> Option<Answer> {
    enum R {
        Negotiated,
        Format(Format),
        Schema(&'static str),
    }
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
                    Answer::new(ok(content_type, ""))
                }
                None => error(s, 404, &format!("the schema of --data has no .{ext} derivation"), ""),
            }
        }
        R::Format(f) => encode(data, f, None, s),
        R::Negotiated => match negotiate::choose(req.header_values("accept")) {
            Ok(offer) if generic::supports(offer.format) => encode(data, offer.format, Some(offer.media_type), s),
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

fn encode(data: &DataSet, format: Format, negotiated: Option<&'static str>, s: &mut Vec<u8>) -> Answer {
    s.clear();
    let t0 = Instant::now();
    let r = generic::encode(format, &data.schema, &data.datum, s);
    let encode_ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX).max(1);
    if let Err(e) = r {
        return error(s, 500, &format!("encoding {} failed: {e}", format.name()), "");
    }
    let content_type = negotiated.unwrap_or_else(|| {
        negotiate::OFFERS
            .iter()
            .find(|o| o.format == format)
            .map_or("application/octet-stream", |o| o.media_type)
    });
    let mut a = Answer::new(ok(content_type, extra(format, negotiated.is_some())));
    a.format = Some(format);
    a.encode_ns = encode_ns;
    a
}

fn ok(content_type: &'static str, extra: &'static str) -> Head {
    Head {
        status: 200,
        content_type,
        extra,
        gzip: false,
    }
}

fn error(s: &mut Vec<u8>, status: u16, message: &str, extra: &'static str) -> Answer {
    s.clear();
    json_error(s, message);
    Answer::new(Head {
        status,
        content_type: JSON,
        extra,
        gzip: false,
    })
}
