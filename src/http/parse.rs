//! Incremental HTTP/1.1 request-head parser over a bounded buffer
//! (RFC 9112 §2–§6), without allocation.
//!
//! [`parse`] answers [`Parsed::Complete`] (a borrowed [`Request`] and the
//! head's length), [`Parsed::Partial`] (read more; no limit exceeded yet) or
//! an [`Error`] carrying the status to answer with. It keeps no state (like
//! httparse): the caller calls it again when more bytes arrive. Header lines
//! are checked and interpreted as scanned, never stored: the server needs
//! only `Content-Length`, `Transfer-Encoding`, `Connection` and `Host`.
//!
//! ```text
//! request-line = method SP request-target SP HTTP-version CRLF
//! field-line   = field-name ":" OWS field-value OWS CRLF
//! head         = request-line *( field-line ) CRLF
//! ```
//!
//! Strictness, where RFC 9112 lets a server choose, is the smuggling-safe
//! choice: a bare LF or CR (§2.2) is rejected, obs-fold (§5.2) is rejected,
//! whitespace before the colon (§5.1) is rejected, `Content-Length` must be
//! digits only and repeated copies must agree (§6.3), and any
//! `Transfer-Encoding` is refused (this server accepts no chunked bodies).
//! Every such error closes the connection, because the framing is in doubt.

use std::fmt;

/// Size limits for one request head; each overflow has its own status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes in the request line without its CRLF; longer → 414.
    pub max_request_line: usize,
    /// Bytes in all header lines together (with CRLFs); larger → 431.
    pub max_header_bytes: usize,
    /// Number of header lines; more → 431.
    pub max_headers: usize,
    /// Bytes of a request body (always discarded; no route takes one); larger → 413.
    pub max_body: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_request_line: 8 * 1024,
            max_header_bytes: 16 * 1024,
            max_headers: 64,
            max_body: 16 * 1024,
        }
    }
}

impl Limits {
    /// The buffer size that lets [`parse`] decide every head: the largest legal head.
    pub fn head_buffer_len(&self) -> usize {
        // optional leading CRLF + request line + CRLF + header block + final CRLF
        2 + self.max_request_line + 2 + self.max_header_bytes + 2
    }
}

/// HTTP version of a request. Any 1.x with x ≥ 1 is handled as 1.1 (RFC 9110 §6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    Http10,
    Http11,
}

/// A parsed request head, borrowing the input buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request<'a> {
    /// The method token, e.g. `GET` (case-sensitive, RFC 9110 §9.1).
    pub method: &'a str,
    /// The request target as sent (visible ASCII only).
    pub target: &'a str,
    pub version: Version,
    /// `Content-Length` if present (all copies agreed).
    pub content_length: Option<u64>,
    /// A `Connection` header listed `close`.
    pub close: bool,
    /// A `Connection` header listed `keep-alive` (matters for HTTP/1.0).
    pub keep_alive: bool,
    /// Bytes of the head including the empty line, i.e. where a body would start.
    pub head_len: usize,
    /// The header lines as received (each ending in CRLF, already checked),
    /// for the few routes that read a header the parser does not interpret.
    pub headers: &'a [u8],
}

impl<'a> Request<'a> {
    /// The values of every header line named `name` (case-insensitive), in
    /// order, without surrounding whitespace.
    pub fn header_values(&self, name: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.headers.split(|&b| b == b'\n').filter_map(move |line| {
            let line = line.strip_suffix(b"\r")?;
            let colon = line.iter().position(|&b| b == b':')?;
            line[..colon]
                .eq_ignore_ascii_case(name.as_bytes())
                .then(|| trim_ows(&line[colon + 1..]))
        })
    }
}

/// The outcome of looking at the bytes received so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed<'a> {
    Complete(Request<'a>),
    /// The head is not complete yet and no limit was exceeded: read more.
    Partial,
}

/// Why a head was rejected, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    /// Byte offset in the head where the problem was found.
    pub offset: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    RequestLineTooLong {
        limit: usize,
    },
    HeadersTooLarge {
        limit: usize,
    },
    TooManyHeaders {
        limit: usize,
    },
    /// A line ended in LF without CR, or a CR was not followed by LF.
    BareLineEnding,
    InvalidMethod,
    InvalidTarget,
    InvalidVersion,
    UnsupportedVersion {
        major: u8,
        minor: u8,
    },
    ObsFold,
    InvalidHeaderName,
    InvalidHeaderValue,
    InvalidContentLength,
    ConflictingContentLength,
    ContentLengthWithTransferEncoding,
    TransferEncoding,
    MissingHost,
    DuplicateHost,
}

impl Error {
    /// The response status for this error (RFC 9110 §15, RFC 6585 §5).
    pub fn status(&self) -> u16 {
        match self.kind {
            ErrorKind::RequestLineTooLong { .. } => 414,
            ErrorKind::HeadersTooLarge { .. } | ErrorKind::TooManyHeaders { .. } => 431,
            ErrorKind::UnsupportedVersion { .. } => 505,
            _ => 400,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::RequestLineTooLong { limit } => write!(f, "request line longer than {limit} bytes"),
            ErrorKind::HeadersTooLarge { limit } => write!(f, "header block larger than {limit} bytes"),
            ErrorKind::TooManyHeaders { limit } => write!(f, "more than {limit} header lines"),
            ErrorKind::BareLineEnding => f.write_str("line ending is not CRLF (bare LF or CR)"),
            ErrorKind::InvalidMethod => f.write_str("method is not a token"),
            ErrorKind::InvalidTarget => f.write_str("request target must be visible ASCII followed by one space"),
            ErrorKind::InvalidVersion => f.write_str("expected HTTP/1.1 or HTTP/1.0 after the target"),
            ErrorKind::UnsupportedVersion { major, minor } => {
                write!(f, "HTTP/{major}.{minor} is not supported; use HTTP/1.1 or HTTP/1.0")
            }
            ErrorKind::ObsFold => f.write_str("obsolete header line folding is not allowed"),
            ErrorKind::InvalidHeaderName => f.write_str("header name is not a token followed by ':'"),
            ErrorKind::InvalidHeaderValue => f.write_str("header value contains a control character"),
            ErrorKind::InvalidContentLength => f.write_str("Content-Length must be decimal digits"),
            ErrorKind::ConflictingContentLength => f.write_str("Content-Length values disagree"),
            ErrorKind::ContentLengthWithTransferEncoding => {
                f.write_str("Content-Length together with Transfer-Encoding")
            }
            ErrorKind::TransferEncoding => {
                f.write_str("Transfer-Encoding is not accepted; send a body with Content-Length")
            }
            ErrorKind::MissingHost => f.write_str("an HTTP/1.1 request needs a Host header"),
            ErrorKind::DuplicateHost => f.write_str("more than one Host header"),
        }?;
        write!(f, " at byte {}", self.offset)
    }
}

/// `tchar` of RFC 9110 §5.6.2: `!#$%&'*+-.^_`|~`, digits and letters.
#[rustfmt::skip]
static TOKEN: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric()
            || matches!(c, b'!' | b'#' | b'$' | b'%' | b'&' | b'\'' | b'*' | b'+' | b'-' | b'.' | b'^' | b'_' | b'`' | b'|' | b'~');
        i += 1;
    }
    t
};

fn is_token(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|&b| TOKEN[b as usize])
}

fn err<T>(kind: ErrorKind, offset: usize) -> Result<T, Error> {
    Err(Error { kind, offset })
}

fn find_lf(buf: &[u8], from: usize) -> Option<usize> {
    buf[from..].iter().position(|&b| b == b'\n').map(|i| from + i)
}

/// Parses the request head at the start of `buf`.
pub fn parse<'a>(buf: &'a [u8], limits: &Limits) -> Result<Parsed<'a>, Error> {
    // RFC 9112 §2.2: ignore one empty line before the request line (some
    // clients send CRLF after a body).
    let start = if buf.starts_with(b"\r\n") { 2 } else { 0 };
    if buf.len() <= start {
        return Ok(Parsed::Partial);
    }
    let window = buf.len().min(start + limits.max_request_line + 2);
    let line_end = match find_lf(&buf[..window], start) {
        Some(i) => i,
        None if buf.len() > start + limits.max_request_line + 1 => {
            return err(
                ErrorKind::RequestLineTooLong {
                    limit: limits.max_request_line,
                },
                start,
            );
        }
        None => return Ok(Parsed::Partial),
    };
    if line_end == start || buf[line_end - 1] != b'\r' {
        return err(ErrorKind::BareLineEnding, line_end);
    }
    let line = &buf[start..line_end - 1];
    if line.len() > limits.max_request_line {
        return err(
            ErrorKind::RequestLineTooLong {
                limit: limits.max_request_line,
            },
            start,
        );
    }
    let (method, target, version) = request_line(line, start)?;

    let mut req = Request {
        method,
        target,
        version,
        content_length: None,
        close: false,
        keep_alive: false,
        head_len: 0,
        headers: &[],
    };
    let headers_start = line_end + 1;
    let mut pos = headers_start;
    let mut count = 0usize;
    let mut hosts = 0usize;
    let mut transfer_encoding = false;
    loop {
        // The checks run in the same order whether or not the line's LF has
        // arrived, so the answer never depends on how the bytes were split
        // across reads: (1) the empty line ends the head, (2) the size limit,
        // (3) the line ending, (4) the line itself.
        let Some(lf) = find_lf(buf, pos) else {
            // The line being received will end at or after buf.len(); unless
            // it can still become the empty line ("" or "\r" so far), its
            // LF will put the header block over the limit.
            let may_be_last = buf.len() - pos <= 1 && buf[pos..].iter().all(|&b| b == b'\r');
            if !may_be_last && buf.len() + 1 - headers_start > limits.max_header_bytes {
                return err(
                    ErrorKind::HeadersTooLarge {
                        limit: limits.max_header_bytes,
                    },
                    headers_start,
                );
            }
            return Ok(Parsed::Partial);
        };
        if lf == pos + 1 && buf[pos] == b'\r' {
            req.head_len = lf + 1;
            req.headers = &buf[headers_start..pos];
            break;
        }
        if lf + 1 - headers_start > limits.max_header_bytes {
            return err(
                ErrorKind::HeadersTooLarge {
                    limit: limits.max_header_bytes,
                },
                headers_start,
            );
        }
        if lf == pos || buf[lf - 1] != b'\r' {
            return err(ErrorKind::BareLineEnding, lf);
        }
        let line = &buf[pos..lf - 1];
        count += 1;
        if count > limits.max_headers {
            return err(
                ErrorKind::TooManyHeaders {
                    limit: limits.max_headers,
                },
                pos,
            );
        }
        if line[0] == b' ' || line[0] == b'\t' {
            return err(ErrorKind::ObsFold, pos);
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return err(ErrorKind::InvalidHeaderName, pos);
        };
        let name = &line[..colon];
        if !is_token(name) {
            return err(ErrorKind::InvalidHeaderName, pos);
        }
        let value = trim_ows(&line[colon + 1..]);
        if let Some(bad) = value.iter().position(|&b| (b < 0x20 && b != b'\t') || b == 0x7f) {
            let value_at = value.as_ptr() as usize - buf.as_ptr() as usize;
            return err(ErrorKind::InvalidHeaderValue, value_at + bad);
        }
        if name.eq_ignore_ascii_case(b"content-length") {
            let n = content_length(value).ok_or(Error {
                kind: ErrorKind::InvalidContentLength,
                offset: pos,
            })?;
            match req.content_length {
                Some(prev) if prev != n => return err(ErrorKind::ConflictingContentLength, pos),
                _ => req.content_length = Some(n),
            }
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            transfer_encoding = true;
        } else if name.eq_ignore_ascii_case(b"connection") {
            for option in value.split(|&b| b == b',') {
                let option = trim_ows(option);
                req.close |= option.eq_ignore_ascii_case(b"close");
                req.keep_alive |= option.eq_ignore_ascii_case(b"keep-alive");
            }
        } else if name.eq_ignore_ascii_case(b"host") {
            hosts += 1;
            if hosts > 1 {
                return err(ErrorKind::DuplicateHost, pos);
            }
        }
        pos = lf + 1;
    }
    if transfer_encoding {
        let kind = if req.content_length.is_some() {
            ErrorKind::ContentLengthWithTransferEncoding
        } else {
            ErrorKind::TransferEncoding
        };
        return err(kind, headers_start);
    }
    if req.version == Version::Http11 && hosts == 0 {
        return err(ErrorKind::MissingHost, headers_start);
    }
    Ok(Parsed::Complete(req))
}

fn request_line(line: &[u8], base: usize) -> Result<(&str, &str, Version), Error> {
    let Some(sp1) = line.iter().position(|&b| b == b' ') else {
        return err(ErrorKind::InvalidMethod, base);
    };
    if !is_token(&line[..sp1]) {
        return err(ErrorKind::InvalidMethod, base);
    }
    let rest = &line[sp1 + 1..];
    let target_len = rest
        .iter()
        .position(|&b| !(0x21..=0x7e).contains(&b))
        .unwrap_or(rest.len());
    if target_len == 0 || rest.get(target_len) != Some(&b' ') {
        return err(ErrorKind::InvalidTarget, base + sp1 + 1 + target_len);
    }
    let version_at = sp1 + 1 + target_len + 1;
    let version = match &line[version_at..] {
        [
            b'H',
            b'T',
            b'T',
            b'P',
            b'/',
            major @ b'0'..=b'9',
            b'.',
            minor @ b'0'..=b'9',
        ] => match (major - b'0', minor - b'0') {
            (1, 0) => Version::Http10,
            (1, _) => Version::Http11,
            (major, minor) => return err(ErrorKind::UnsupportedVersion { major, minor }, base + version_at),
        },
        _ => return err(ErrorKind::InvalidVersion, base + version_at),
    };
    // Token and visible-ASCII bytes are ASCII, so these conversions cannot fail.
    let method = std::str::from_utf8(&line[..sp1]).map_err(|_| Error {
        kind: ErrorKind::InvalidMethod,
        offset: base,
    })?;
    let target = std::str::from_utf8(&rest[..target_len]).map_err(|_| Error {
        kind: ErrorKind::InvalidTarget,
        offset: base + sp1 + 1,
    })?;
    Ok((method, target, version))
}

fn trim_ows(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

/// 1 to 18 decimal digits (anything longer could not be sent within our limits anyway).
fn content_length(v: &[u8]) -> Option<u64> {
    if v.is_empty() || v.len() > 18 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(v.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            max_request_line: 40,
            max_header_bytes: 64,
            max_headers: 3,
            max_body: 10,
        }
    }

    fn complete(input: &str) -> Request<'_> {
        match parse(input.as_bytes(), &limits()) {
            Ok(Parsed::Complete(r)) => r,
            other => panic!("{input:?}: expected a complete head, got {other:?}"),
        }
    }

    fn check_err(input: &str, status: u16, expected: &str) {
        match parse(input.as_bytes(), &limits()) {
            Err(e) => assert_eq!((e.status(), e.to_string().as_str()), (status, expected), "{input:?}"),
            other => panic!("{input:?}: expected {expected:?}, got {other:?}"),
        }
    }

    #[test]
    fn complete_heads() {
        let r = complete("GET /ping HTTP/1.1\r\nHost: a\r\n\r\nNEXT");
        assert_eq!(
            (r.method, r.target, r.version, r.head_len),
            ("GET", "/ping", Version::Http11, 31)
        );
        assert_eq!((r.close, r.keep_alive, r.content_length), (false, false, None));

        let r = complete("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n");
        assert_eq!((r.version, r.keep_alive), (Version::Http10, true));

        let r = complete("\r\nGET / HTTP/1.1\r\nhost:a\r\nConnection: foo,  close\r\n\r\n");
        assert!(r.close);

        let r = complete("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\n");
        assert_eq!(r.content_length, Some(5));

        assert_eq!(complete("GET / HTTP/1.7\r\nHost: a\r\n\r\n").version, Version::Http11);
    }

    #[test]
    fn partial_heads() {
        for input in [
            "",
            "\r",
            "\r\n",
            "G",
            "GET / HTTP/1.1",
            "GET / HTTP/1.1\r",
            "GET / HTTP/1.1\r\nHost: a\r\n",
        ] {
            assert_eq!(parse(input.as_bytes(), &limits()), Ok(Parsed::Partial), "{input:?}");
        }
    }

    #[test]
    fn errors() {
        let long_target = format!("GET /{} HTTP/1.1\r\n", "a".repeat(40));
        let big_header = format!("GET / HTTP/1.1\r\nHost: a\r\nX: {}\r\n\r\n", "v".repeat(60));
        check_err(&long_target, 414, "request line longer than 40 bytes at byte 0");
        check_err(&long_target[..45], 414, "request line longer than 40 bytes at byte 0");
        check_err(&big_header, 431, "header block larger than 64 bytes at byte 16");
        // One case a row: the input, " => ", the status and message it gets.
        for row in [
            "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n => 431 more than 3 header lines at byte 34",
            "GET / HTTP/1.1\n => 400 line ending is not CRLF (bare LF or CR) at byte 14",
            "GET / HTTP/1.1\r\nHost: a\n\r\n => 400 line ending is not CRLF (bare LF or CR) at byte 23",
            "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n => 400 header value contains a control character at byte 23",
            "G(T / HTTP/1.1\r\n => 400 method is not a token at byte 0",
            "GET  / HTTP/1.1\r\n => 400 request target must be visible ASCII followed by one space at byte 4",
            "GET /\x01 HTTP/1.1\r\n => 400 request target must be visible ASCII followed by one space at byte 5",
            "GET / HTTP/1.1 \r\n => 400 expected HTTP/1.1 or HTTP/1.0 after the target at byte 6",
            "GET / http/1.1\r\n => 400 expected HTTP/1.1 or HTTP/1.0 after the target at byte 6",
            "GET /\r\n => 400 request target must be visible ASCII followed by one space at byte 5",
            "GET / HTTP/2.0\r\n => 505 HTTP/2.0 is not supported; use HTTP/1.1 or HTTP/1.0 at byte 6",
            "GET / HTTP/0.9\r\n => 505 HTTP/0.9 is not supported; use HTTP/1.1 or HTTP/1.0 at byte 6",
            "GET / HTTP/1.1\r\nHost: a\r\n x\r\n\r\n => 400 obsolete header line folding is not allowed at byte 25",
            "GET / HTTP/1.1\r\nHost : a\r\n\r\n => 400 header name is not a token followed by ':' at byte 16",
            "GET / HTTP/1.1\r\nHost\r\n\r\n => 400 header name is not a token followed by ':' at byte 16",
            "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n => 400 Content-Length must be decimal digits at byte 25",
            "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 1\r\n\r\n => 400 Content-Length must be decimal digits at byte 25",
            "GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n => 400 Content-Length values disagree at byte 35",
            "GET / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n => 400 Content-Length together with Transfer-Encoding at byte 16",
            "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n => 400 Transfer-Encoding is not accepted; send a body with Content-Length at byte 16",
            "GET / HTTP/1.1\r\n\r\n => 400 an HTTP/1.1 request needs a Host header at byte 16",
            "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n => 400 more than one Host header at byte 25",
        ] {
            let (input, expected) = row.split_once(" => ").unwrap();
            let (status, expected) = expected.split_once(' ').unwrap();
            check_err(input, status.parse().unwrap(), expected);
        }
    }

    #[test]
    fn head_buffer_holds_the_largest_legal_head() {
        let l = limits();
        let line = format!("GET /{} HTTP/1.1", "a".repeat(l.max_request_line - 14));
        assert_eq!(line.len(), l.max_request_line);
        let header = format!("Host: {}\r\n", "h".repeat(l.max_header_bytes - 8));
        assert_eq!(header.len(), l.max_header_bytes);
        let head = format!("\r\n{line}\r\n{header}\r\n");
        assert_eq!(head.len(), l.head_buffer_len());
        assert_eq!(complete(&head).head_len, head.len());
    }

    #[test]
    fn header_values_in_order() {
        let r = complete("GET / HTTP/1.1\r\nAccept: a/b\r\nHost: h\r\naccept:\t c/d ;q=0 \r\n\r\n");
        let values: Vec<&[u8]> = r.header_values("Accept").collect();
        assert_eq!(values, [&b"a/b"[..], b"c/d ;q=0"]);
        assert_eq!(r.header_values("x-none").count(), 0);
        assert_eq!(r.headers.len(), r.head_len - "GET / HTTP/1.1\r\n".len() - 2);
    }
}
