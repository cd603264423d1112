//! The browser page's routes over real sockets: `/` answers a browser with
//! the page and everyone else with the text index; every file the page names
//! is served from this host; the JSON explain route, the evolution lab's
//! cells (handed in as data) and the results directory.

mod support;
use support::server::{self, Client, Response};
use wirebench::codec::Format;
use wirebench::serve::page::EvolutionCell;

fn get(c: &mut Client, path: &str, accept: &str) -> Response {
    c.send(format!("GET {path} HTTP/1.1\r\nHost: t\r\nAccept: {accept}\r\n\r\n").as_bytes());
    c.read_response(false)
}

fn json(r: &Response) -> serde_json::Value {
    assert_eq!(r.header("content-type"), Some("application/json"), "{}", r.text());
    serde_json::from_slice(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.text()))
}

/// `src="/…"` and `href="/…"` targets of an HTML document.
fn local_refs(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["src=\"", "href=\""] {
        for part in html.split(attr).skip(1) {
            out.push(part[..part.find('"').unwrap()].to_string());
        }
    }
    out
}

#[test]
fn index_answers_browsers_with_the_page_and_curl_with_text() {
    let server = server::start();
    let mut c = Client::connect(server.local_addr());
    let page = get(&mut c, "/", "text/html,application/xhtml+xml,*/*;q=0.8");
    assert_eq!(page.status, 200);
    assert_eq!(page.header("content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(page.header("vary"), Some("Accept"));
    let html = page.text();
    let refs = local_refs(&html);
    assert!(refs.contains(&"/page/app.js".to_string()), "{refs:?}");
    for r in &refs {
        // Nothing from another host: every reference is a path here or inline data.
        assert!(r.starts_with('/') || r.starts_with("data:"), "{r} is not local");
        if r.starts_with('/') && r != "/results" {
            let res = get(&mut c, r, "*/*");
            assert_eq!(res.status, 200, "{r}: {}", res.text());
        }
    }
    assert!(
        html.contains("rel=\"icon\" href=\"data:"),
        "an inline favicon: no /favicon.ico request"
    );
    for accept in ["*/*", "text/plain", "application/json"] {
        let text = get(&mut c, "/", accept);
        assert_eq!(
            text.header("content-type"),
            Some("text/plain; charset=utf-8"),
            "{accept}"
        );
        assert!(text.text().contains("/catalog/"), "{accept}");
    }
    assert_eq!(c.get("/").header("content-type"), Some("text/plain; charset=utf-8"));
    let js = get(&mut c, "/page/app.js", "*/*");
    assert_eq!(js.header("content-type"), Some("text/javascript; charset=utf-8"));
    assert!(
        !js.text().contains("http://") && !js.text().contains("https://"),
        "the script names no host"
    );
    c.send(b"POST / HTTP/1.1\r\nHost: t\r\nAccept: text/html\r\nContent-Length: 0\r\n\r\n");
    assert_eq!(c.read_response(false).status, 405);
    assert_eq!(get(&mut c, "/page/nothing", "*/*").status, 404);
}

#[test]
fn explain_json_by_accept() {
    let server = server::start();
    let mut c = Client::connect(server.local_addr());
    for format in Format::ALL {
        let r = get(&mut c, &format!("/explain/{format}?count=3"), "application/json");
        assert_eq!(r.status, 200, "{format}: {}", r.text());
        let v = json(&r);
        let bytes = format.encode_to_vec(&wirebench::fixtures::catalog(3).products).unwrap();
        assert_eq!(v["bytes"], bytes.len(), "{format}");
        let covered: u64 = v["spans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["length"].as_u64().unwrap())
            .sum();
        assert_eq!(covered as usize, bytes.len(), "{format}");
        let mut gz = Vec::new();
        wirebench::gzip::compress(&bytes, wirebench::gzip::DEFAULT_LEVEL, &mut gz);
        assert_eq!(v["gzip_bytes"], gz.len(), "{format}");
        // gzip decoded: the same bytes, explained the same way.
        let g = json(&get(
            &mut c,
            &format!("/explain/{format}?count=3&compression=gzip"),
            "application/json",
        ));
        assert_eq!(
            (&g["compression"], &g["payload"]),
            (&serde_json::json!("gzip"), &v["payload"])
        );
    }
    // The text dump stays the default.
    let text = c.get("/explain/avro");
    assert_eq!(text.header("content-type"), Some("text/plain; charset=utf-8"));
    let shared = json(&get(
        &mut c,
        "/explain/flatbuffers?count=20&share=strings",
        "application/json",
    ));
    let plain = json(&get(&mut c, "/explain/flatbuffers?count=20", "application/json"));
    assert!(shared["bytes"].as_u64() < plain["bytes"].as_u64());
    for bad in [
        "/explain/json?share=strings",
        "/explain/json?count=0",
        "/explain/json?count=101",
        "/explain/json?compression=br",
        "/explain/json?x=1",
    ] {
        let r = get(&mut c, bad, "application/json");
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
        assert!(json(&r)["error"].is_string());
    }
    assert_eq!(get(&mut c, "/explain/xml", "application/json").status, 404);
}

#[test]
fn evolution_cells_and_results_directory() {
    let dir = std::env::temp_dir().join(format!("wirebench-page-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("chart-a.svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\"/>").unwrap();
    std::fs::write(dir.join("notes.txt"), "not a chart").unwrap();
    std::fs::write(dir.join("REPORT.md"), "# Report\n\n| a | <b> |\n").unwrap();
    let bytes = Format::Msgpack
        .encode_to_vec(&wirebench::fixtures::catalog(1).products)
        .unwrap();
    let cell = EvolutionCell {
        step: "add-field".into(),
        change: "Product gains `brand`".into(),
        row: "msgpack".into(),
        format: Format::Msgpack,
        direction: "v2 writer → v1 reader".into(),
        class: "drops".into(),
        outcome: "silently drops data: brand".into(),
        bytes,
    };
    let with = server::start_with(|c| {
        c.page.evolution = std::sync::Arc::new(vec![cell]);
        c.page.results = Some(dir.clone());
    });
    let mut c = Client::connect(with.local_addr());
    let lab = json(&c.get("/lab"));
    assert_eq!(lab["cells"].as_array().unwrap().len(), 1);
    assert_eq!(lab["cells"][0]["class"], "drops");
    let one = json(&c.get("/lab/0"));
    assert_eq!(one["outcome"], "silently drops data: brand");
    assert_eq!(one["format"], "msgpack");
    assert!(one["spans"].as_array().unwrap().len() > 10);
    assert_eq!(c.get("/lab/1").status, 404);
    assert_eq!(json(&c.get("/page/info.json"))["results"], true);
    let page = c.get("/results");
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(html.contains("src=\"/results/chart-a.svg\""), "{html}");
    assert!(
        !html.contains("notes.txt") && html.contains("| a | &lt;b&gt; |"),
        "{html}"
    );
    let svg = c.get("/results/chart-a.svg");
    assert_eq!((svg.status, svg.header("content-type")), (200, Some("image/svg+xml")));
    for bad in [
        "/results/notes.txt",
        "/results/..%2FREPORT.md",
        "/results/../REPORT.md",
        "/results/missing.svg",
    ] {
        assert_eq!(c.get(bad).status, 404, "{bad}");
    }
    // Without --results and without the lab: 404 and an empty matrix.
    let without = server::start();
    let mut c = Client::connect(without.local_addr());
    assert_eq!(c.get("/results").status, 404);
    assert_eq!(c.get("/results/chart-a.svg").status, 404);
    assert_eq!(json(&c.get("/lab"))["cells"].as_array().unwrap().len(), 0);
    assert_eq!(json(&c.get("/page/info.json"))["results"], false);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A document with a map (`tags`), a union (`note`: null or a string) and nulls.
const DOCUMENT: &str = include_str!("../fixtures/orders/doc.json");
/// Its schema (`fixtures/orders/`): inference would make `tags` a record of
/// its two keys.
const SCHEMA: &str = include_str!("../fixtures/orders/doc.avsc");

#[test]
fn the_page_explains_the_served_document_in_every_format() {
    let scratch = support::scratch::Scratch::new("page-data");
    let path = scratch.file("doc.json", DOCUMENT);
    let schema = scratch.file("doc.avsc", SCHEMA);
    let server = server::start_with(|c| c.data = Some((path, Some(schema))));
    let mut c = Client::connect(server.local_addr());
    assert_eq!(json(&c.get("/page/info.json"))["data"], true);
    let document: serde_json::Value = serde_json::from_str(DOCUMENT).unwrap();
    for format in Format::ALL {
        let served = c.get(&format!("/data/{format}"));
        assert_eq!(served.status, 200, "{format}");
        let r = get(&mut c, &format!("/explain/{format}?payload=data"), "application/json");
        assert_eq!(r.status, 200, "{format}: {}", r.text());
        let v = json(&r);
        assert!(v["error"].is_null(), "{format}: {}", v["error"]);
        // The bytes explained are the bytes /data serves, every one covered.
        assert_eq!(v["bytes"], served.body.len(), "{format}");
        let spans = v["spans"].as_array().unwrap();
        let covered: u64 = spans.iter().map(|s| s["length"].as_u64().unwrap()).sum();
        assert_eq!(covered as usize, served.body.len(), "{format}");
        // The explainer read the document back.
        assert_eq!(v["document"], document, "{format}");
        // Bytes linked to fields: each span to the root member it belongs
        // to (`tops` indexes `members`, -1 for the root's own framing), and
        // the bytes of each member add up to its `by_member` row.
        let members: Vec<&str> = v["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(members, ["orders", "total"], "{format}");
        let tops = v["tops"].as_array().unwrap();
        assert_eq!(tops.len(), spans.len(), "{format}");
        for (i, m) in members.iter().enumerate() {
            let bytes: u64 = spans
                .iter()
                .zip(tops)
                .filter(|(_, t)| t.as_i64() == Some(i as i64))
                .map(|(s, _)| s["length"].as_u64().unwrap())
                .sum();
            assert!(bytes > 0, "{format}: no bytes of {m}");
            assert_eq!(v["by_member"][m], bytes, "{format}: {m}");
        }
        assert!(
            v["by_member"]["orders"].as_u64().unwrap() > 0,
            "{format}: {}",
            v["by_member"]
        );
        let mut gz = Vec::new();
        wirebench::gzip::compress(&served.body, wirebench::gzip::DEFAULT_LEVEL, &mut gz);
        assert_eq!(v["gzip_bytes"], gz.len(), "{format}");
        assert_eq!(unknown_fields(spans, &document), Vec::<String>::new(), "{format}");
        for path in ["orders[0].tags.gift", "orders[1].note", "total"] {
            assert!(bytes_of(spans, path) > 0, "{format}: no bytes of {path}");
        }
    }
    for (bad, status) in [
        ("/explain/json?payload=data&count=2", 400),
        ("/explain/flatbuffers?payload=data&share=strings", 400),
        ("/explain/json?payload=other", 400),
    ] {
        assert_eq!(get(&mut c, bad, "application/json").status, status, "{bad}");
    }
    // Without --data: the page is told, and the route says which flag serves it.
    let plain = server::start();
    let mut p = Client::connect(plain.local_addr());
    assert_eq!(json(&p.get("/page/info.json"))["data"], false);
    let r = get(&mut p, "/explain/json?payload=data", "application/json");
    assert_eq!(r.status, 404);
    assert!(r.text().contains("serve --data"), "{}", r.text());
}

/// The JSON path of every value in `v` below `prefix` (`orders[0].tags.gift`).
fn paths(v: &serde_json::Value, prefix: &str, out: &mut Vec<String>) {
    let mut child = |step: String, c: &serde_json::Value| {
        let p = if prefix.is_empty() || step.starts_with('[') {
            format!("{prefix}{step}")
        } else {
            format!("{prefix}.{step}")
        };
        paths(c, &p, out);
        out.push(p);
    };
    match v {
        serde_json::Value::Object(m) => m.iter().for_each(|(k, c)| child(k.clone(), c)),
        serde_json::Value::Array(a) => a.iter().enumerate().for_each(|(i, c)| child(format!("[{i}]"), c)),
        _ => {}
    }
}

/// The spans' `fields` that name no value of `document` (nor `(envelope)`).
fn unknown_fields(spans: &[serde_json::Value], document: &serde_json::Value) -> Vec<String> {
    let mut known = vec!["(envelope)".to_string()];
    paths(document, "", &mut known);
    let fields = spans.iter().flat_map(|s| s["fields"].as_array().unwrap());
    fields
        .map(|f| f.as_str().unwrap().to_string())
        .filter(|f| !known.contains(f))
        .collect()
}

/// The bytes of the spans `path` owns.
fn bytes_of(spans: &[serde_json::Value], path: &str) -> u64 {
    let owned = spans
        .iter()
        .filter(|s| s["fields"].as_array().unwrap().iter().any(|f| f == path));
    owned.map(|s| s["length"].as_u64().unwrap()).sum()
}

#[test]
fn the_path_checker_rejects_a_path_the_document_lacks() {
    let document: serde_json::Value = serde_json::from_str(DOCUMENT).unwrap();
    let span = |f: &str| serde_json::json!({"length": 2, "fields": [f]});
    let good = [
        span("(envelope)"),
        span("orders[0].tags.gift"),
        span("orders[1].note"),
        span("total"),
    ];
    assert_eq!(unknown_fields(&good, &document), Vec::<String>::new());
    for bad in [
        "orders[0].tags.nope",
        "orders[2]",
        "products[0].name",
        "$.total",
        "tags.gift",
    ] {
        assert_eq!(unknown_fields(&[span("total"), span(bad)], &document), [bad], "{bad}");
    }
    assert_eq!((bytes_of(&good, "total"), bytes_of(&good, "orders[0].note")), (2, 0));
}
