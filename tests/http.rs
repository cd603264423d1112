//! The HTTP server over real sockets on an ephemeral loopback port: every
//! format round-trips, every error has its status and a JSON body that says
//! what is allowed, HTTP/1.1 mechanics (keep-alive, pipelining, HTTP/1.0,
//! HEAD, close), limits, smuggling-shaped framing, slow and many clients,
//! panics, shutdown. After each hostile case the server must still answer
//! `/ping`.

mod support;
use support::server;

use server::{Client, Response, assert_alive, start, start_with};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};
use wirebench::codec::Format;
use wirebench::model::Catalog;
use wirebench::{fixtures, gzip};

// ---------------------------------------------------------------------------
// Catalog round trips

/// One catalog request on `c`, decoded; the error says which step failed.
fn fetch_catalog(c: &mut Client, format: Format, count: usize, gzip: bool) -> Result<Catalog, String> {
    let compression = if gzip { "gzip" } else { "none" };
    let path = format!("/catalog/{}?count={count}&compression={compression}", format.name());
    let r = c.get(&path);
    if r.status != 200 {
        return Err(format!("{path}: status {}: {}", r.status, r.text()));
    }
    if r.header("content-type") != Some(format.content_type()) {
        return Err(format!("{path}: content-type {:?}", r.header("content-type")));
    }
    if r.header("content-encoding") != gzip.then_some("gzip") {
        return Err(format!("{path}: content-encoding {:?}", r.header("content-encoding")));
    }
    let body = if gzip {
        gzip::decompress(&r.body, 64 << 20).map_err(|e| format!("{path}: gunzip: {e}"))?
    } else {
        r.body
    };
    format.decode(&body).map_err(|e| format!("{path}: decode: {e}"))
}

#[test]
fn every_format_and_count_decodes_back_to_the_fixture() {
    let server = start();
    let mut c = Client::connect(server.local_addr());
    let mut failures = Vec::new();
    for format in Format::ALL {
        for count in [1, 100, 1000] {
            let expected = fixtures::catalog(count);
            for gzip in [false, true] {
                match fetch_catalog(&mut c, format, count, gzip) {
                    Ok(got) if got == expected => {}
                    Ok(_) => failures.push(format!(
                        "{format:?} count {count} gzip {gzip}: differs from the fixture"
                    )),
                    Err(e) => failures.push(e),
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn count_defaults_to_100_and_binary_formats_link_their_schema() {
    let server = start();
    let mut c = Client::connect(server.local_addr());
    let r = c.get("/catalog/json");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(Format::Json.decode(&r.body).unwrap().products.len(), 100);
    for (format, schema) in [
        (Format::Avro, "catalog.avsc"),
        (Format::Protobuf, "catalog.proto"),
        (Format::Flatbuffers, "catalog.fbs"),
    ] {
        let r = c.get(&format!("/catalog/{}?count=1", format.name()));
        let link = format!("</schemas/{schema}>; rel=\"describedby\"");
        assert_eq!(r.header("link"), Some(link.as_str()), "{format:?}");
    }
}

#[test]
fn schemas_are_served_byte_for_byte() {
    let server = start();
    let mut c = Client::connect(server.local_addr());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    for name in ["catalog.proto", "catalog.avsc", "catalog.fbs"] {
        let expected = std::fs::read(dir.join(name)).unwrap();
        let r = c.get(&format!("/schemas/{name}"));
        assert_eq!(r.status, 200, "{name}");
        assert_eq!(r.body, expected, "{name}");
    }
    let r = c.get("/schemas/catalog.xsd");
    assert_eq!(r.status, 404);
    assert!(
        r.text().contains("unknown schema file \\\"catalog.xsd\\\"; files:"),
        "{}",
        r.text()
    );
}

// ---------------------------------------------------------------------------
// Routing errors: status, JSON body naming what is allowed, headers

/// Sends `request`, checks the status, that the body is `{"error":…}` containing
/// `mentions`, and that the connection is still usable.
fn check(c: &mut Client, request: &str, status: u16, mentions: &str) -> Response {
    c.send(request.as_bytes());
    let r = c.read_response(request.starts_with("HEAD "));
    assert_eq!(r.status, status, "{request:?}: {}", r.text());
    if status != 200 {
        assert_eq!(r.header("content-type"), Some("application/json"), "{request:?}");
        assert!(r.text().starts_with("{\"error\":\""), "{request:?}: {}", r.text());
        assert!(
            r.text().contains(mentions),
            "{request:?}: {} should mention {mentions:?}",
            r.text()
        );
    }
    assert_ne!(
        r.header("connection"),
        Some("close"),
        "{request:?}: routing errors keep the connection"
    );
    r
}

fn get(path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n")
}

#[test]
fn routing_errors() {
    let server = start();
    let mut c = Client::connect(server.local_addr());
    let count_err = "count must be an integer from 1 to 1000";
    for bad in ["0", "-1", "abc", "1e3", "99999999999999999999", "1001", ""] {
        check(&mut c, &get(&format!("/catalog/json?count={bad}")), 400, count_err);
    }
    let table: &[(&str, u16, &str)] = &[
        ("/catalog/json?limit=5", 400, "allowed: count, compression"),
        (
            "/catalog/json?compression=br",
            400,
            "compression must be none, gzip, gzip1, gzip6 or gzip9",
        ),
        ("/catalog/json?count=1&count=2", 400, "count given more than once"),
        ("/ping?x=1", 400, "/ping takes no parameters"),
        (
            "/catalog/xml",
            404,
            "formats: json, msgpack, protobuf, avro, flatbuffers",
        ),
        ("/catalog/", 404, "formats: json"),
        (
            "/nope",
            404,
            "try /, /ping, /catalog/{json|msgpack|protobuf|avro|flatbuffers}",
        ),
        ("/PING", 404, "try /"),
    ];
    for (path, status, mentions) in table {
        check(&mut c, &get(path), *status, mentions);
    }
    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        for path in ["/", "/ping", "/catalog/json", "/catalog/avro?count=1"] {
            let req = format!("{method} {path} HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n");
            let r = check(&mut c, &req, 405, "allowed: GET, HEAD");
            assert_eq!(r.header("allow"), Some("GET, HEAD"), "{req:?}");
        }
    }
    // A 405 with a small body: the body is discarded and the connection goes on.
    check(
        &mut c,
        "POST /ping HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello",
        405,
        "GET, HEAD",
    );
    check(&mut c, &get("/ping"), 200, "");
    // The unknown path wins over the method: 404, not 405.
    check(&mut c, "DELETE /nope HTTP/1.1\r\nHost: t\r\n\r\n", 404, "no resource");
    // Absolute-form target (RFC 9112 §3.2.2).
    check(&mut c, &get("http://example.com/ping"), 200, "");
}

#[test]
fn index_ping_and_common_headers() {
    let server = start();
    let mut c = Client::connect(server.local_addr());
    let r = c.get("/");
    assert_eq!(r.status, 200);
    assert!(r.text().contains("/catalog/{json|msgpack|protobuf|avro|flatbuffers}"));
    let r = c.get("/ping");
    assert_eq!(r.body, br#"{"message":"pong"}"#);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("content-length"), Some("18"));
    assert_eq!(r.header("server"), Some("wirebench"));
    let date = r.header("date").expect("Date header");
    // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
    assert_eq!(date.len(), 29, "{date}");
    assert!(date.ends_with(" GMT") && date.as_bytes()[3] == b',', "{date}");
    assert_eq!(r.header("connection"), None, "HTTP/1.1 keep-alive is implicit");
}

#[test]
fn head_has_the_same_headers_and_no_body() {
    let server = start();
    let mut c = Client::connect(server.local_addr());
    for path in ["/ping", "/", "/catalog/json?count=3", "/nope", "/catalog/json?count=0"] {
        let g = c.get(path);
        c.send(format!("HEAD {path} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes());
        let h = c.read_response(true);
        let without_date = |r: &Response| {
            r.headers
                .iter()
                .filter(|(n, _)| n != "date")
                .cloned()
                .collect::<Vec<_>>()
        };
        assert_eq!((h.status, without_date(&h)), (g.status, without_date(&g)), "{path}");
        assert_eq!(
            h.header("content-length"),
            Some(g.body.len().to_string().as_str()),
            "{path}"
        );
    }
    // Had a HEAD response carried a body, this would read it as the next response.
    assert_eq!(c.get("/ping").status, 200);
}

// ---------------------------------------------------------------------------
// The user's document (`serve --data`): the catalog's route table

/// A document with a map, a union (a field null in one record) and an array.
const DOCUMENT: &str =
    r#"{"orders":[{"id":1,"tags":{"a":"x","b":"y"},"note":null},{"id":2,"tags":{},"note":"hi"}],"total":2.5}"#;

fn document_server() -> wirebench::http::Server {
    let dir = std::env::temp_dir().join(format!("wirebench-http-data-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("doc.json");
    std::fs::write(&path, DOCUMENT).unwrap();
    start_with(|c| c.data = Some((path, None)))
}

/// The status, content type, encoding, `Vary` and `Link` of a response.
fn shape(r: &Response) -> (u16, Option<&str>, Option<&str>, Option<&str>, Option<&str>) {
    (
        r.status,
        r.header("content-type"),
        r.header("content-encoding"),
        r.header("vary"),
        r.header("link"),
    )
}

#[test]
fn data_takes_the_catalogs_compression_accept_and_head() {
    let server = document_server();
    let mut c = Client::connect(server.local_addr());
    for format in Format::ALL {
        let name = format.name();
        let plain = c.get(&format!("/data/{name}"));
        assert_eq!(plain.status, 200, "{name}: {}", plain.text());
        for level in ["gzip", "gzip1", "gzip6", "gzip9"] {
            let r = c.get(&format!("/data/{name}?compression={level}"));
            assert_eq!(
                shape(&r),
                (
                    200,
                    Some(format.content_type()),
                    Some("gzip"),
                    None,
                    plain.header("link")
                ),
                "{name} {level}"
            );
            assert_eq!(
                gzip::decompress(&r.body, 1 << 20).unwrap(),
                plain.body,
                "{name} {level}"
            );
        }
        // HEAD: the GET's headers, no body.
        c.send(format!("HEAD /data/{name}?compression=gzip HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes());
        let h = c.read_response(true);
        let g = c.get(&format!("/data/{name}?compression=gzip"));
        assert_eq!(shape(&h), shape(&g), "HEAD {name}");
        assert_eq!(h.header("content-length"), Some(g.body.len().to_string().as_str()));
    }
    // Accept chooses the format on /data as on /catalog, with compression.
    for (accept, media_type, link) in [
        (
            "application/vnd.msgpack",
            "application/vnd.msgpack",
            "</schemas/data.avsc>; rel=\"describedby\"",
        ),
        (
            "application/protobuf;q=0.9, application/json;q=0.1",
            "application/protobuf",
            "</schemas/data.proto>; rel=\"describedby\"",
        ),
    ] {
        c.send(format!("GET /data?compression=gzip HTTP/1.1\r\nHost: t\r\nAccept: {accept}\r\n\r\n").as_bytes());
        let d = c.read_response(false);
        assert_eq!(
            shape(&d),
            (200, Some(media_type), Some("gzip"), Some("Accept"), Some(link)),
            "{accept}"
        );
        c.send(format!("GET /catalog?compression=gzip HTTP/1.1\r\nHost: t\r\nAccept: {accept}\r\n\r\n").as_bytes());
        let k = c.read_response(false);
        assert_eq!(
            (
                k.status,
                k.header("content-type"),
                k.header("content-encoding"),
                k.header("vary")
            ),
            (200, Some(media_type), Some("gzip"), Some("Accept")),
            "{accept}"
        );
    }
    // The same errors, the same words.
    for (data, catalog, status) in [
        ("/data/json?compression=br", "/catalog/json?compression=br", 400),
        (
            "/data/json?compression=gzip&compression=none",
            "/catalog/json?compression=gzip&compression=none",
            400,
        ),
        ("/data/xml", "/catalog/xml", 404),
    ] {
        let (d, k) = (c.get(data), c.get(catalog));
        assert_eq!((d.status, d.text()), (status, k.text()), "{data} vs {catalog}");
    }
    check(
        &mut c,
        &get("/data/json?count=2"),
        400,
        "count\\\"; allowed: compression",
    );
    for path in ["/data", "/data/avro?compression=gzip"] {
        let req = format!("POST {path} HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n");
        let r = check(
            &mut c,
            &req,
            405,
            &format!(
                "method POST is not allowed on {}; allowed: GET, HEAD",
                path.split('?').next().unwrap()
            ),
        );
        assert_eq!(r.header("allow"), Some("GET, HEAD"));
    }
    c.send(b"GET /data HTTP/1.1\r\nHost: t\r\nAccept: image/png\r\n\r\n");
    let d = c.read_response(false);
    c.send(b"GET /catalog HTTP/1.1\r\nHost: t\r\nAccept: image/png\r\n\r\n");
    let k = c.read_response(false);
    assert_eq!((d.status, d.text(), d.header("vary")), (406, k.text(), Some("Accept")));
}

#[test]
fn the_index_lists_the_data_routes_when_served() {
    let server = document_server();
    let mut c = Client::connect(server.local_addr());
    let with = c.get("/").text();
    for route in [
        "GET|HEAD /data/{json|msgpack|protobuf|avro|flatbuffers}?compression=",
        "GET|HEAD /data?compression=",
        "/schemas/{data.avsc|data.proto|data.fbs}",
    ] {
        assert!(with.contains(route), "{route} missing from:\n{with}");
    }
    assert!(with.contains("GET|HEAD /catalog/{json"), "{with}");
    let plain = start();
    let without = Client::connect(plain.local_addr()).get("/").text();
    assert!(!without.contains("/data"), "{without}");
    // Every route the index lists with --data answers 200.
    for path in [
        "/data/json?compression=gzip",
        "/data?compression=none",
        "/schemas/data.avsc",
        "/schemas/data.proto",
        "/schemas/data.fbs",
    ] {
        assert_eq!(c.get(path).status, 200, "{path}");
    }
}

// ---------------------------------------------------------------------------
// Connection management

#[test]
fn one_hundred_requests_on_one_connection() {
    let server = start();
    let mut c = Client::connect(server.local_addr());
    for i in 0..100 {
        let r = c.get(if i % 2 == 0 { "/ping" } else { "/" });
        assert_eq!(r.status, 200, "request {i}");
    }
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let server = start();
    let mut c = Client::connect(server.local_addr());
    c.send(format!("{}{}{}", get("/ping"), get("/nope"), get("/")).as_bytes());
    let statuses: Vec<(u16, String)> = (0..3)
        .map(|_| {
            let r = c.read_response(false);
            (r.status, r.header("content-type").unwrap().to_string())
        })
        .collect();
    assert_eq!(
        statuses,
        [
            (200, "application/json".to_string()),
            (404, "application/json".to_string()),
            (200, "text/plain; charset=utf-8".to_string())
        ]
    );
    // A body on GET is read and discarded; the pipelined request after it is answered.
    c.send(b"GET /ping HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nBODYGET / HTTP/1.1\r\nHost: t\r\n\r\n");
    assert_eq!(c.read_response(false).status, 200);
    assert_eq!(
        c.read_response(false).header("content-type"),
        Some("text/plain; charset=utf-8")
    );
}

#[test]
fn connection_close_and_http_1_0() {
    let server = start();
    let addr = server.local_addr();

    let mut c = Client::connect(addr);
    c.send(b"GET /ping HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    let r = c.read_response(false);
    assert_eq!((r.status, r.header("connection")), (200, Some("close")));
    assert!(c.is_closed(), "closed after Connection: close");

    let mut c = Client::connect(addr);
    c.send(b"GET /ping HTTP/1.0\r\n\r\n");
    let r = c.read_response(false);
    assert_eq!((r.status, r.header("connection")), (200, Some("close")));
    assert!(c.is_closed(), "HTTP/1.0 closes by default");

    let mut c = Client::connect(addr);
    for _ in 0..3 {
        c.send(b"GET /ping HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        let r = c.read_response(false);
        assert_eq!((r.status, r.header("connection")), (200, Some("keep-alive")));
    }
}

// ---------------------------------------------------------------------------
// Hostile requests: status, Connection: close, closed, and the server lives on

/// Sends `request`, expects `status` with `Connection: close` and a JSON error
/// mentioning `mentions`, then EOF; then checks the server still answers.
fn check_rejected(addr: std::net::SocketAddr, request: &[u8], status: u16, mentions: &str) {
    let mut c = Client::connect(addr);
    let _ = std::io::Write::write_all(&mut c.stream, request); // the server may stop reading early
    let r = c.read_response(false);
    let shown = String::from_utf8_lossy(&request[..request.len().min(60)]).into_owned();
    assert_eq!(r.status, status, "{shown:?}: {}", r.text());
    assert_eq!(r.header("connection"), Some("close"), "{shown:?}");
    assert!(
        r.text().contains(mentions),
        "{shown:?}: {} should mention {mentions:?}",
        r.text()
    );
    assert!(c.is_closed(), "{shown:?}: connection closed");
    assert_alive(addr);
}

#[test]
fn oversized_and_malformed_heads() {
    let server = start();
    let addr = server.local_addr();
    let long_line = format!("GET /{} HTTP/1.1\r\nHost: t\r\n\r\n", "a".repeat(9000));
    check_rejected(addr, long_line.as_bytes(), 414, "request line longer than 8192 bytes");
    let big_header = format!("GET / HTTP/1.1\r\nHost: t\r\nX-Big: {}\r\n\r\n", "v".repeat(17_000));
    check_rejected(addr, big_header.as_bytes(), 431, "header block larger than 16384 bytes");
    let many: String = (0..65).map(|i| format!("X-{i}: v\r\n")).collect();
    let many = format!("GET / HTTP/1.1\r\nHost: t\r\n{many}\r\n");
    check_rejected(addr, many.as_bytes(), 431, "more than 64 header lines");
    check_rejected(
        addr,
        b"GET / HTTP/2.0\r\nHost: t\r\n\r\n",
        505,
        "use HTTP/1.1 or HTTP/1.0",
    );
    check_rejected(addr, b"GET / HTTP/1.1\r\n\r\n", 400, "needs a Host header");
    check_rejected(
        addr,
        b"GET / HTTX/1.1\r\nHost: t\r\n\r\n",
        400,
        "expected HTTP/1.1 or HTTP/1.0",
    );
    check_rejected(addr, b"GET /\x7f HTTP/1.1\r\nHost: t\r\n\r\n", 400, "visible ASCII");
    check_rejected(
        addr,
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
        400,
        "method is not a token",
    );
    let body = "x".repeat(20_000);
    let big_body = format!("GET /ping HTTP/1.1\r\nHost: t\r\nContent-Length: 20000\r\n\r\n{body}");
    check_rejected(addr, big_body.as_bytes(), 413, "larger than 16384 bytes");
}

#[test]
fn heads_just_inside_the_limits_are_served() {
    let server = start();
    let mut c = Client::connect(server.local_addr());
    // 8,192-byte request line (the buffer grows from 4 KiB on the way).
    let path = format!("/{}", "a".repeat(8192 - "GET / HTTP/1.1".len()));
    let r = check(&mut c, &get(&path), 404, "no resource");
    assert_eq!(r.header("connection"), None);
    // A 16,000-byte header block, then a normal request on the same connection.
    let big = format!("GET /ping HTTP/1.1\r\nHost: t\r\nX-Big: {}\r\n\r\n", "v".repeat(15_900));
    check(&mut c, &big, 200, "");
    check(&mut c, &get("/ping"), 200, "");
}

#[test]
fn smuggling_shaped_framing_is_rejected_and_closed() {
    let server = start();
    let addr = server.local_addr();
    let table: &[(&[u8], &str)] = &[
        (
            b"GET /ping HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "Content-Length together with Transfer-Encoding",
        ),
        (
            b"GET /ping HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
            "Content-Length together with Transfer-Encoding",
        ),
        (
            b"POST /ping HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
            "Content-Length values disagree",
        ),
        (
            b"GET /ping HTTP/1.1\r\nHost: t\r\nContent-Length: +5\r\n\r\nhello",
            "Content-Length must be decimal digits",
        ),
        (
            b"GET /ping HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "Transfer-Encoding is not accepted",
        ),
        (b"GET /ping HTTP/1.1\nHost: t\n\n", "bare LF or CR"),
        (b"GET /ping HTTP/1.1\r\nHost: t\nX: y\r\n\r\n", "bare LF or CR"),
        (
            b"GET /ping HTTP/1.1\r\nHost: t\r\nX: a\r\n b\r\n\r\n",
            "obsolete header line folding",
        ),
        (
            b"GET /ping HTTP/1.1\r\nHost: t\r\nContent-Length : 0\r\n\r\n",
            "header name is not a token",
        ),
        (b"GET /ping HTTP/1.1\r\nHost: t\r\nX: a\0b\r\n\r\n", "control character"),
        (
            b"GET /ping HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
            "more than one Host",
        ),
    ];
    for (request, mentions) in table {
        check_rejected(addr, request, 400, mentions);
    }
}

#[test]
fn a_handler_panic_is_a_500_and_the_worker_goes_on() {
    // One worker: had it died, nobody would answer the pings.
    let server = start_with(|c| c.server.threads = 1);
    let mut c = Client::connect(server.local_addr());
    for _ in 0..3 {
        let r = c.get("/__panic");
        assert_eq!(r.status, 500);
        assert!(r.text().contains("internal error"), "{}", r.text());
        assert_eq!(c.get("/ping").status, 200, "same connection, same worker");
    }
    assert_eq!(server.stats().threads, 1, "the worker survived");
    assert_alive(server.local_addr());
}

// ---------------------------------------------------------------------------
// Slow, idle and many clients; capacity; shutdown

#[test]
fn a_slow_client_does_not_delay_others_and_gets_408() {
    let server = start_with(|c| c.server.header_timeout = Duration::from_secs(5));
    let addr = server.local_addr();
    // A request head that never finishes: parked with its bytes, it waits for the rest.
    let mut slow = Client::connect(addr);
    slow.send(b"GET /ping HTTP/1.1\r\nHost: t\r\n");
    server::wait_until("the slow client's connection is accepted", || server.stats().open == 1);
    for _ in 0..5 {
        assert_alive(addr);
    }
    // The event: those were answered while the slow client was still held,
    // its head unanswered (nothing to read yet, the connection open).
    slow.stream.set_nonblocking(true).unwrap();
    let mut byte = [0u8; 1];
    let pending = slow.stream.peek(&mut byte);
    assert!(
        matches!(&pending, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the slow client was answered or closed before the others: {pending:?}"
    );
    slow.stream.set_nonblocking(false).unwrap();
    let r = slow.read_response(false);
    assert_eq!((r.status, r.header("connection")), (408, Some("close")), "{}", r.text());
}

#[test]
fn over_capacity_gets_a_fast_503_when_every_connection_is_mid_request() {
    let server = start_with(|c| c.server.max_connections = 2);
    let addr = server.local_addr();
    let mut held: Vec<Client> = (0..2).map(|_| Client::connect(addr)).collect();
    for c in &mut held {
        assert_eq!(c.get("/ping").status, 200); // both workers now own a connection
    }
    // Both wait for a next request first: a worker that has written its
    // response but not yet marked its connection idle also counts as not
    // idle, so without this step the wait below could pass too early and
    // the new connection would evict one of them instead of being refused.
    server::wait_until("both connections idle after their first response", || {
        server.stats().idle_connections == 2
    });
    for c in &mut held {
        c.send(b"GET /ping HTTP/1.1\r\n"); // each is now mid-request: none is idle
    }
    server::wait_until("both workers read their partial heads", || {
        server.stats().idle_connections == 0
    });
    let mut extra = Client::connect(addr);
    let r = extra.read_response(false);
    assert_eq!(r.status, 503, "{}", r.text());
    assert!(extra.is_closed());
    assert_eq!(r.header("connection"), Some("close"), "{}", r.text());
    assert_eq!(r.header("retry-after"), Some("1"), "{}", r.text());
    assert!(r.text().contains("connection limit"));
    // Fast: answered by the acceptor while both workers still hold their
    // half-sent requests (no worker was needed, none was waited for).
    let stats = server.stats();
    assert_eq!(
        (stats.refused, stats.open, stats.idle_connections),
        (1, 2, 0),
        "{stats:?}"
    );
    for c in &mut held {
        c.send(b"Host: t\r\n\r\n");
        assert_eq!(c.read_response(false).status, 200, "held connections are unaffected");
    }
}

#[test]
fn one_thousand_concurrent_keep_alive_connections() {
    const N: usize = 1000;
    let limit = server::ensure_open_files(4 * N as u64);
    assert!(
        limit >= 2 * N as u64 + 100,
        "open-file limit {limit} is too low for this test; raise `ulimit -n`"
    );
    // Generous deadlines: on a loaded machine 1,000 connects and 2,000
    // round trips may take a while, and an idle close would fail the test.
    let server = start_with(|c| {
        c.server.header_timeout = Duration::from_secs(60);
        c.server.idle_timeout = Duration::from_secs(60);
        c.server.threads = 4;
    });
    let addr = server.local_addr();
    // Connect in batches of 100 and finish one request on the newest
    // connection of each batch: the accept queue is FIFO, so that answer
    // proves the whole batch was accepted, and std's 128-entry listen backlog
    // never overflows (an overflow costs a 1 s SYN retry, not a failure).
    let mut clients: Vec<Client> = Vec::with_capacity(N);
    while clients.len() < N {
        clients.extend((0..100).map(|_| Client::connect(addr)));
        assert_eq!(clients.last_mut().unwrap().get("/ping").status, 200);
    }
    for round in 0..2 {
        for c in &mut clients {
            c.send(get("/ping").as_bytes());
        }
        for (i, c) in clients.iter_mut().enumerate() {
            let r = c.read_response(false);
            assert_eq!(r.status, 200, "connection {i}, round {round}");
        }
    }
    assert_eq!(server.stats().threads, 4, "a pool of four served them all");
    drop(clients);
}

#[test]
fn shutdown_closes_idle_keep_alive_connections_and_returns() {
    let server = start();
    let mut idle = Client::connect(server.local_addr());
    assert_eq!(idle.get("/ping").status, 200);
    let _never_sent = Client::connect(server.local_addr());
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        server.shutdown();
        tx.send(()).unwrap();
    });
    rx.recv_timeout(Duration::from_secs(5))
        .expect("shutdown returns promptly");
    assert!(idle.is_closed(), "idle keep-alive connection closed by shutdown");
}

#[test]
fn the_accept_loop_survives_running_out_of_file_descriptors() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    // The real binary under `prlimit` (util-linux): 32 descriptors in all, so
    // accept fails with EMFILE while our 60 connections are open.
    if Command::new("prlimit").arg("--version").output().is_err() {
        eprintln!("skipped: prlimit (util-linux) is not installed");
        return;
    }
    /// Kills the server even when an assertion fails first.
    struct KillOnDrop(std::process::Child);
    impl Drop for KillOnDrop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut child = Command::new("prlimit")
        .args([
            "--nofile=32:32",
            env!("CARGO_BIN_EXE_wirebench"),
            "serve",
            "--addr",
            "127.0.0.1:0",
        ])
        .args(["--max-count", "10", "--header-timeout", "5s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run wirebench serve under prlimit");
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let guard = KillOnDrop(child);
    let mut line = String::new();
    let mut stdout = BufReader::new(stdout);
    stdout.read_line(&mut line).unwrap();
    let addr: std::net::SocketAddr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));

    let mut clients: Vec<Client> = (0..60).map(|_| Client::connect(addr)).collect();
    // The first connections were accepted before the descriptors ran out.
    for c in clients.iter_mut().take(5) {
        assert_eq!(c.get("/ping").status, 200);
    }
    drop(clients); // descriptors come back as the server sees these close
    assert_alive(addr);
    drop(guard); // kill, then read what it wrote
    let mut log = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut log).unwrap();
    assert!(!log.contains("panicked"), "server stderr: {log}");
}

#[test]
fn idle_and_silent_connections_are_closed_at_their_deadlines() {
    let server = start_with(|c| {
        c.server.idle_timeout = Duration::from_millis(300);
        c.server.header_timeout = Duration::from_millis(600);
    });
    let addr = server.local_addr();
    // Idle keep-alive: one request, then nothing; closed silently after the idle timeout.
    let mut idle = Client::connect(addr);
    assert_eq!(idle.get("/ping").status, 200);
    let t = Instant::now();
    assert!(idle.is_closed(), "idle connection closed without a response");
    let waited = t.elapsed();
    // Not before its deadline (the client's read timeout bounds the wait).
    assert!(waited >= Duration::from_millis(250), "idle close after {waited:?}");
    // Connected but never sent a byte: closed silently at the header deadline.
    let t = Instant::now();
    let mut silent = Client::connect(addr);
    assert!(silent.is_closed(), "silent connection closed without a response");
    let waited = t.elapsed();
    assert!(waited >= Duration::from_millis(550), "silent close after {waited:?}");
    assert_alive(addr);
}

#[test]
fn a_fixture_file_caps_count_at_its_product_count() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(fixtures::CANONICAL_PATH);
    let server = start_with(|c| {
        c.max_count = 10_000;
        c.fixture = Some(path);
    });
    let mut c = Client::connect(server.local_addr());
    let got = fetch_catalog(&mut c, Format::Protobuf, 1000, false).unwrap();
    assert_eq!(got, fixtures::catalog(1000));
    // min(--max-count, products in the file), as a client sees it.
    check(&mut c, &get("/catalog/json?count=1001"), 400, "from 1 to 1000");

    let missing = wirebench::serve::Config {
        fixture: Some("no/such/catalog.json".into()),
        ..Default::default()
    };
    let err = wirebench::serve::routes::start(&missing).unwrap_err();
    assert!(err.to_string().contains("no/such/catalog.json"), "{err}");
}

// ---------------------------------------------------------------------------
// /explain/{format}

/// `/explain/{format}?count=N` returns exactly what `wirebench explain FORMAT --count N` prints.
#[test]
fn explain_route_serves_the_annotated_dump() {
    let server = start();
    let mut c = Client::connect(server.local_addr());
    for format in Format::ALL {
        for count in [1, 3] {
            let r = c.get(&format!("/explain/{}?count={count}", format.name()));
            assert_eq!(r.status, 200, "{format}: {}", r.text());
            assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
            let bytes = format.encode_to_vec(&fixtures::catalog(count).products).unwrap();
            let want = wirebench::explain::explain_text(format, &bytes, true).unwrap();
            assert_eq!(r.text(), want, "{format} count {count}");
        }
    }
    let r = c.get("/explain/json");
    assert!(
        r.text().contains("# json payload, 674 bytes"),
        "default count is 1: {}",
        r.text()
    );
    for (path, status, needle) in [
        ("/explain/xml", 404, "unknown format \\\"xml\\\""),
        ("/explain/json?count=0", 400, "count must be an integer from 1 to 100"),
        ("/explain/json?count=101", 400, "count must be an integer from 1 to 100"),
        ("/explain/json?compression=gzip", 400, "allowed: count"),
    ] {
        let r = c.get(path);
        assert_eq!(r.status, status, "{path}: {}", r.text());
        assert!(r.text().contains(needle), "{path}: {}", r.text());
    }
    assert_alive(server.local_addr());
}
