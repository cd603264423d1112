//! Routing: `/catalog/{format}`, `/catalog` (format by `Accept`, see
//! [`super::negotiate`]), `/ping`, `/metrics`, `/schemas/{file}`, `/`, and the
//! JSON errors (400, 404, 405 + `Allow`, 406) that say what was wrong and what
//! is allowed.
//! The browser page's routes (`/` for a browser, the JSON form of
//! `/explain/{format}`, `/page/*`, `/lab`, `/results`) are [`super::page`]'s.
//!
//! Order of checks: the path decides the resource (unknown → 404), then the
//! method (anything but GET or HEAD → 405), then the query (unknown or bad
//! parameter → 400). Query values are taken literally — no percent-decoding,
//! since no legal value needs it — so `count=1%30` is a bad count, not 10.
//!
//! Every catalog request encodes afresh into the worker's reused buffer; there
//! is no response cache (docs/SPEC.md, "Routes").

pub use super::buffers::Scratch;
use super::metrics::Route as Label;
use super::negotiate;
use super::parse::Request;
use super::response::{Head, json_error};
use crate::codec::Format;
use crate::model::Product;
use std::time::Instant;

/// Every route the router answers, as the route tables of docs/SPEC.md,
/// "Routes" and docs/HTTP.md, "Routes" name them (`{format}` and `{file}`
/// stand for a path segment). `tests/facts/` holds both tables and the
/// `route` label list of `/metrics` to this list, and checks that the router
/// serves each one and its path matches name no other.
pub const ROUTES: [&str; 7] = [
    "/",
    "/ping",
    "/metrics",
    "/catalog",
    "/catalog/{format}",
    "/explain/{format}",
    "/schemas/{file}",
];

/// `serve --data`'s routes (`data.rs`); `/metrics` counts them under
/// `other` and `/schemas/{file}`.
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

/// `Allow` header of every route (RFC 9110 §10.2.1).
pub const ALLOW: &str = "Allow: GET, HEAD\r\n";

const JSON: &str = "application/json";
const TEXT: &str = "text/plain; charset=utf-8";

/// The body of `/ping`: the zero-codec baseline.
pub const PONG: &[u8] = br#"{"message":"pong"}"#;

/// A schema file served under `/schemas/`.
#[derive(Debug, Clone)]
pub struct Schema {
    pub name: &'static str,
    pub content_type: &'static str,
    pub bytes: &'static [u8],
}

/// The schema files, compiled into the binary so it is self-contained.
pub const SCHEMAS: [Schema; 3] = [
    Schema {
        name: "catalog.proto",
        content_type: TEXT,
        bytes: include_bytes!("../../schemas/catalog.proto"),
    },
    Schema {
        name: "catalog.avsc",
        content_type: JSON, // an Avro schema is a JSON document
        bytes: include_bytes!("../../schemas/catalog.avsc"),
    },
    Schema {
        name: "catalog.fbs",
        content_type: TEXT,
        bytes: include_bytes!("../../schemas/catalog.fbs"),
    },
];

/// What every worker reads: the prepared products and the schema files.
#[derive(Debug)]
pub struct App {
    /// Shared with the encoder threads.
    pub products: std::sync::Arc<Vec<Product>>,
    /// Largest `count` accepted: min(`--max-count`, products prepared).
    pub max_count: usize,
    pub schemas: &'static [Schema],
    /// The browser page's data: the evolution lab, the results directory.
    pub page: super::page_data::Page,
    /// `serve --data`: the document under `/data` ([`super::data`]).
    pub data: Option<std::sync::Arc<super::data::DataSet>>,
}

/// Which bytes to send after the head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    Static(&'static [u8]),
    /// `Scratch::body`
    Scratch,
    /// `Scratch::gz`
    Gzipped,
    /// `App::schemas[i]`
    Schema(usize),
    /// The metrics exposition, rendered by the connection from the server's
    /// registry into `Scratch::body`.
    Metrics,
}

/// A routed response: head fields plus where its body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply {
    pub head: Head,
    pub body: Body,
    /// What `/metrics` counts this response under.
    pub label: Label,
    pub format: Option<Format>,
    /// Time spent in the codec's encode, ns (0 when nothing was encoded).
    pub encode_ns: u64,
}

impl Reply {
    /// A reply labelled `other` with no format; [`handle`] sets the label.
    pub fn new(head: Head, body: Body) -> Reply {
        Reply {
            head,
            body,
            label: Label::Other,
            format: None,
            encode_ns: 0,
        }
    }
}

enum Route {
    Index,
    Ping,
    Metrics,
    Negotiated,
    Catalog(Format),
    Explain(Format),
    Schema(usize),
}

const FORMATS: &str = "json, msgpack, protobuf, avro, flatbuffers";

/// Media type of `/metrics` (Prometheus text exposition format 0.0.4).
pub const METRICS_CONTENT_TYPE: &str = "text/plain; version=0.0.4";

/// Builds the response to one request. Never fails: every problem is a reply.
///
/// The paths of `/ping`, `/metrics` and `/catalog` are claimed by neither
/// `--data` nor the browser page, so they are matched first; every other
/// path goes through [`other_route`]. Error replies are built out of line:
/// a worker's stack is cold each time its connection's turn comes (one
/// thread per connection), and every stack line the common path touches is
/// a cache miss, so the common path keeps a small frame.
pub fn handle(app: &App, req: &Request<'_>, s: &mut Scratch) -> Reply {
    let method = req.method;
    let target = origin_form(req.target);
    let (path, query) = match target.bytes().position(|b| b == b'?') {
        Some(i) => (&target[..i], &target[i + 1..]),
        None => (target, ""),
    };
    let route = match path {
        "/ping" => Route::Ping,
        "/metrics" => Route::Metrics,
        "/catalog" => Route::Negotiated,
        _ => match other_route(app, req, path, query, s) {
            Ok(route) => route,
            Err(reply) => return reply,
        },
    };
    let (label, format) = match route {
        Route::Index => (Label::Index, None),
        Route::Ping => (Label::Ping, None),
        Route::Metrics => (Label::Metrics, None),
        Route::Negotiated => (Label::Negotiated, None),
        Route::Catalog(f) => (Label::Catalog, Some(f)),
        Route::Explain(f) => (Label::Explain, Some(f)),
        Route::Schema(_) => (Label::Schemas, None),
    };
    if method != "GET" && method != "HEAD" {
        return method_not_allowed(s, method, path, label);
    }
    let mut reply = match route {
        Route::Index => {
            no_query(s, query, path).unwrap_or(Reply::new(Head::ok(TEXT, ""), Body::Static(INDEX.as_bytes())))
        }
        Route::Ping => no_query(s, query, path).unwrap_or(Reply::new(Head::ok(JSON, ""), Body::Static(PONG))),
        Route::Metrics => {
            no_query(s, query, path).unwrap_or(Reply::new(Head::ok(METRICS_CONTENT_TYPE, ""), Body::Metrics))
        }
        Route::Schema(i) => {
            no_query(s, query, path).unwrap_or(Reply::new(Head::ok(app.schemas[i].content_type, ""), Body::Schema(i)))
        }
        Route::Catalog(format) => catalog(app, format, None, query, s),
        Route::Negotiated => negotiated(app, req, query, s),
        Route::Explain(format) => explain(app, format, query, s),
    };
    reply.label = label;
    reply.format = reply.format.or(format);
    reply
}

/// Every path but the three [`handle`] matches itself: `--data`'s routes,
/// the browser page's, `/`, and the routes with a `{format}` or `{file}`
/// segment. `Err` is the whole reply (a route of the data set or the page,
/// or a 404).
#[inline(never)]
fn other_route(app: &App, req: &Request<'_>, path: &str, query: &str, s: &mut Scratch) -> Result<Route, Reply> {
    if let Some(a) = super::data::route(app.data.as_deref(), req, path, query, s) {
        let mut reply = Reply::new(a.head, Body::Scratch);
        reply.label = if a.schema { Label::Schemas } else { Label::Other };
        (reply.format, reply.encode_ns) = (a.format, a.encode_ns);
        return Err(reply);
    }
    let page = super::page::App {
        products: &app.products,
        max_count: app.max_count,
        page: &app.page,
    };
    if let Some(p) = super::page::handle(page, req, path, query, s) {
        let body = p.body.map_or(Body::Scratch, Body::Static);
        return Err(Reply {
            head: p.head,
            body,
            label: p.label,
            format: p.format,
            encode_ns: 0,
        });
    }
    if path == "/" {
        return Ok(Route::Index);
    }
    if let Some(name) = path.strip_prefix("/catalog/") {
        return format_named(name, s).map(Route::Catalog);
    }
    if let Some(name) = path.strip_prefix("/explain/") {
        return format_named(name, s).map(Route::Explain);
    }
    if let Some(name) = path.strip_prefix("/schemas/") {
        return match app.schemas.iter().position(|f| f.name == name) {
            Some(i) => Ok(Route::Schema(i)),
            None => {
                let names: Vec<&str> = app.schemas.iter().map(|f| f.name).collect();
                let msg = format!("unknown schema file {name:?}; files: {}", names.join(", "));
                Err(error(s, 404, &msg, ""))
            }
        };
    }
    let msg = format!(
        "no resource at {path:?}; try /, /ping, /catalog/{{{0}}}, /catalog, /explain/{{{0}}}, /schemas/{{file}}, /metrics",
        FORMATS.replace(", ", "|")
    );
    Err(error(s, 404, &msg, ""))
}

/// 405 with `Allow`, counted under the route's label.
#[cold]
#[inline(never)]
fn method_not_allowed(s: &mut Scratch, method: &str, path: &str, label: Label) -> Reply {
    let msg = format!("method {method} is not allowed on {path}; allowed: GET, HEAD");
    let mut reply = error(s, 405, &msg, ALLOW);
    reply.label = label;
    reply
}

/// `/catalog`: the format chosen by `Accept`.
#[inline(never)]
fn negotiated(app: &App, req: &Request<'_>, query: &str, s: &mut Scratch) -> Reply {
    match negotiate::choose(req.header_values("accept")) {
        Ok(offer) => catalog(app, offer.format, Some(offer.media_type), query, s),
        Err(negotiate::Error::NotAcceptable) => not_acceptable(s),
        Err(e) => error(s, 400, &e.to_string(), VARY),
    }
}

/// On every response of `/catalog`: caches must key it by `Accept` (RFC 9110 §12.5.5).
const VARY: &str = "Vary: Accept\r\n";

/// 406 for `/catalog`: the JSON error lists the media types served.
fn not_acceptable(s: &mut Scratch) -> Reply {
    let types: Vec<&str> = negotiate::OFFERS.iter().map(|o| o.media_type).collect();
    s.body.clear();
    let msg = format!(
        "none of the media types in Accept is served here; available: {}",
        types.join(", ")
    );
    json_error(&mut s.body, &msg);
    // `{"error":"…"}` → `{"error":"…","available":[…]}` (media types need no escaping)
    s.body.pop();
    s.body.extend_from_slice(b",\"available\":[");
    for (i, t) in types.iter().enumerate() {
        if i > 0 {
            s.body.push(b',');
        }
        s.body.push(b'"');
        s.body.extend_from_slice(t.as_bytes());
        s.body.push(b'"');
    }
    s.body.extend_from_slice(b"]}");
    Reply::new(
        Head {
            status: 406,
            content_type: JSON,
            extra: VARY,
            gzip: false,
        },
        Body::Scratch,
    )
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
                Err(msg) => return error(s, 400, &msg, ""),
            },
            (other, _) => {
                return error(
                    s,
                    400,
                    &format!("unknown query parameter {other:?}; allowed: count"),
                    "",
                );
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
        return error(s, 500, &format!("encoding {} failed: {e}", format.name()), "");
    }
    let text = match crate::explain::explain_text(format, &s.body, true) {
        Ok(text) => text,
        Err(u) => return error(s, 500, &format!("explaining {} failed: {}", format.name(), u.error), ""),
    };
    s.body.clear();
    s.body.extend_from_slice(text.as_bytes());
    Reply::new(Head::ok(TEXT, ""), Body::Scratch)
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
        error(s, 404, &msg, "")
    })
}

fn error(s: &mut Scratch, status: u16, message: &str, extra: &'static str) -> Reply {
    Reply::new(Head::error(&mut s.body, status, message, extra), Body::Scratch)
}

/// An upper bound of one fixture product's encoding in any format (JSON,
/// the largest, averages ~620 bytes); a unit test holds it above the real size.
pub const BYTES_PER_PRODUCT: usize = 768;

/// An upper bound of one product's annotated dump (JSON: ~12 KB for one product, with its legend); tested like [`BYTES_PER_PRODUCT`].
pub const EXPLAIN_BYTES_PER_PRODUCT: usize = 16 * 1024;

/// 503 + `Retry-After` when the in-flight response budget stays full.
fn over_budget(s: &mut Scratch) -> Reply {
    error(s, 503, super::admission::REFUSED, "Retry-After: 1\r\n")
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
    Some(error(s, 400, &msg, ""))
}

/// Parameters of `/catalog/{format}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogQuery {
    pub count: usize,
    /// The gzip level asked for (`compression=gzip` is level 6), None for none.
    pub gzip: Option<u8>,
}

/// Parses `count=N&compression=none|gzip|gzip1|gzip6|gzip9`; the error names the parameter and what is allowed.
pub fn parse_catalog_query(query: &str, max_count: usize) -> Result<CatalogQuery, String> {
    let mut count = None;
    let mut gzip = None;
    for param in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = param.split_once('=').unwrap_or((param, ""));
        match name {
            "count" => {
                if count.is_some() {
                    return Err("count given more than once".into());
                }
                count = Some(parse_count(value, max_count)?);
            }
            "compression" => {
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
            other => {
                return Err(format!(
                    "unknown query parameter {other:?}; allowed: count, compression"
                ));
            }
        }
    }
    Ok(CatalogQuery {
        count: count.unwrap_or(DEFAULT_COUNT.min(max_count)),
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

/// `Link` to the schema a client needs (and, for `/catalog`, `Vary: Accept` before it).
macro_rules! link_headers {
    ($prefix:expr, $format:expr) => {
        match $format {
            Format::Avro => concat!($prefix, "Link: </schemas/catalog.avsc>; rel=\"describedby\"\r\n"),
            Format::Protobuf => concat!($prefix, "Link: </schemas/catalog.proto>; rel=\"describedby\"\r\n"),
            Format::Flatbuffers => concat!($prefix, "Link: </schemas/catalog.fbs>; rel=\"describedby\"\r\n"),
            Format::Json | Format::Msgpack => $prefix,
        }
    };
}

/// `/catalog/{format}`, or `/catalog` negotiated to `media_type`.
#[inline(never)]
fn catalog(app: &App, format: Format, negotiated: Option<&'static str>, query: &str, s: &mut Scratch) -> Reply {
    let vary = if negotiated.is_some() { VARY } else { "" };
    let q = match parse_catalog_query(query, app.max_count) {
        Ok(q) => q,
        Err(msg) => return error(s, 400, &msg, vary),
    };
    let Some(size) = s.admit(q.count.saturating_mul(BYTES_PER_PRODUCT), q.gzip.is_some()) else {
        return over_budget(s);
    };
    let t0 = Instant::now();
    // On the encoder thread for large bodies, gzip included when asked.
    let encoded = s.encode(size, format, &app.products, q.count, q.gzip);
    let encode_ns = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX).max(1);
    if let Err(msg) = encoded {
        return error(s, 500, &msg, vary);
    }
    let extra = match negotiated {
        None => link_headers!("", format),
        Some(_) => link_headers!("Vary: Accept\r\n", format),
    };
    let mut head = Head::ok(negotiated.unwrap_or(format.content_type()), extra);
    let body = if q.gzip.is_some() {
        head.gzip = true; // at the asked level, compressed by `Scratch::encode`
        Body::Gzipped
    } else {
        Body::Scratch
    };
    let mut reply = Reply::new(head, body);
    reply.format = Some(format);
    reply.encode_ns = encode_ns;
    reply
}

const INDEX: &str = "\
wirebench: one product catalog in five wire formats.

GET|HEAD /catalog/{json|msgpack|protobuf|avro|flatbuffers}?count=N&compression=none|gzip|gzip1|gzip6|gzip9
    the first N products (default 100) in that format; gzip only when asked
GET|HEAD /catalog?count=N&compression=none|gzip|gzip1|gzip6|gzip9
    the same, the format chosen by the Accept header (JSON when any will do)
GET|HEAD /ping
    {\"message\":\"pong\"}, the zero-codec baseline
GET|HEAD /metrics
    the server's counters in the Prometheus text format
GET|HEAD /explain/{json|msgpack|protobuf|avro|flatbuffers}?count=N
    every byte of the first N products (default 1, at most 100), annotated
GET|HEAD /schemas/{catalog.proto|catalog.avsc|catalog.fbs}
    the schemas a client needs to decode protobuf, avro and flatbuffers
";

#[cfg(test)]
mod tests {
    use super::*;

    fn check(query: &str, expected: Result<(usize, Option<u8>), &str>) {
        let got = parse_catalog_query(query, 1000).map(|q| (q.count, q.gzip));
        assert_eq!(got, expected.map_err(str::to_string), "query {query:?}");
    }

    #[test]
    fn queries() {
        check("", Ok((100, None)));
        check("count=1", Ok((1, None)));
        check("count=1000&compression=gzip", Ok((1000, Some(6))));
        check("compression=gzip1", Ok((100, Some(1))));
        check("compression=gzip6", Ok((100, Some(6))));
        check("compression=gzip9", Ok((100, Some(9))));
        check("compression=none&&count=007&", Ok((7, None)));
        let bad_count = |v: &str| format!("count must be an integer from 1 to 1000, got {v:?}");
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
            let e = bad_count(v);
            check(&format!("count={v}"), Err(&e));
        }
        check("count", Err(&bad_count("")));
        check("count=1&count=2", Err("count given more than once"));
        check(
            "compression=br",
            Err("compression must be none, gzip, gzip1, gzip6 or gzip9, got \"br\""),
        );
        check(
            "compression=gzip2",
            Err("compression must be none, gzip, gzip1, gzip6 or gzip9, got \"gzip2\""),
        );
        check(
            "compression=gzip&compression=none",
            Err("compression given more than once"),
        );
        check(
            "limit=5",
            Err("unknown query parameter \"limit\"; allowed: count, compression"),
        );
    }

    #[test]
    fn budget_estimates_bound_the_real_sizes() {
        let products = crate::fixtures::catalog(1000).products;
        for format in Format::ALL {
            for n in [1, 10, 1000] {
                let len = format.encode_to_vec(&products[..n]).unwrap().len();
                assert!(len <= n * BYTES_PER_PRODUCT, "{format:?} {n}: {len} bytes");
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
}
