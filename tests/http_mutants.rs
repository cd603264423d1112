//! Mutated requests over real sockets: the parser's properties are checked
//! in-process by `tests/mutation.rs`; this sends 20,000 mutants of the
//! captured requests (`fixtures/requests/`) to a running server, through the
//! whole connection loop (framing, body discard, pipelining, routes). Each
//! connection writes its mutant, shuts down its write side and reads until
//! the server closes: every answer must be a well-formed HTTP/1.1 response,
//! never a 500 (a panic), every connection must end (no hang), and the
//! server must serve `/ping` afterwards. A mutant cut before its head is
//! complete ends with the client's close and no response, which is right: it
//! never was a request (`SHOW_SILENT=1` prints a few). Loopback only,
//! bounded in count and by a 10 s read timeout per connection.

mod support;
use support::{mutate, server};

use std::collections::BTreeMap;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::PathBuf;
use std::time::Duration;
use wirebench::prng::Rng;

const CASES: u64 = 20_000;
const SEED: u64 = 0x6874_7470; // "http"

/// The status codes of the responses in `bytes` (a stream of responses read
/// to the close), walking each head's `Content-Length`; `Err` if the stream
/// is not a sequence of well-formed responses. With `may_head` (the input
/// holds a HEAD request), a response directly followed by the next status
/// line or by the close is taken as an answer to HEAD, which has no body.
fn statuses(bytes: &[u8], may_head: bool) -> Result<Vec<u16>, String> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let end = rest
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or("a response head without its empty line")?;
        let head = std::str::from_utf8(&rest[..end]).map_err(|_| "a response head that is not UTF-8")?;
        let status_line = head.lines().next().unwrap_or("");
        let code = status_line
            .strip_prefix("HTTP/1.1 ")
            .and_then(|s| s.get(..3))
            .and_then(|s| s.parse::<u16>().ok())
            .ok_or_else(|| format!("bad status line {status_line:?}"))?;
        let length = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .ok_or_else(|| format!("{code} without Content-Length"))?
            .parse::<usize>()
            .map_err(|e| e.to_string())?;
        let after = &rest[end + 4..];
        let bodiless = may_head && length > 0 && (after.is_empty() || after.starts_with(b"HTTP/1.1 "));
        let body = if bodiless { 0 } else { length };
        let total = end + 4 + body;
        if total > rest.len() {
            return Err(format!("{code}: body of {length} cut short"));
        }
        out.push(code);
        rest = &rest[total..];
    }
    Ok(out)
}

#[test]
fn mutated_requests_get_clear_answers_and_the_server_stays_up() {
    let srv = server::start();
    let addr = srv.local_addr();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/requests");
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    seeds.sort();
    let mut seen: BTreeMap<u16, u64> = BTreeMap::new();
    let mut silent = 0;
    for k in 0..CASES {
        let s = k as usize % seeds.len();
        let mut rng = Rng::new(SEED ^ k);
        let input = mutate::mutate(&mut rng, &seeds[s], &seeds[(s + 1) % seeds.len()]);
        let mut conn = TcpStream::connect(addr).unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        // The server may answer and close before reading everything: a
        // failed write is fine, what it answered is what counts.
        let _ = conn.write_all(&input);
        let _ = conn.shutdown(Shutdown::Write);
        let mut reply = Vec::new();
        let mut buf = [0u8; 64 * 1024];
        loop {
            match conn.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => reply.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
                Err(e) => panic!("mutant {k}: the server neither answered nor closed: {e} (input {input:02x?})"),
            }
        }
        let may_head = input.windows(5).any(|w| w == b"HEAD ");
        let codes = statuses(&reply, may_head).unwrap_or_else(|e| {
            panic!(
                "mutant {k}: {e}\ninput {:?}\nreply {:?}",
                String::from_utf8_lossy(&input),
                String::from_utf8_lossy(&reply[..reply.len().min(400)])
            )
        });
        if codes.is_empty() {
            silent += 1;
            if std::env::var_os("SHOW_SILENT").is_some() && silent <= 5 {
                println!("closed without a response: {:?}", String::from_utf8_lossy(&input));
            }
        }
        for code in codes {
            assert_ne!(
                code,
                500,
                "mutant {k}: a route panicked on {:?}",
                String::from_utf8_lossy(&input)
            );
            *seen.entry(code).or_default() += 1;
        }
    }
    println!("{CASES} mutants: responses by status {seen:?}, {silent} closed without a response");
    // The mutants reach both sides: requests that still work and each kind of refusal.
    for code in [200, 400, 404] {
        assert!(seen.contains_key(&code), "no {code} among {seen:?}");
    }
    server::assert_alive(addr);
    srv.shutdown();
}
