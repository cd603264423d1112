//! `GET|HEAD /catalog` negotiated by `Accept` over real sockets: q-values,
//! wildcards, the protobuf alias, `Vary: Accept`, 406 with the media types,
//! 400 for a malformed field, and `/catalog/{format}` left as it was.

mod support;
use support::server::{self, Client, Response};
use wirebench::codec::Format;

/// `GET /catalog?count=3` with the given `Accept` header lines.
fn get(client: &mut Client, accept: &[&str]) -> Response {
    let mut req = String::from("GET /catalog?count=3 HTTP/1.1\r\nHost: t\r\n");
    for a in accept {
        req.push_str(&format!("Accept: {a}\r\n"));
    }
    req.push_str("\r\n");
    client.send(req.as_bytes());
    client.read_response(false)
}

/// The response is 200, `Vary: Accept`, of `content_type`, and decodes as `format` with 3 products.
fn check_ok(resp: &Response, content_type: &str, format: Format) {
    assert_eq!(resp.status, 200, "{}", resp.text());
    assert_eq!(resp.header("vary"), Some("Accept"));
    assert_eq!(resp.header("content-type"), Some(content_type));
    let catalog = format
        .decode(&resp.body)
        .expect("body decodes as the negotiated format");
    assert_eq!(catalog.products.len(), 3);
}

#[test]
fn accept_picks_the_format() {
    let s = server::start();
    let mut c = Client::connect(s.local_addr());
    for (accept, content_type, format) in [
        (&[][..], "application/json", Format::Json),
        (&["*/*"], "application/json", Format::Json),
        (&["text/html, */*;q=0.1"], "application/json", Format::Json),
        (&["application/vnd.msgpack"], "application/vnd.msgpack", Format::Msgpack),
        (&["application/protobuf"], "application/protobuf", Format::Protobuf),
        (&["application/x-protobuf"], "application/x-protobuf", Format::Protobuf),
        (&["avro/*"], "avro/binary", Format::Avro),
        (
            &["application/x-flatbuffers"],
            "application/x-flatbuffers",
            Format::Flatbuffers,
        ),
        // q-values
        (
            &["application/json;q=0.4, application/vnd.msgpack;q=0.6"],
            "application/vnd.msgpack",
            Format::Msgpack,
        ),
        (&["application/json;q=0.9, avro/binary"], "avro/binary", Format::Avro),
        // the most specific range overrides a wildcard
        (
            &["application/*;q=0.8, application/json;q=0"],
            "application/vnd.msgpack",
            Format::Msgpack,
        ),
        (&["*/*;q=1, application/*;q=0.1"], "avro/binary", Format::Avro),
        // two Accept lines are one list
        (
            &["application/json;q=0.1", "application/x-flatbuffers"],
            "application/x-flatbuffers",
            Format::Flatbuffers,
        ),
    ] {
        let resp = get(&mut c, accept);
        check_ok(&resp, content_type, format);
    }
}

#[test]
fn schema_link_survives_negotiation() {
    let s = server::start();
    let mut c = Client::connect(s.local_addr());
    let resp = get(&mut c, &["avro/binary"]);
    assert_eq!(
        resp.header("link"),
        Some("</schemas/catalog.avsc>; rel=\"describedby\"")
    );
}

#[test]
fn nothing_acceptable_is_406_with_the_media_types() {
    let s = server::start();
    let mut c = Client::connect(s.local_addr());
    for accept in ["text/html", "*/*;q=0", "image/*, text/*;q=0.5"] {
        let resp = get(&mut c, &[accept]);
        assert_eq!(resp.status, 406, "{accept:?}");
        assert_eq!(resp.header("vary"), Some("Accept"));
        assert_eq!(resp.header("content-type"), Some("application/json"));
        let body: serde_json::Value = serde_json::from_slice(&resp.body).expect("JSON error body");
        let available: Vec<&str> = body["available"]
            .as_array()
            .expect("available array")
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(
            available,
            [
                "application/json",
                "application/vnd.msgpack",
                "application/protobuf",
                "avro/binary",
                "application/x-flatbuffers",
                "application/x-protobuf"
            ]
        );
        assert!(body["error"].as_str().unwrap().contains("application/vnd.msgpack"));
    }
    // The connection is still usable after a 406.
    check_ok(&get(&mut c, &[]), "application/json", Format::Json);
}

#[test]
fn malformed_accept_is_400_saying_where() {
    let s = server::start();
    let mut c = Client::connect(s.local_addr());
    let resp = get(&mut c, &["text/html;q=2"]);
    assert_eq!(resp.status, 400);
    assert_eq!(resp.header("vary"), Some("Accept"));
    assert!(resp.text().contains("Accept: expected a qvalue"), "{}", resp.text());
}

#[test]
fn head_gzip_and_bad_queries() {
    let s = server::start();
    let mut c = Client::connect(s.local_addr());
    c.send(b"HEAD /catalog?count=3 HTTP/1.1\r\nHost: t\r\nAccept: application/vnd.msgpack\r\n\r\n");
    let head = c.read_response(true);
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-type"), Some("application/vnd.msgpack"));
    assert_eq!(head.header("vary"), Some("Accept"));

    c.send(b"GET /catalog?count=3&compression=gzip HTTP/1.1\r\nHost: t\r\nAccept: application/protobuf\r\n\r\n");
    let gz = c.read_response(false);
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    let raw = wirebench::gzip::decompress(&gz.body, 1 << 20).expect("gunzip");
    assert_eq!(Format::Protobuf.decode(&raw).unwrap().products.len(), 3);

    let resp = c.get("/catalog?count=0");
    assert_eq!(resp.status, 400);
    assert_eq!(resp.header("vary"), Some("Accept"));

    c.send(b"POST /catalog HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n");
    assert_eq!(c.read_response(false).status, 405);
}

#[test]
fn catalog_by_path_ignores_accept_and_has_no_vary() {
    let s = server::start();
    let mut c = Client::connect(s.local_addr());
    c.send(b"GET /catalog/avro?count=2 HTTP/1.1\r\nHost: t\r\nAccept: application/json\r\n\r\n");
    let resp = c.read_response(false);
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("avro/binary"));
    assert_eq!(resp.header("vary"), None);
}
