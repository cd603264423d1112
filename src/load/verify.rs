//! What makes a response a success, and the field-by-field comparison of a
//! decoded catalog with the fixture.
//!
//! A [`Target`] is everything a connection thread needs: where to connect, the
//! prebuilt request bytes, and the [`Check`] each response must pass.
//!
//! `--url URL --verify FORMAT` checks any server's bodies with [`Check::Decode`]:
//! the [`Decoder`] chosen there is the one switch between decoding strategies.

use super::client::Response;
use super::data::Expected;
use super::failure::FailureKind;
use crate::codec::Format;
use crate::model::Catalog;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

pub use crate::payload::{Verify, first_difference};

/// The test a response must pass to count as a request.
#[derive(Clone, Debug)]
pub enum Check {
    /// `--url` mode: status 200 and the whole body read.
    Status200,
    /// Catalog mode: status 200, gzip-encoded exactly when `gzip`, the body
    /// decodes as `format` (decode validates the domain rules) and holds
    /// `count` products; `verify` says which decoder checks it.
    Catalog {
        format: Format,
        count: usize,
        gzip: bool,
        verify: Verify,
    },
    /// `--url` with `--verify FORMAT`: status 200, the body (gunzipped when
    /// the server chose gzip) decodes as `format` with `decoder`, and holds
    /// `expect_count` products when given.
    Decode {
        format: Format,
        expect_count: Option<usize>,
        decoder: Verify,
    },
    /// `--url` with `--data FILE.json`: status 200 and the body decodes, with
    /// the document's schema, to the document ([`super::data`]).
    Data(Arc<Expected>),
}

impl Check {
    /// Ok when `resp` passes; otherwise the failure kind: `status` (not 200),
    /// `decode` (the body is not a valid catalog in the format), `mismatch`
    /// (valid, but the wrong product count or the wrong Content-Encoding).
    pub fn verify(&self, resp: &Response<'_>) -> Result<(), FailureKind> {
        if resp.status != 200 {
            return Err(FailureKind::Status);
        }
        match *self {
            Check::Status200 => Ok(()),
            Check::Data(ref expected) => expected.verify(resp.body),
            Check::Decode { .. } => self.verify_catalog(resp).map(|_| ()),
            Check::Catalog {
                format,
                count,
                gzip,
                verify,
            } => {
                let n = verify
                    .product_count(format, resp.body)
                    .map_err(|_| FailureKind::Decode)?;
                if n != count || resp.gzipped != gzip {
                    return Err(FailureKind::Mismatch);
                }
                Ok(())
            }
        }
    }

    /// Like [`Check::verify`] with the owned decoder, whatever `verify`
    /// says, and returns the catalog (catalog mode only): the warm-up
    /// compares it field by field with the fixture.
    pub fn verify_catalog(&self, resp: &Response<'_>) -> Result<Option<Catalog>, FailureKind> {
        if resp.status != 200 {
            return Err(FailureKind::Status);
        }
        match *self {
            Check::Status200 => Ok(None),
            Check::Data(ref expected) => expected.verify(resp.body).map(|()| None),
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
                    _ => Ok(None),
                }
            }
            Check::Catalog {
                format, count, gzip, ..
            } => {
                let catalog = format.decode(resp.body).map_err(|_| FailureKind::Decode)?;
                if catalog.products.len() != count || resp.gzipped != gzip {
                    return Err(FailureKind::Mismatch);
                }
                Ok(Some(catalog))
            }
        }
    }
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
    /// A target from an `http://host[:port][/path]` URL (no TLS), checked with `check`.
    pub fn from_url(url: &str, check: Check, timeout: Duration) -> Result<Target, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("--url {url:?}: expected http://host[:port]/path (https is not supported)"))?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
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
        let accept = match &check {
            Check::Decode { format, .. } => format.content_type(),
            Check::Data(expected) => expected.format.content_type(),
            _ => "*/*",
        };
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
