//! A blocking keep-alive HTTP/1.1 client for one connection, std only.
//!
//! One [`Client`] owns one TCP connection (TCP_NODELAY, connect/read/write
//! timeouts) and buffers that are reused for every response. A request is a
//! prebuilt byte string sent with one `write_all`. The response is read until
//! [`parse_buffered`] (shared with the non-blocking [`super::mux`]) finds it
//! whole: status line and headers (RFC 9112 §2–5), then the body framed by
//! `Transfer-Encoding: chunked` (§7.1), `Content-Length` (§6.2), or the close
//! of the connection (§6.3). A `Content-Encoding: gzip` body is gunzipped with
//! [`crate::gzip::decompress`].
//!
//! Failures map to a [`FailureKind`]: connect (including a connect timeout),
//! write, read (also malformed framing), timeout (a read or write timed out).
//! After any failure the connection is dropped and the next request reconnects.
//!
//! Bounds: the status line plus headers must fit in [`MAX_HEAD`] bytes, a body
//! (before and after gunzip) in [`MAX_BODY`] bytes; larger is a read failure.
//!
//! Not supported (not needed for a load generator of GET requests): pipelining,
//! `100 Continue`, trailers beyond skipping them, TLS.

use super::failure::FailureKind;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// Largest status line + headers accepted.
pub const MAX_HEAD: usize = 64 * 1024;
/// Largest body accepted (wire and gunzipped).
pub const MAX_BODY: usize = 256 * 1024 * 1024;
/// Largest response, head and framed body, held in a receive buffer.
pub const MAX_RESPONSE: usize = MAX_HEAD + MAX_BODY;
/// Longest chunk-size line accepted.
const MAX_CHUNK_LINE: usize = 1024;

/// One response, borrowed from the client's buffers until the next request.
#[derive(Debug)]
pub struct Response<'a> {
    pub status: u16,
    /// The body after de-chunking and gunzip.
    pub body: &'a [u8],
    /// Whether the server sent `Content-Encoding: gzip`.
    pub gzipped: bool,
    /// Bytes read from the socket for this response (head + framed body).
    pub wire_bytes: u64,
}

/// One keep-alive connection. See the module doc.
pub struct Client {
    addr: SocketAddr,
    timeout: Duration,
    stream: Option<TcpStream>,
    /// Received bytes: the last response's up to `start`, the rest unread,
    /// up to `len`; grows up to [`MAX_RESPONSE`].
    buf: Vec<u8>,
    start: usize,
    len: usize,
    /// A chunked body, de-chunked.
    body: Vec<u8>,
    /// The gunzipped body, when the response was gzip-encoded.
    plain: Vec<u8>,
}

fn io_kind(e: &io::Error, otherwise: FailureKind) -> FailureKind {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => FailureKind::Timeout,
        _ => otherwise,
    }
}

/// Framing of the body, from the headers.
enum Framing {
    Chunked,
    Length(usize),
    UntilClose,
}

impl Client {
    /// A client for `addr`; connects lazily (or with [`Client::connect`]).
    /// `timeout` applies to the connect and to every read and write.
    pub fn new(addr: SocketAddr, timeout: Duration) -> Client {
        Client {
            addr,
            timeout,
            stream: None,
            buf: vec![0; MAX_HEAD],
            start: 0,
            len: 0,
            body: Vec::new(),
            plain: Vec::new(),
        }
    }

    /// Opens the connection if it is not open.
    pub fn connect(&mut self) -> Result<(), FailureKind> {
        if self.stream.is_some() {
            return Ok(());
        }
        let s = TcpStream::connect_timeout(&self.addr, self.timeout).map_err(|_| FailureKind::Connect)?;
        let setup = s
            .set_nodelay(true)
            .and_then(|_| s.set_read_timeout(Some(self.timeout)))
            .and_then(|_| s.set_write_timeout(Some(self.timeout)));
        setup.map_err(|_| FailureKind::Connect)?;
        (self.start, self.len) = (0, 0);
        self.stream = Some(s);
        Ok(())
    }

    /// Whether a connection is open.
    pub fn is_connected(&self) -> bool {
        self.stream.is_some()
    }

    /// Sends `request` (a complete request, e.g. from [`get_request`]) and reads
    /// the whole response. On error the connection is closed.
    pub fn send(&mut self, request: &[u8]) -> Result<Response<'_>, FailureKind> {
        match self.exchange(request) {
            Ok(p) => {
                if !p.keep_alive {
                    self.stream = None;
                }
                Ok(Response {
                    status: p.status,
                    body: if p.gzipped {
                        &self.plain
                    } else {
                        p.body(&self.buf, &self.body)
                    },
                    gzipped: p.gzipped,
                    wire_bytes: p.consumed as u64,
                })
            }
            Err(kind) => {
                self.stream = None;
                Err(kind)
            }
        }
    }

    /// Writes `request`, then reads until [`parse_buffered`] finds the whole response.
    fn exchange(&mut self, request: &[u8]) -> Result<Parsed, FailureKind> {
        self.connect()?;
        let stream = self.stream.as_mut().ok_or(FailureKind::Connect)?;
        stream.write_all(request).map_err(|e| io_kind(&e, FailureKind::Write))?;
        self.buf.copy_within(self.start..self.len, 0);
        (self.start, self.len) = (0, self.len - self.start);
        let mut eof = false;
        loop {
            if let Some(mut p) = parse_buffered(&self.buf[..self.len], eof, &mut self.body)? {
                self.start = p.consumed;
                p.keep_alive &= !eof;
                if p.gzipped {
                    let gz = p.body(&self.buf, &self.body);
                    self.plain = crate::gzip::decompress(gz, MAX_BODY).map_err(|_| FailureKind::Decode)?;
                }
                return Ok(p);
            }
            if eof {
                return Err(FailureKind::Read); // closed before the response was whole
            }
            if self.len == self.buf.len() {
                if self.len >= MAX_RESPONSE {
                    return Err(FailureKind::Read);
                }
                self.buf.resize((self.len + self.len / 2).min(MAX_RESPONSE), 0); // as the non-blocking driver grows
            }
            let n = stream
                .read(&mut self.buf[self.len..])
                .map_err(|e| io_kind(&e, FailureKind::Read))?;
            eof = n == 0;
            self.len += n;
        }
    }
}

/// A whole response found at the start of a buffer by [`parse_buffered`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub status: u16,
    pub gzipped: bool,
    pub keep_alive: bool,
    /// Bytes of the buffer this response took (head + framed body).
    pub consumed: usize,
    /// Where the body is in the buffer; `None`: chunked, de-chunked into the caller's vector.
    pub body: Option<(usize, usize)>,
}

impl Parsed {
    /// The body: in `buf` where it was framed, else `dechunked`.
    pub fn body<'a>(&self, buf: &'a [u8], dechunked: &'a [u8]) -> &'a [u8] {
        self.body.map_or(dechunked, |(a, z)| &buf[a..z])
    }
}

/// Parses one response from `buf` (the bytes received so far; `eof` when the
/// peer closed) for the non-blocking driver: `Ok(None)` until it is complete,
/// then the framing facts; a chunked body is de-chunked into `body`. Shared
/// by [`Client::send`] and the non-blocking driver.
pub(crate) fn parse_buffered(buf: &[u8], eof: bool, body: &mut Vec<u8>) -> Result<Option<Parsed>, FailureKind> {
    let Some(head_end) = find(buf, b"\r\n\r\n").map(|p| p + 4) else {
        return if buf.len() >= MAX_HEAD || eof {
            Err(FailureKind::Read)
        } else {
            Ok(None)
        };
    };
    let (status, framing, gzipped, keep_alive) = parse_head(&buf[..head_end])?;
    body.clear();
    let done = |consumed, keep_alive, body| {
        Ok(Some(Parsed {
            status,
            gzipped,
            keep_alive,
            consumed,
            body,
        }))
    };
    if status / 100 == 1 || status == 204 || status == 304 {
        return done(head_end, keep_alive, Some((head_end, head_end)));
    }
    let incomplete = if eof { Err(FailureKind::Read) } else { Ok(None) };
    match framing {
        Framing::Length(n) => {
            if buf.len() - head_end < n {
                return incomplete;
            }
            done(head_end + n, keep_alive, Some((head_end, head_end + n)))
        }
        Framing::UntilClose => {
            if !eof {
                return Ok(None);
            }
            if buf.len() - head_end > MAX_BODY {
                return Err(FailureKind::Read);
            }
            done(buf.len(), false, Some((head_end, buf.len())))
        }
        Framing::Chunked => {
            let mut pos = head_end;
            loop {
                let Some(eol) = find(&buf[pos..], b"\r\n") else {
                    return if buf.len() - pos > MAX_CHUNK_LINE {
                        Err(FailureKind::Read)
                    } else {
                        incomplete
                    };
                };
                let line = &buf[pos..pos + eol];
                pos += eol + 2;
                let size_part = line.split(|&c| c == b';').next().unwrap_or(&[]);
                let size = parse_hex(trim(size_part)).ok_or(FailureKind::Read)?;
                if size == 0 {
                    loop {
                        let Some(eol) = find(&buf[pos..], b"\r\n") else {
                            return incomplete;
                        };
                        pos += eol + 2;
                        if eol == 0 {
                            return done(pos, keep_alive, None);
                        }
                    }
                }
                if body.len() + size > MAX_BODY {
                    return Err(FailureKind::Read);
                }
                if buf.len() - pos < size + 2 {
                    return incomplete;
                }
                if &buf[pos + size..pos + size + 2] != b"\r\n" {
                    return Err(FailureKind::Read);
                }
                body.extend_from_slice(&buf[pos..pos + size]);
                pos += size + 2;
            }
        }
    }
}

/// The bytes of `GET {path} HTTP/1.1` with `Host`, built once per target.
pub fn get_request(host: &str, path: &str) -> Vec<u8> {
    get_request_accepting(host, path, "*/*")
}

/// [`get_request`] with `Accept: {accept}`.
pub fn get_request_accepting(host: &str, path: &str, accept: &str) -> Vec<u8> {
    format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: wirebench\r\nAccept: {accept}\r\n\r\n").into_bytes()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn trim(s: &[u8]) -> &[u8] {
    let a = s.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(s.len());
    let b = s.iter().rposition(|c| !c.is_ascii_whitespace()).map_or(a, |p| p + 1);
    &s[a..b]
}

fn parse_hex(s: &[u8]) -> Option<usize> {
    if s.is_empty() || s.len() > 15 {
        return None;
    }
    let mut n = 0usize;
    for &c in s {
        n = n * 16 + (c as char).to_digit(16)? as usize;
    }
    Some(n)
}

fn parse_dec(s: &[u8]) -> Option<usize> {
    if s.is_empty() || s.len() > 15 || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

/// Status line and headers → (status, framing, gzipped, keep-alive).
/// Malformed or ambiguous framing (two different Content-Lengths) is a read failure.
fn parse_head(head: &[u8]) -> Result<(u16, Framing, bool, bool), FailureKind> {
    let bad = FailureKind::Read;
    let mut lines = head.split(|&c| c == b'\n').map(trim);
    let status_line = lines.next().ok_or(bad)?;
    // HTTP-version SP status-code SP [reason-phrase]
    let (version, rest) = status_line.split_at(status_line.len().min(8));
    let http11 = match version {
        b"HTTP/1.1" => true,
        b"HTTP/1.0" => false,
        _ => return Err(bad),
    };
    let code = rest.get(1..4).ok_or(bad)?;
    if rest.first() != Some(&b' ') || !code.iter().all(u8::is_ascii_digit) {
        return Err(bad);
    }
    let status = code.iter().fold(0u16, |n, &c| n * 10 + u16::from(c - b'0'));
    let (mut length, mut chunked, mut gzipped, mut keep_alive) = (None, false, false, http11);
    for line in lines {
        if line.is_empty() {
            continue;
        }
        let colon = line.iter().position(|&c| c == b':').ok_or(bad)?;
        let (name, value) = (&line[..colon], trim(&line[colon + 1..]));
        if name.eq_ignore_ascii_case(b"content-length") {
            let n = parse_dec(value).ok_or(bad)?;
            if length.is_some_and(|m| m != n) {
                return Err(bad);
            }
            length = Some(n);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            let last = value.rsplit(|&c| c == b',').next().map(trim).unwrap_or(&[]);
            chunked = last.eq_ignore_ascii_case(b"chunked");
            if !chunked {
                return Err(bad); // RFC 9112 §6.3: must read until close; we do not support it
            }
        } else if name.eq_ignore_ascii_case(b"content-encoding") {
            gzipped = value.eq_ignore_ascii_case(b"gzip");
            if !gzipped && !value.eq_ignore_ascii_case(b"identity") {
                return Err(FailureKind::Decode);
            }
        } else if name.eq_ignore_ascii_case(b"connection") {
            for token in value.split(|&c| c == b',').map(trim) {
                if token.eq_ignore_ascii_case(b"close") {
                    keep_alive = false;
                } else if token.eq_ignore_ascii_case(b"keep-alive") {
                    keep_alive = true;
                }
            }
        }
    }
    let framing = if chunked {
        Framing::Chunked // Transfer-Encoding overrides Content-Length (RFC 9112 §6.3)
    } else if let Some(n) = length {
        if n > MAX_BODY {
            return Err(bad);
        }
        Framing::Length(n)
    } else {
        Framing::UntilClose
    };
    Ok((status, framing, gzipped, keep_alive))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads() {
        let (s, f, gz, ka) = parse_head(b"HTTP/1.1 200 OK\r\nContent-Length: 18\r\n\r\n").unwrap();
        assert!(matches!((s, f, gz, ka), (200, Framing::Length(18), false, true)));
        let (s, f, gz, ka) =
            parse_head(b"HTTP/1.0 404 Not Found\r\ntransfer-encoding: gzip, chunked\r\nContent-Encoding: gzip\r\n\r\n")
                .unwrap();
        assert!(matches!((s, f, gz, ka), (404, Framing::Chunked, true, false)));
        let (_, f, _, ka) = parse_head(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n").unwrap();
        assert!(matches!((f, ka), (Framing::UntilClose, false)));
        for bad in [
            &b"HTTP/2 200 OK\r\n\r\n"[..],
            b"HTTP/1.1 2x0 OK\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
        ] {
            assert!(parse_head(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn buffered_responses() {
        let mut body = Vec::new();
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x\r\nde\r\n0\r\n\r\nNEXT";
        let whole = chunked.len() - 4;
        for cut in 0..whole {
            assert_eq!(
                parse_buffered(&chunked[..cut], false, &mut body),
                Ok(None),
                "cut at {cut}"
            );
        }
        let p = parse_buffered(chunked, false, &mut body).unwrap().unwrap();
        assert_eq!(
            (p.status, p.consumed, p.body(chunked, &body)),
            (200, whole, &b"abcde"[..])
        );
        let fixed = b"HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nok";
        assert_eq!(parse_buffered(&fixed[..fixed.len() - 1], false, &mut body), Ok(None));
        assert_eq!(
            parse_buffered(&fixed[..fixed.len() - 1], true, &mut body),
            Err(FailureKind::Read)
        );
        let p = parse_buffered(fixed, false, &mut body).unwrap().unwrap();
        assert_eq!((p.status, p.keep_alive, p.body(fixed, &body)), (404, true, &b"ok"[..]));
        let close = b"HTTP/1.0 200 OK\r\n\r\nrest";
        assert_eq!(parse_buffered(close, false, &mut body), Ok(None));
        let p = parse_buffered(close, true, &mut body).unwrap().unwrap();
        assert_eq!((p.keep_alive, p.body(close, &body)), (false, &b"rest"[..]));
        let bad = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n";
        assert_eq!(parse_buffered(bad, false, &mut body), Err(FailureKind::Read));
    }

    #[test]
    fn hex_and_trim() {
        assert_eq!(parse_hex(b"1a"), Some(26));
        assert_eq!(parse_hex(b"FF"), Some(255));
        assert_eq!(parse_hex(b""), None);
        assert_eq!(parse_hex(b"g"), None);
        assert_eq!(trim(b"  ab \t"), b"ab");
    }
}
