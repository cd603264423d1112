//! Response heads and bodies: status line, `Server`, `Date`, `Content-Type`,
//! `Content-Length` (on every response, HEAD included, RFC 9110 §8.6), and the
//! one-write rule.
//!
//! A response is one head buffer plus one body slice. Small bodies are copied
//! behind the head and sent with one `write`; large ones with `write_vectored`
//! over both slices until every byte is written: one response per system call
//! in the normal case, never a head in one packet and its body in the next.

use std::io::{self, IoSlice, Write};

/// `Server` header value.
pub const SERVER: &str = "wirebench";

/// The media type of JSON bodies, every error reply's among them.
pub const JSON: &str = "application/json";
/// The media type of plain text.
pub const TEXT: &str = "text/plain; charset=utf-8";

/// Bodies up to this size are copied behind the head (cheaper than a second iovec).
pub const COPY_BODY_MAX: usize = 16 * 1024;

/// What the `Connection` header of a response says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// HTTP/1.1 default persistence: no header needed.
    Default,
    /// HTTP/1.0 client asked for keep-alive: echo it.
    KeepAlive,
    /// The server closes after this response.
    Close,
}

/// Everything a route decides about a response except its body bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    pub status: u16,
    pub content_type: &'static str,
    /// Whole extra header lines, each ending in CRLF (e.g. `Allow: GET, HEAD\r\n`).
    pub extra: &'static str,
    pub gzip: bool,
}

impl Head {
    /// A `200 OK` head, uncompressed.
    pub fn ok(content_type: &'static str, extra: &'static str) -> Head {
        Head {
            status: 200,
            content_type,
            extra,
            gzip: false,
        }
    }

    /// An uncompressed JSON error head; `body` is replaced by
    /// `{"error":"message"}` ([`json_error`]).
    pub fn error(body: &mut Vec<u8>, status: u16, message: &str, extra: &'static str) -> Head {
        body.clear();
        json_error(body, message);
        Head {
            status,
            content_type: JSON,
            extra,
            gzip: false,
        }
    }
}

/// `Allow` header of every route (RFC 9110 §10.2.1): no route takes another method.
pub const ALLOW: &str = "Allow: GET, HEAD\r\n";

/// On every response whose format `Accept` chose: caches must key it by
/// `Accept` (RFC 9110 §12.5.5).
pub const VARY: &str = "Vary: Accept\r\n";

/// Which bytes to send after the head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    Static(&'static [u8]),
    /// The worker's `Scratch::body`.
    Scratch,
    /// The worker's `Scratch::gz`.
    Gzipped,
}

/// A handler's response: head fields, where its body is, and what
/// `/metrics` counts it under (indices into the handler's
/// [`Layout`](super::metrics::Layout)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply {
    pub head: Head,
    pub body: Body,
    pub route: u8,
    pub variant: Option<u8>,
    /// Time spent making the body ready (encode, gzip), ns; 0 when nothing was encoded.
    pub encode_ns: u64,
}

impl Reply {
    /// A reply counted under route 0 (what no route claims), no variant.
    pub fn new(head: Head, body: Body) -> Reply {
        Reply {
            head,
            body,
            route: 0,
            variant: None,
            encode_ns: 0,
        }
    }

    /// A JSON error (`{"error":"message"}`, written into `scratch_body`)
    /// with `extra` header lines: every error reply of every route.
    #[cold]
    pub fn error(scratch_body: &mut Vec<u8>, status: u16, message: &str, extra: &'static str) -> Reply {
        Reply::new(Head::error(scratch_body, status, message, extra), Body::Scratch)
    }

    /// 405 with `Allow`: the one method check of every route.
    #[cold]
    #[inline(never)]
    pub fn method_not_allowed(scratch_body: &mut Vec<u8>, method: &str, path: &str) -> Reply {
        let msg = format!("method {method} is not allowed on {path}; allowed: GET, HEAD");
        Reply::error(scratch_body, 405, &msg, ALLOW)
    }
}

/// The status line, `Server` and the start of `Date`, as one static string per
/// status, so the common head is six appends rather than fifteen.
macro_rules! prefix {
    ($code:literal, $reason:literal) => {
        concat!("HTTP/1.1 ", $code, " ", $reason, "\r\nServer: wirebench\r\nDate: ")
    };
}

fn status_prefix(status: u16) -> &'static str {
    match status {
        200 => prefix!("200", "OK"),
        400 => prefix!("400", "Bad Request"),
        404 => prefix!("404", "Not Found"),
        405 => prefix!("405", "Method Not Allowed"),
        406 => prefix!("406", "Not Acceptable"),
        408 => prefix!("408", "Request Timeout"),
        413 => prefix!("413", "Content Too Large"),
        414 => prefix!("414", "URI Too Long"),
        431 => prefix!("431", "Request Header Fields Too Large"),
        500 => prefix!("500", "Internal Server Error"),
        503 => prefix!("503", "Service Unavailable"),
        505 => prefix!("505", "HTTP Version Not Supported"),
        _ => prefix!("500", "Internal Server Error"), // no other status is ever sent
    }
}

/// Appends the response head to `out`.
pub fn write_head(out: &mut Vec<u8>, head: &Head, date: &[u8], content_length: usize, conn: Connection) {
    out.extend_from_slice(status_prefix(head.status).as_bytes());
    out.extend_from_slice(date);
    out.extend_from_slice(b"\r\nContent-Type: ");
    out.extend_from_slice(head.content_type.as_bytes());
    out.extend_from_slice(b"\r\nContent-Length: ");
    push_u64(out, content_length as u64);
    out.extend_from_slice(b"\r\n");
    if head.gzip {
        out.extend_from_slice(b"Content-Encoding: gzip\r\n");
    }
    out.extend_from_slice(head.extra.as_bytes());
    match conn {
        Connection::Default => {}
        Connection::KeepAlive => out.extend_from_slice(b"Connection: keep-alive\r\n"),
        Connection::Close => out.extend_from_slice(b"Connection: close\r\n"),
    }
    out.extend_from_slice(b"\r\n");
}

/// Sends `head` followed by `body` (empty for HEAD requests) as one write when possible.
pub fn send(w: &mut impl Write, head: &mut Vec<u8>, body: &[u8]) -> io::Result<()> {
    if body.len() <= COPY_BODY_MAX {
        head.extend_from_slice(body);
        return w.write_all(head);
    }
    write_all_vectored(w, &mut [IoSlice::new(head), IoSlice::new(body)])
}

/// `Write::write_all_vectored` (unstable in std): writes every byte of every slice.
pub fn write_all_vectored(w: &mut impl Write, mut bufs: &mut [IoSlice<'_>]) -> io::Result<()> {
    IoSlice::advance_slices(&mut bufs, 0); // skip leading empty slices
    while !bufs.is_empty() {
        match w.write_vectored(bufs) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut bufs, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Appends the decimal digits of `n`.
pub fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// Appends `{"error":"<message>"}` with the message escaped as a JSON string (RFC 8259 §7).
pub fn json_error(out: &mut Vec<u8>, message: &str) {
    out.extend_from_slice(b"{\"error\":\"");
    for c in message.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            c if (c as u32) < 0x20 => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let b = c as u8;
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xf)]);
            }
            c => {
                let mut utf8 = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
            }
        }
    }
    out.extend_from_slice(b"\"}");
}

/// A complete JSON error response with `extra` header lines (each ending in
/// CRLF), built off the routing path: the fast 503, rejected heads.
pub fn simple(status: u16, message: &str, extra: &'static str, date: &[u8], conn: Connection) -> Vec<u8> {
    let mut body = Vec::new();
    let head = Head::error(&mut body, status, message, extra);
    let mut out = Vec::with_capacity(160 + body.len());
    write_head(&mut out, &head, date, body.len(), conn);
    out.extend_from_slice(&body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_bytes() {
        let mut out = Vec::new();
        let head = Head {
            status: 405,
            content_type: "application/json",
            extra: "Allow: GET, HEAD\r\n",
            gzip: false,
        };
        write_head(&mut out, &head, b"Sun, 06 Nov 1994 08:49:37 GMT", 42, Connection::Close);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 405 Method Not Allowed\r\nServer: wirebench\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\
             Content-Type: application/json\r\nContent-Length: 42\r\nAllow: GET, HEAD\r\nConnection: close\r\n\r\n"
        );
    }

    #[test]
    fn every_status_prefix_is_its_status_line() {
        for status in [200, 400, 404, 405, 406, 408, 413, 414, 431, 500, 503, 505] {
            let prefix = status_prefix(status);
            let line = prefix.strip_suffix(&format!("\r\nServer: {SERVER}\r\nDate: ")).unwrap();
            let reason = line.strip_prefix(&format!("HTTP/1.1 {status} ")).unwrap();
            assert!(
                reason.len() > 1 && reason.chars().all(|c| c.is_ascii_alphabetic() || c == ' '),
                "{prefix:?}"
            );
        }
        assert!(
            status_prefix(999).starts_with("HTTP/1.1 500 "),
            "no other status is sent"
        );
    }

    #[test]
    fn json_error_escapes() {
        let mut out = Vec::new();
        json_error(&mut out, "bad \"x\\y\"\n\u{1}é");
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"error":"bad \"x\\y\"\n\u0001é"}"#);
    }

    #[test]
    fn digits() {
        for (n, s) in [(0u64, "0"), (7, "7"), (10, "10"), (u64::MAX, "18446744073709551615")] {
            let mut out = Vec::new();
            push_u64(&mut out, n);
            assert_eq!(out, s.as_bytes());
        }
    }

    /// A writer that accepts at most 3 bytes per call, to exercise the continuation.
    struct Trickle(Vec<u8>);
    impl Write for Trickle {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            let n = b.len().min(3);
            self.0.extend_from_slice(&b[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn vectored_writes_continue_after_partial_writes() {
        let mut w = Trickle(Vec::new());
        let body = vec![b'b'; COPY_BODY_MAX + 1];
        let mut head = b"head".to_vec();
        send(&mut w, &mut head, &body).unwrap();
        assert_eq!(w.0.len(), 4 + body.len());
        assert!(w.0.starts_with(b"headbbb"));
    }
}
