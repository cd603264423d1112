//! Routing: the one route table of `wirebench serve`. Every payload route
//! (`/catalog/{format}`, `/catalog` with the format by `Accept`
//! ([`super::negotiate`]), and with `serve --data` the same two under `/data`)
//! takes the same query, negotiates the same way, answers `HEAD`, links its
//! schema and reports errors alike ([`super::payloads`] says what differs).
//! Besides: `/ping`, `/metrics`, `/schemas/{file}`, `/`, `/explain/{format}`;
//! the browser page's routes are [`super::page`]'s. Errors are JSON (400, 404,
//! 405 + `Allow`, 406) and say what was wrong and what is allowed.
//!
//! Order of checks: the path decides the resource (unknown → 404), then the
//! method (anything but GET or HEAD → 405), then the query (unknown or bad
//! parameter → 400). Query values are taken literally (no percent-decoding:
//! no legal value needs it), so `count=1%30` is a bad count, not 10.
//!
//! [`App`] is the [`Handler`] the server serves and knows nothing of. Every
//! payload request encodes afresh into the worker's reused buffer; there is no
//! response cache (docs/SPEC.md, "Routes").

use super::config::Config;
pub use super::metrics::{Label, METRICS};
use super::negotiate;
use super::payloads::{self, DOCUMENT_SCHEMAS, Kind, SCHEMAS};
use crate::codec::Format;
pub use crate::http::buffers::Scratch;
use crate::http::metrics::{Exposition, Layout};
use crate::http::parse::Request;
pub use crate::http::response::{Body, Reply};
use crate::http::response::{Head, JSON, TEXT, VARY};
use crate::http::server::Server;
use crate::http::shared::Handler;
use crate::model::Product;
use crate::payload::{Document, Payload};
use std::io;
use std::sync::Arc;
use std::time::Instant;

/// Every route the router answers as docs/SPEC.md's and docs/HTTP.md's
/// "Routes" tables name them (`{format}`, `{file}`: a path segment);
/// `tests/facts/` holds both tables and `/metrics`' `route` labels to it.
pub const ROUTES: [&str; 7] = [
    "/",
    "/ping",
    "/metrics",
    "/catalog",
    "/catalog/{format}",
    "/explain/{format}",
    "/schemas/{file}",
];

/// `serve --data`'s routes; `/metrics` counts them under `other` and
/// `/schemas/{file}`.
pub const DATA_ROUTES: [&str; 5] = [
    "/data",
    "/data/{format}",
    "/schemas/data.avsc",
    "/schemas/data.proto",
    "/schemas/data.fbs",
];

/// The browser page's own routes (`page.rs`); `/metrics` counts them under
/// the label `other`.
pub const PAGE_ROUTES: [&str; 7] = [
    "/page/app.js",
    "/page/style.css",
    "/page/info.json",
    "/lab",
    "/lab/{i}",
    "/results",
    "/results/{chart}.svg",
];

/// The body of `/ping`: the zero-codec baseline.
pub const PONG: &[u8] = br#"{"message":"pong"}"#;

/// What every worker reads: the prepared products, the document of
/// `--data`, the page's data.
#[derive(Debug)]
pub struct App {
    /// Shared with the encoder threads.
    pub products: Arc<Vec<Product>>,
    /// The catalog of every product prepared; a request cuts it to its `count`.
    pub catalog: Payload,
    /// Largest `count` accepted: min(`--max-count`, products prepared).
    pub max_count: usize,
    /// The browser page's data: the evolution lab, the results directory.
    pub page: super::page_data::Page,
    /// `serve --data`: the document under `/data`.
    pub data: Option<Payload>,
}

impl App {
    /// Loads or generates the products, and loads `--data`, before anything listens.
    pub fn prepare(config: &Config) -> io::Result<App> {
        let mut products = match &config.fixture {
            Some(path) => {
                crate::fixtures::load_file(path)
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?
                    .products
            }
            None => crate::fixtures::catalog(config.max_count).products,
        };
        products.truncate(config.max_count);
        if products.is_empty() {
            let e = "no products to serve: the fixture is empty or --max-count is 0";
            return Err(io::Error::new(io::ErrorKind::InvalidInput, e));
        }
        let data = match &config.data {
            Some((data, schema)) => {
                let schema = schema.as_ref().map(|p| p.to_string_lossy().into_owned());
                let doc = Document::load(&data.to_string_lossy(), schema.as_deref())
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
                Some(Payload::document(doc))
            }
            None => None,
        };
        let products = Arc::new(products);
        Ok(App {
            data,
            max_count: products.len(),
            catalog: Payload::catalog(Arc::clone(&products)),
            products,
            page: config.page.clone(),
        })
    }
}

impl Handler for App {
    fn handle(&self, req: &Request<'_>, s: &mut Scratch, metrics: &Exposition<'_>) -> Reply {
        handle(self, req, s, metrics)
    }

    fn layout(&self) -> &'static Layout {
        &METRICS
    }
}

/// `wirebench serve`'s application ([`App::prepare`]) on a server bound to
/// `config.server.addr`, accepting. Returns once the socket is listening.
pub fn start(config: &Config) -> io::Result<Server> {
    let app = App::prepare(config)?;
    Server::bind_with(config.server.clone(), Box::new(app))?.start()
}

enum Route {
    Index,
    Ping,
    Metrics,
    /// A payload in a format, or (`None`) the format `Accept` chooses.
    Payload(Kind, Option<Format>),
    Explain(Format),
    Schema(usize),
    DocumentSchema(usize),
}

const FORMATS: &str = "json, msgpack, protobuf, avro, flatbuffers";

/// Media type of `/metrics` (Prometheus text exposition format 0.0.4).
pub const METRICS_CONTENT_TYPE: &str = "text/plain; version=0.0.4";

/// Builds the response to one request. Never fails: every problem is a reply.
/// `/ping`, `/metrics` and `/catalog` (claimed by neither the page nor
/// `--data`) are matched first, every other path in [`other_route`]. Error
/// replies are built out of line: a worker's stack is cold at each turn, so
/// the common path keeps a small frame.
pub fn handle(app: &App, req: &Request<'_>, s: &mut Scratch, metrics: &Exposition<'_>) -> Reply {
    let method = req.method;
    let target = origin_form(req.target);
    let (path, query) = match target.bytes().position(|b| b == b'?') {
        Some(i) => (&target[..i], &target[i + 1..]),
        None => (target, ""),
    };
    let route = match path {
        "/ping" => Route::Ping,
        "/metrics" => Route::Metrics,
        "/catalog" => Route::Payload(Kind::Catalog, None),
        _ => match other_route(app, req, path, query, s) {
            Ok(route) => route,
            Err(reply) => return reply,
        },
    };
    let (label, format) = match route {
        Route::Index => (Label::Index, None),
        Route::Ping => (Label::Ping, None),
        Route::Metrics => (Label::Metrics, None),
        Route::Payload(Kind::Catalog, None) => (Label::Negotiated, None),
        Route::Payload(Kind::Catalog, Some(f)) => (Label::Catalog, Some(f)),
        Route::Payload(Kind::Document, f) => (Label::Other, f),
        Route::Explain(f) => (Label::Explain, Some(f)),
        Route::Schema(_) | Route::DocumentSchema(_) => (Label::Schemas, None),
    };
    if method != "GET" && method != "HEAD" {
        let mut reply = Reply::method_not_allowed(&mut s.body, method, path);
        reply.route = label as u8;
        return reply;
    }
    let mut reply = match route {
        Route::Index => no_query(s, query, path).unwrap_or_else(|| index(app)),
        Route::Ping => no_query(s, query, path).unwrap_or(Reply::new(Head::ok(JSON, ""), Body::Static(PONG))),
        Route::Metrics => no_query(s, query, path).unwrap_or_else(|| {
            s.body.clear();
            metrics.render(&mut s.body);
            Reply::new(Head::ok(METRICS_CONTENT_TYPE, ""), Body::Scratch)
        }),
        Route::Schema(i) => {
            no_query(s, query, path).unwrap_or(Reply::new(Head::ok(SCHEMAS[i].1, ""), Body::Static(SCHEMAS[i].2)))
        }
        Route::DocumentSchema(i) => no_query(s, query, path).unwrap_or_else(|| document_schema(app, i, s)),
        Route::Payload(kind, Some(format)) => payload(app, kind, format, None, query, s),
        Route::Payload(kind, None) => negotiated(app, kind, req, query, s),
        Route::Explain(format) => explain(app, format, query, s),
    };
    reply.route = label as u8;
    reply.variant = reply.variant.or(format.map(|f| f as u8));
    reply
}

/// Every path but the three [`handle`] matches itself: the browser page's,
/// `/`, `/data`, and the routes with a `{format}` or `{file}` segment. `Err`
/// is the whole reply (a route of the page, or a 404).
#[inline(never)]
fn other_route(app: &App, req: &Request<'_>, path: &str, query: &str, s: &mut Scratch) -> Result<Route, Reply> {
    let page = super::page::App {
        products: &app.products,
        max_count: app.max_count,
        page: &app.page,
        data: app.data.as_ref(),
    };
    if let Some(reply) = super::page::handle(page, req, path, query, s) {
        return Err(reply);
    }
    let route = match path {
        "/" => return Ok(Route::Index),
        "/data" => Route::Payload(Kind::Document, None),
        "/schemas/data.avsc" => Route::DocumentSchema(0),
        "/schemas/data.proto" => Route::DocumentSchema(1),
        "/schemas/data.fbs" => Route::DocumentSchema(2),
        _ => {
            if let Some(name) = path.strip_prefix("/catalog/") {
                return format_named(name, s).map(|f| Route::Payload(Kind::Catalog, Some(f)));
            }
            if let Some(name) = path.strip_prefix("/explain/") {
                return format_named(name, s).map(Route::Explain);
            }
            if let Some(name) = path.strip_prefix("/data/") {
                format_named(name, s).map(|f| Route::Payload(Kind::Document, Some(f)))?
            } else if let Some(name) = path.strip_prefix("/schemas/") {
                return match SCHEMAS.iter().position(|f| f.0 == name) {
                    Some(i) => Ok(Route::Schema(i)),
                    None => {
                        let mut names: Vec<&str> = SCHEMAS.iter().map(|f| f.0).collect();
                        if app.data.is_some() {
                            names.extend(DOCUMENT_SCHEMAS.iter().map(|(n, _, _)| *n));
                        }
                        let msg = format!("unknown schema file {name:?}; files: {}", names.join(", "));
                        Err(s.error(404, &msg, ""))
                    }
                };
            } else {
                return Err(not_found(app, path, s));
            }
        }
    };
    // The document's routes: a 404 naming the flag when it is not served.
    if app.data.is_none() {
        let mut reply = s.error(404, &format!("{path} is served with `serve --data FILE.json`"), "");
        if matches!(route, Route::DocumentSchema(_)) {
            reply.route = Label::Schemas as u8;
        }
        return Err(reply);
    }
    Ok(route)
}

#[cold]
#[inline(never)]
fn not_found(app: &App, path: &str, s: &mut Scratch) -> Reply {
    let data = if app.data.is_some() {
        ", /data/{format}, /data"
    } else {
        ""
    };
    let msg = format!(
        "no resource at {path:?}; try /, /ping, /catalog/{{{0}}}, /catalog{data}, /explain/{{{0}}}, /schemas/{{file}}, /metrics",
        FORMATS.replace(", ", "|")
    );
    s.error(404, &msg, "")
}

/// `/schemas/data.*`: the document's schema, or a 404 when it has no such derivation.
fn document_schema(app: &App, i: usize, s: &mut Scratch) -> Reply {
    let (name, ext, content_type) = DOCUMENT_SCHEMAS[i];
    match app
        .data
        .as_ref()
        .and_then(Payload::as_document)
        .and_then(|d| d.schema_text(ext))
    {
        Some(text) => s.ok(content_type, "", text.as_bytes()),
        None => s.error(404, &format!("the schema of --data has no {name} derivation"), ""),
    }
}

/// `/catalog` or `/data`: the format chosen by `Accept`.
#[inline(never)]
fn negotiated(app: &App, kind: Kind, req: &Request<'_>, query: &str, s: &mut Scratch) -> Reply {
    match negotiate::choose(req.header_values("accept")) {
        Ok(offer) => payload(app, kind, offer.format, Some(offer.media_type), query, s),
        Err(negotiate::Error::NotAcceptable) => not_acceptable(s),
        Err(e) => s.error(400, &e.to_string(), VARY),
    }
}

/// 406: the JSON error lists the media types served.
#[cold]
fn not_acceptable(s: &mut Scratch) -> Reply {
    let types: Vec<&str> = negotiate::OFFERS.iter().map(|o| o.media_type).collect();
    let msg = format!(
        "none of the media types in Accept is served here; available: {}",
        types.join(", ")
    );
    let reply = s.error(406, &msg, VARY);
    // `{"error":"…"}` → `{"error":"…","available":[…]}` (media types need no escaping)
    s.body.pop();
    let quoted: Vec<String> = types.iter().map(|t| format!("\"{t}\"")).collect();
    s.body
        .extend_from_slice(format!(",\"available\":[{}]}}", quoted.join(",")).as_bytes());
    reply
}

/// Most products `/explain/{format}` annotates: a dump is ~40 lines per product.
pub const EXPLAIN_MAX_COUNT: usize = 100;

/// `/explain/{format}?count=N`: the same text as `wirebench explain FORMAT --count N`.
#[inline(never)]
fn explain(app: &App, format: Format, query: &str, s: &mut Scratch) -> Reply {
    let max = EXPLAIN_MAX_COUNT.min(app.max_count);
    let mut count = 1;
    for param in query.split('&').filter(|p| !p.is_empty()) {
        match param.split_once('=').unwrap_or((param, "")) {
            ("count", value) => match parse_count(value, max) {
                Ok(n) => count = n,
                Err(msg) => return s.error(400, &msg, ""),
            },
            (other, _) => {
                return s.error(400, &format!("unknown query parameter {other:?}; allowed: count"), "");
            }
        }
    }
    if s.admit(count.saturating_mul(EXPLAIN_BYTES_PER_PRODUCT), false)
        .is_none()
    {
        return over_budget(s);
    }
    s.body.clear();
    if let Err(e) = format.encode(&app.products[..count], &mut s.body) {
        return s.error(500, &format!("encoding {} failed: {e}", format.name()), "");
    }
    let text = match crate::explain::explain_text(format, &s.body, true) {
        Ok(text) => text,
        Err(u) => return s.error(500, &format!("explaining {} failed: {}", format.name(), u.error), ""),
    };
    s.ok(TEXT, "", text.as_bytes())
}

/// Strips `http://host` from an absolute-form target (RFC 9112 §3.2.2).
fn origin_form(target: &str) -> &str {
    for scheme in ["http://", "https://"] {
        if let Some(rest) = target.get(..scheme.len()).filter(|p| p.eq_ignore_ascii_case(scheme)) {
            let rest = &target[rest.len()..];
            return rest.find('/').map_or("/", |i| &rest[i..]);
        }
    }
    target
}

/// The format a path segment names, else a 404 listing the formats.
fn format_named(name: &str, s: &mut Scratch) -> Result<Format, Reply> {
    Format::from_name(name).ok_or_else(|| {
        let msg = format!("unknown format {name:?}; formats: {FORMATS}");
        s.error(404, &msg, "")
    })
}

/// An upper bound of one product's annotated dump (JSON: ~12 KB for one
/// product, with its legend); tested like [`payloads::BYTES_PER_PRODUCT`].
pub const EXPLAIN_BYTES_PER_PRODUCT: usize = 16 * 1024;

/// 503 + `Retry-After` when the in-flight response budget stays full.
#[cold]
fn over_budget(s: &mut Scratch) -> Reply {
    s.error(503, crate::http::admission::REFUSED, "Retry-After: 1\r\n")
}

#[inline]
fn no_query(s: &mut Scratch, query: &str, path: &str) -> Option<Reply> {
    if query.is_empty() {
        return None;
    }
    bad_query(s, query, path)
}

/// [`no_query`] when there is a query: 400 unless every parameter is empty.
#[cold]
#[inline(never)]
fn bad_query(s: &mut Scratch, query: &str, path: &str) -> Option<Reply> {
    let param = query.split('&').find(|p| !p.is_empty())?;
    let name = param.split_once('=').map_or(param, |(n, _)| n);
    let msg = format!("unknown query parameter {name:?}; {path} takes no parameters");
    Some(s.error(400, &msg, ""))
}

/// Parameters of a payload route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PayloadQuery {
    /// Products asked for (1 for the document, which has no `count`).
    pub count: usize,
    /// The gzip level asked for (`compression=gzip` is level 6), None for none.
    pub gzip: Option<u8>,
}

/// Parses `count=N&compression=none|gzip|gzip1|gzip6|gzip9`; the error
/// names the parameter and what is allowed. `max_count` is `None` for a
/// payload without products to count (the document): `count` is then an
/// unknown parameter.
pub fn parse_query(query: &str, max_count: Option<usize>) -> Result<PayloadQuery, String> {
    let mut count = None;
    let mut gzip = None;
    for param in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = param.split_once('=').unwrap_or((param, ""));
        match (name, max_count) {
            ("count", Some(max)) => {
                if count.is_some() {
                    return Err("count given more than once".into());
                }
                count = Some(parse_count(value, max)?);
            }
            ("compression", _) => {
                if gzip.is_some() {
                    return Err("compression given more than once".into());
                }
                gzip = Some(match value {
                    "gzip" | "gzip6" => Some(crate::gzip::DEFAULT_LEVEL),
                    "gzip1" => Some(1),
                    "gzip9" => Some(9),
                    "none" => None,
                    other => {
                        return Err(format!(
                            "compression must be none, gzip, gzip1, gzip6 or gzip9, got {other:?}"
                        ));
                    }
                });
            }
            (other, Some(_)) => {
                return Err(format!(
                    "unknown query parameter {other:?}; allowed: count, compression"
                ));
            }
            (other, None) => {
                return Err(format!("unknown query parameter {other:?}; allowed: compression"));
            }
        }
    }
    Ok(PayloadQuery {
        count: count.unwrap_or(max_count.map_or(1, |max| DEFAULT_COUNT.min(max))),
        gzip: gzip.unwrap_or(None),
    })
}

/// `count` when the query has none (docs/SPEC.md, "Routes").
pub const DEFAULT_COUNT: usize = 100;

/// Decimal digits only (no sign, no exponent), 1 ..= `max`.
fn parse_count(value: &str, max: usize) -> Result<usize, String> {
    let bad = || format!("count must be an integer from 1 to {max}, got {value:?}");
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    match value.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(bad()),
    }
}

/// A payload route: `/catalog/{format}` or `/data/{format}`, or either
/// negotiated to `media_type`. The catalog and the document go through
/// the same steps: query, admission, encode (large bodies on the encoder
/// threads), gzip when asked, `Link` and `Vary`.
#[inline(never)]
fn payload(
    app: &App,
    kind: Kind,
    format: Format,
    negotiated: Option<&'static str>,
    query: &str,
    s: &mut Scratch,
) -> Reply {
    let vary = if negotiated.is_some() { VARY } else { "" };
    let max_count = match kind {
        Kind::Catalog => Some(app.max_count),
        Kind::Document => None,
    };
    let q = match parse_query(query, max_count) {
        Ok(q) => q,
        Err(msg) => return s.error(400, &msg, vary),
    };
    let payload = match kind {
        Kind::Catalog => app.catalog.with_count(q.count),
        Kind::Document => app.data.clone(),
    };
    let Some(payload) = payload else {
        return s.error(404, "/data is served with `serve --data FILE.json`", vary);
    };
    let Some(size) = s.admit(payloads::reserve(&payload, format), q.gzip.is_some()) else {
        return over_budget(s);
    };
    let t0 = Instant::now();
    // On the encoder thread for large bodies, gzip included when asked.
    let encoded = s.encode(size, q.gzip, move |out| {
        payload
            .encode(format, out)
            .map_err(|e| format!("encoding {} failed: {e}", format.name()))
    });
    let encode_ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX).max(1);
    if let Err(msg) = encoded {
        return s.error(500, &msg, vary);
    }
    let mut head = Head::ok(
        negotiated.unwrap_or(format.content_type()),
        payloads::headers(kind, format, negotiated.is_some()),
    );
    let body = if q.gzip.is_some() {
        head.gzip = true; // at the asked level, compressed by `Scratch::encode`
        Body::Gzipped
    } else {
        Body::Scratch
    };
    let mut reply = Reply::new(head, body);
    reply.variant = Some(format as u8);
    reply.encode_ns = encode_ns;
    reply
}

/// The text index at `/`: what this server serves.
fn index(app: &App) -> Reply {
    macro_rules! index {
        ($data:expr) => {
            concat!(
                "\
wirebench: one product catalog in five wire formats.

GET|HEAD /catalog/{json|msgpack|protobuf|avro|flatbuffers}?count=N&compression=none|gzip|gzip1|gzip6|gzip9
    the first N products (default 100) in that format; gzip only when asked
GET|HEAD /catalog?count=N&compression=none|gzip|gzip1|gzip6|gzip9
    the same, the format chosen by the Accept header (JSON when any will do)
",
                $data,
                "\
GET|HEAD /ping
    {\"message\":\"pong\"}, the zero-codec baseline
GET|HEAD /metrics
    the server's counters in the Prometheus text format
GET|HEAD /explain/{json|msgpack|protobuf|avro|flatbuffers}?count=N
    every byte of the first N products (default 1, at most 100), annotated
GET|HEAD /schemas/{catalog.proto|catalog.avsc|catalog.fbs}
    the schemas a client needs to decode protobuf, avro and flatbuffers
"
            )
        };
    }
    const CATALOG: &str = index!("");
    const WITH_DATA: &str = index!(
        "\
GET|HEAD /data/{json|msgpack|protobuf|avro|flatbuffers}?compression=none|gzip|gzip1|gzip6|gzip9
    the document of `serve --data` in that format; gzip only when asked
GET|HEAD /data?compression=none|gzip|gzip1|gzip6|gzip9
    the same, the format chosen by the Accept header
GET|HEAD /schemas/{data.avsc|data.proto|data.fbs}
    the document's Avro schema and the .proto and .fbs derived from it
"
    );
    let text = if app.data.is_some() { WITH_DATA } else { CATALOG };
    Reply::new(Head::ok(TEXT, ""), Body::Static(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count gzip` of a query, or its error, with at most 1000 products
    /// (`Some`) or for the document (`None`).
    fn parsed(query: &str, max_count: Option<usize>) -> String {
        match parse_query(query, max_count) {
            Ok(q) => format!("{} {:?}", q.count, q.gzip),
            Err(e) => e,
        }
    }

    #[test]
    fn queries() {
        // One case a row: the query, " => ", its count and gzip level or its error.
        for row in [
            " => 100 None",
            "count=1 => 1 None",
            "count=1000&compression=gzip => 1000 Some(6)",
            "compression=gzip1 => 100 Some(1)",
            "compression=gzip6 => 100 Some(6)",
            "compression=gzip9 => 100 Some(9)",
            "compression=none&&count=007& => 7 None",
            "count => count must be an integer from 1 to 1000, got \"\"",
            "count=1&count=2 => count given more than once",
            "compression=br => compression must be none, gzip, gzip1, gzip6 or gzip9, got \"br\"",
            "compression=gzip2 => compression must be none, gzip, gzip1, gzip6 or gzip9, got \"gzip2\"",
            "compression=gzip&compression=none => compression given more than once",
            "limit=5 => unknown query parameter \"limit\"; allowed: count, compression",
        ] {
            let (query, expected) = row.split_once(" => ").unwrap();
            assert_eq!(parsed(query, Some(1000)), expected, "query {query:?}");
        }
        for v in [
            "0",
            "-1",
            "abc",
            "1e3",
            "99999999999999999999",
            "1001",
            "",
            "+5",
            " 5",
            "1%30",
        ] {
            let expected = format!("count must be an integer from 1 to 1000, got {v:?}");
            assert_eq!(parsed(&format!("count={v}"), Some(1000)), expected);
        }
        // The document has no products to count: the same query less `count`.
        assert_eq!(parsed("", None), "1 None");
        assert_eq!(parsed("compression=gzip9", None), "1 Some(9)");
        let unknown = "unknown query parameter \"count\"; allowed: compression";
        assert_eq!(parsed("count=2", None), unknown);
    }

    #[test]
    fn budget_estimates_bound_the_real_sizes() {
        let products = crate::fixtures::catalog(1000).products;
        for format in Format::ALL {
            for n in [1, 10, 1000] {
                let len = format.encode_to_vec(&products[..n]).unwrap().len();
                assert!(len <= n * payloads::BYTES_PER_PRODUCT, "{format:?} {n}: {len} bytes");
            }
            for n in [1, 100] {
                let bytes = format.encode_to_vec(&products[..n]).unwrap();
                let text = crate::explain::explain_text(format, &bytes, true).unwrap();
                assert!(
                    text.len() <= n * EXPLAIN_BYTES_PER_PRODUCT,
                    "{format:?} explain {n}: {}",
                    text.len()
                );
            }
        }
    }

    #[test]
    fn absolute_form_targets() {
        assert_eq!(origin_form("http://example.com/ping?x"), "/ping?x");
        assert_eq!(origin_form("HTTP://example.com"), "/");
        assert_eq!(origin_form("/ping"), "/ping");
    }

    mod document {
        use super::super::*;
        use crate::http::config::ServerConfig;
        use crate::http::memory::Resources;
        use crate::http::metrics::Registry;
        use crate::http::parse::{Limits, Parsed, parse};

        const DOC: &str = r#"{"items":[{"id":1,"name":"a"},{"id":2,"name":"bb"}],"note":"hi"}"#;

        fn app(name: &str) -> App {
            let dir = std::env::temp_dir().join(format!("wirebench-data-admission-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("{name}.json"));
            std::fs::write(&path, DOC).unwrap();
            let config = crate::serve::Config {
                max_count: 10,
                data: Some((path.clone(), None)),
                ..Default::default()
            };
            // The document is read once, here; the file is not needed after.
            let app = App::prepare(&config).unwrap();
            let _ = std::fs::remove_file(&path);
            let _ = std::fs::remove_dir(&dir);
            app
        }

        fn resources(max_inflight_bytes: usize) -> Arc<Resources> {
            let config = ServerConfig {
                max_inflight_bytes,
                budget_wait: std::time::Duration::ZERO,
                ..ServerConfig::default()
            };
            Arc::new(Resources::new(&config, 1, None).unwrap())
        }

        fn get(app: &App, path: &str, accept: &str, s: &mut Scratch) -> Reply {
            let raw = format!("GET {path} HTTP/1.1\r\nHost: x\r\nAccept: {accept}\r\n\r\n");
            let Ok(Parsed::Complete(req)) = parse(raw.as_bytes(), &Limits::default()) else {
                panic!("request does not parse");
            };
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let registry = Registry::new(&METRICS);
            handle(app, &req, s, &Exposition::new(&registry, &listener))
        }

        fn size(app: &App, format: Format) -> usize {
            app.data.as_ref().unwrap().size(format).unwrap()
        }

        #[test]
        fn a_data_body_holds_its_bytes_of_the_budget_until_released() {
            let app = app("held");
            let res = resources(1 << 20);
            for (path, accept, format) in [
                ("/data/avro", "*/*", Format::Avro),
                ("/data/flatbuffers", "*/*", Format::Flatbuffers),
                ("/data", "application/vnd.msgpack", Format::Msgpack),
            ] {
                let mut s = Scratch::new(Arc::clone(&res));
                let r = get(&app, path, accept, &mut s);
                assert_eq!(r.head.status, 200, "{path}");
                assert_eq!(
                    s.body.len(),
                    size(&app, format),
                    "{path}: the reservation is the exact size"
                );
                assert_eq!(
                    res.admission.in_use(),
                    size(&app, format),
                    "{path}: reserved while held"
                );
                s.settle();
                assert_eq!(res.admission.in_use(), s.body.len(), "{path}");
                s.release();
                assert_eq!(res.admission.in_use(), 0, "{path}: given back");
            }
            // Schemas are static text, not admitted (like the catalog's).
            let mut s = Scratch::new(Arc::clone(&res));
            assert_eq!(get(&app, "/schemas/data.avsc", "*/*", &mut s).head.status, 200);
            assert_eq!(res.admission.in_use(), 0);
        }

        #[test]
        fn a_data_body_beyond_the_budget_gets_the_catalogs_refusal() {
            let app = app("refused");
            let json = size(&app, Format::Json);
            let res = resources(json + 1);
            let mut holder = Scratch::new(Arc::clone(&res));
            assert!(holder.admit(json, false).is_some());
            let mut s = Scratch::new(Arc::clone(&res));
            let r = get(&app, "/data/json", "*/*", &mut s);
            assert_eq!(r.head.status, 503);
            assert_eq!(r.head.extra, "Retry-After: 1\r\n");
            assert!(String::from_utf8_lossy(&s.body).contains(crate::http::admission::REFUSED));
            assert_eq!(res.admission.refused(), 1);
            holder.release();
            s.release();
            // Alone, it is served.
            assert_eq!(get(&app, "/data/json", "*/*", &mut s).head.status, 200);
        }
    }
}
