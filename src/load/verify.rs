//! What makes a response a success: a [`Target`] is everything a connection
//! thread needs (where to connect, the prebuilt request bytes) and the
//! [`Check`] each response must pass.
//!
//! Catalog mode and `--url … --data FILE.json` check every body against a
//! [`Payload`] ([`Check::Payload`]): the catalog's product count, or every
//! value of the user's document. `--url URL --verify FORMAT` checks any
//! server's catalog bodies with [`Check::Decode`]; the [`Verify`] chosen
//! there is the one switch between decoding strategies.

use super::client::{Client, Response, get_request_accepting};
use super::failure::FailureKind;
use crate::codec::Format;
use crate::generic::{self, input, schema::Schema};
use crate::payload::{Document, Payload, Refusal};
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

pub use crate::payload::{Verify, first_difference};

/// The test a response must pass to count as a request.
#[derive(Clone, Debug)]
pub enum Check {
    /// `--url` mode: status 200 and the whole body read.
    Status200,
    /// Catalog mode, and `--url` with `--data FILE.json`: status 200, the
    /// body (gunzipped when the server chose gzip) is `payload` in `format`
    /// ([`Payload::verify`]: a catalog's product count, a document's every
    /// value), gzip-encoded exactly when `gzip` says so (`None`: either);
    /// `verify` says which decoder reads a catalog.
    Payload {
        payload: Payload,
        format: Format,
        gzip: Option<bool>,
        verify: Verify,
    },
    /// `--url` with `--verify FORMAT`: status 200, the body (gunzipped when
    /// the server chose gzip) decodes as a catalog in `format` with
    /// `decoder`, and holds `expect_count` products when given.
    Decode {
        format: Format,
        expect_count: Option<usize>,
        decoder: Verify,
    },
}

impl Check {
    /// Ok when `resp` passes; otherwise the failure kind: `status` (not 200),
    /// `decode` (the body is not valid in the format), `mismatch` (valid,
    /// but not the payload, the wrong product count or the wrong
    /// Content-Encoding).
    pub fn verify(&self, resp: &Response<'_>) -> Result<(), FailureKind> {
        if resp.status != 200 {
            return Err(FailureKind::Status);
        }
        match *self {
            Check::Status200 => Ok(()),
            Check::Payload {
                ref payload,
                format,
                gzip,
                verify,
            } => {
                payload.verify(format, resp.body, verify).map_err(|r| match r {
                    Refusal::Decode => FailureKind::Decode,
                    Refusal::Mismatch => FailureKind::Mismatch,
                })?;
                if gzip.is_some_and(|g| g != resp.gzipped) {
                    return Err(FailureKind::Mismatch);
                }
                Ok(())
            }
            Check::Decode {
                format,
                expect_count,
                decoder,
            } => {
                let n = decoder
                    .product_count(format, resp.body)
                    .map_err(|_| FailureKind::Decode)?;
                match expect_count {
                    Some(want) if want != n => Err(FailureKind::Mismatch),
                    _ => Ok(()),
                }
            }
        }
    }

    /// The first difference between `resp`'s body and the payload, in
    /// words ([`Payload::difference`]); `None` when it is the payload, or
    /// for a check without one.
    pub fn difference(&self, resp: &Response<'_>) -> Option<String> {
        match self {
            Check::Payload { payload, format, .. } if resp.status == 200 => payload.difference(*format, resp.body),
            _ => None,
        }
    }

    /// The format a verified body is asked for in (`Accept`), if any.
    fn format(&self) -> Option<Format> {
        match *self {
            Check::Status200 => None,
            Check::Payload { format, .. } | Check::Decode { format, .. } => Some(format),
        }
    }
}

/// The [`Check`] of `load --url URL --data FILE.json [--schema S.avsc]
/// [--verify FORMAT]`: status 200 and every body the document, read against
/// its schema (so an absent nullable field and a `null` compare equal). The
/// schema is `schema_path`, else `/schemas/data.avsc` fetched once from the
/// `url` server (`serve --data` serves it); the format is [`format_of`]'s.
pub fn document_check(
    url: &str,
    data: &str,
    schema_path: Option<&str>,
    verify: Option<Format>,
    timeout: Duration,
) -> Result<Check, String> {
    let probe = Target::from_url(url, Check::Status200, timeout)?;
    let (authority, path) = split_url(url)?;
    let format = format_of(path, verify)?;
    let (schema, avsc) = match schema_path {
        Some(p) => input::schema_file(p)?,
        None => fetch_schema(probe.addr, authority, timeout)?,
    };
    let text = input::read_file(data)?;
    let datum = generic::json::decode(&schema, &text).map_err(|e| format!("{data}: {e}"))?;
    let document = Document::new(schema, avsc, datum).map_err(|e| format!("{data}: {e}"))?;
    Ok(Check::Payload {
        payload: Payload::document(document),
        format,
        gzip: None,
        verify: Verify::Owned,
    })
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
fn fetch_schema(addr: SocketAddr, authority: &str, timeout: Duration) -> Result<(Schema, String), String> {
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

/// `(authority, path)` of an `http://host[:port][/path]` URL (no TLS).
fn split_url(url: &str) -> Result<(&str, &str), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("--url {url:?}: expected http://host[:port]/path (https is not supported)"))?;
    Ok(rest.find('/').map_or((rest, "/"), |i| rest.split_at(i)))
}

/// One load target: address, request bytes, check, timeout.
#[derive(Clone, Debug)]
pub struct Target {
    pub addr: SocketAddr,
    /// `http://host:port/path` for summaries.
    pub url: String,
    pub request: Vec<u8>,
    pub check: Check,
    pub timeout: Duration,
    /// The server's process when it is not this one (`--server-pid`), for
    /// CPU accounting; None: the server side is this process's server threads,
    /// if it has any.
    pub server_pid: Option<u32>,
}

impl Target {
    /// A target from a URL ([`split_url`]), checked with `check`.
    pub fn from_url(url: &str, check: Check, timeout: Duration) -> Result<Target, String> {
        let (authority, path) = split_url(url)?;
        if authority.is_empty() {
            return Err(format!("--url {url:?}: missing host"));
        }
        let with_port = if authority
            .rsplit_once(':')
            .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
        {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        let addr = with_port
            .to_socket_addrs()
            .map_err(|e| format!("--url {url:?}: cannot resolve {with_port}: {e}"))?
            .next()
            .ok_or_else(|| format!("--url {url:?}: {with_port} resolves to no address"))?;
        // A verified body is asked for in its format, so a negotiating
        // endpoint (`/catalog`) answers in it.
        let accept = check.format().map_or("*/*", Format::content_type);
        Ok(Target {
            addr,
            url: url.to_string(),
            request: super::client::get_request_accepting(authority, path, accept),
            check,
            timeout,
            server_pid: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_comes_from_verify_or_the_path() {
        assert_eq!(format_of("/data/avro", None), Ok(Format::Avro));
        assert_eq!(format_of("/data", Some(Format::Protobuf)), Ok(Format::Protobuf));
        assert_eq!(format_of("/data/avro", Some(Format::Json)), Ok(Format::Json));
        assert!(format_of("/data", None).unwrap_err().contains("--verify FORMAT"));
        assert!(format_of("/data/xml", None).is_err());
    }

    #[test]
    fn urls() {
        let t = Target::from_url(
            "http://127.0.0.1:8090/ping?x=1",
            Check::Status200,
            Duration::from_secs(1),
        )
        .unwrap();
        assert_eq!(t.addr.port(), 8090);
        assert!(
            t.request
                .starts_with(b"GET /ping?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8090\r\n")
        );
        let t = Target::from_url("http://127.0.0.1", Check::Status200, Duration::from_secs(1)).unwrap();
        assert_eq!(t.addr.port(), 80);
        assert!(t.request.starts_with(b"GET / HTTP/1.1\r\n"));
        assert!(Target::from_url("https://x/", Check::Status200, Duration::from_secs(1)).is_err());
    }
}
