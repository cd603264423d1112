//! The browser page and the JSON it reads: every byte of every format linked
//! to its field. Its routes are docs/SPEC.md's, "The browser page": `GET /`
//! accepting `text/html` (others get the text index), `/page/*`, the JSON
//! form of `/explain/{format}` (with `Accept: application/json`), `/lab`,
//! `/lab/{i}`, `/results` and `/results/{chart}.svg` (from `serve --results
//! DIR`); and `payload=data` on the JSON form explains the document of
//! `serve --data` (`explain::document_json`, plus `by_member`'s rows).
//!
//! Everything is compiled into the binary (`include_str!`); the page asks no
//! other host for anything and needs no build step. `compression=gzip`
//! explains the body a gzip response decodes to and reports the compressed
//! size beside it; `share=strings` (FlatBuffers only) builds the buffer with
//! `create_shared_string`, so products with equal strings point at one copy
//! and the explainer credits it to each of them. The evolution lab lives above
//! this layer: the `serve` command hands its cells in ([`Page::evolution`]).

use super::metrics::Label;
pub use super::page_data::{EvolutionCell, Page};
use crate::codec::Format;
use crate::http::buffers::Scratch;
use crate::http::parse::Request;
use crate::http::response::{Body, Head, JSON, Reply, VARY};
use crate::measure::json::quote;
use crate::model::Product;
use crate::payload::Payload;
use std::fmt::Write as _;

const INDEX_HTML: &str = include_str!("page/index.html");
const APP_JS: &str = include_str!("page/app.js");
const STYLE_CSS: &str = include_str!("page/style.css");

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const SVG: &str = "image/svg+xml";

/// Most products the JSON form annotates (the page offers 1 to [`PAGE_MAX_COUNT`]).
pub const EXPLAIN_JSON_MAX_COUNT: usize = 100;
/// Largest count the page's controls offer.
pub const PAGE_MAX_COUNT: usize = 20;
/// Upper bound of one product's JSON form (JSON format, the largest:
/// ~150 spans of ~140 bytes, the base64 payload); a unit test holds it above the real size.
pub const EXPLAIN_JSON_BYTES_PER_PRODUCT: usize = 48 * 1024;
/// Largest file `/results` reads (a chart or `REPORT.md`).
const MAX_RESULT_FILE: u64 = 8 << 20;

/// What the page's routes read of the server's state (`routes::App`).
#[derive(Debug, Clone, Copy)]
pub struct App<'a> {
    pub products: &'a [Product],
    /// Largest `count` accepted.
    pub max_count: usize,
    pub page: &'a Page,
    /// `serve --data`: the document the page shows beside the catalog.
    pub data: Option<&'a Payload>,
}

/// Largest document the page explains, encoded in any format: its JSON
/// form holds a span of ~140 bytes per field, several per byte at worst.
pub const PAGE_DOCUMENT_MAX_BYTES: usize = 256 * 1024;

/// Answers the routes this module owns, `None` for every other request.
pub fn handle(app: App<'_>, req: &Request<'_>, path: &str, query: &str, s: &mut Scratch) -> Option<Reply> {
    let (label, owned) = match path {
        "/" => (Label::Index, accepts(req, "text/html")),
        _ if path.starts_with("/explain/") => (Label::Explain, accepts(req, JSON)),
        _ => (
            Label::Other,
            path.starts_with("/page/")
                || path == "/lab"
                || path.starts_with("/lab/")
                || path == "/results"
                || path.starts_with("/results/"),
        ),
    };
    if !owned {
        return None;
    }
    let mut reply = if req.method != "GET" && req.method != "HEAD" {
        Reply::method_not_allowed(&mut s.body, req.method, path)
    } else {
        route(app, path, query, s)
    };
    reply.route = label as u8;
    Some(reply)
}

fn route(app: App<'_>, path: &str, query: &str, s: &mut Scratch) -> Reply {
    if let Some(name) = path.strip_prefix("/explain/") {
        return match Format::from_name(name) {
            Some(f) => explain(app, f, query, s),
            None => s.error(404, &format!("unknown format {name:?}"), VARY),
        };
    }
    if let Some(i) = path.strip_prefix("/lab/") {
        return lab_cell(app, i, s);
    }
    if let Some(name) = path.strip_prefix("/results/") {
        return result_file(app, name, s);
    }
    if !query.is_empty() {
        return s.error(400, &format!("{path} takes no query parameters"), "");
    }
    match path {
        "/" => Reply::new(Head::ok(HTML, VARY), Body::Static(INDEX_HTML.as_bytes())),
        "/page/app.js" => Reply::new(Head::ok(JS, ""), Body::Static(APP_JS.as_bytes())),
        "/page/style.css" => Reply::new(Head::ok(CSS, ""), Body::Static(STYLE_CSS.as_bytes())),
        "/page/info.json" => {
            let info = format!(
                "{{\"max_count\":{},\"results\":{},\"evolution_cells\":{},\"data\":{}}}",
                PAGE_MAX_COUNT.min(app.max_count),
                app.page.results.is_some(),
                app.page.evolution.len(),
                app.data.is_some()
            );
            s.ok(JSON, "", info.as_bytes())
        }
        "/lab" => lab(app, s),
        "/results" => results_page(app, s),
        _ => s.error(
            404,
            &format!("no resource at {path:?}; the page's files are /page/app.js, /page/style.css, /page/info.json"),
            "",
        ),
    }
}

/// Whether any `Accept` field names `media_type` (the page and scripts send
/// exactly that; `*/*` alone keeps the text answers).
fn accepts(req: &Request<'_>, media_type: &str) -> bool {
    req.header_values("accept").any(|v| {
        v.split(|&b| b == b',').any(|range| {
            let range = range.split(|&b| b == b';').next().unwrap_or(range);
            range.trim_ascii().eq_ignore_ascii_case(media_type.as_bytes())
        })
    })
}

/// Query of the JSON explain route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExplainQuery {
    pub count: usize,
    pub gzip: bool,
    pub shared_strings: bool,
    /// `payload=data`: the document of `serve --data`, not the catalog.
    pub document: bool,
}

/// Parses `count=N&compression=none|gzip&share=strings&payload=catalog|data`.
pub fn parse_explain_query(query: &str, max: usize) -> Result<ExplainQuery, String> {
    let mut q = ExplainQuery {
        count: 1,
        ..ExplainQuery::default()
    };
    for param in query.split('&').filter(|p| !p.is_empty()) {
        match param.split_once('=').unwrap_or((param, "")) {
            ("count", v) => {
                q.count = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=max).contains(n))
                    .ok_or_else(|| format!("count must be 1..={max}, got {v:?}"))?;
            }
            ("compression", "gzip") => q.gzip = true,
            ("compression", "none") => q.gzip = false,
            ("compression", v) => return Err(format!("compression must be none or gzip, got {v:?}")),
            ("share", "strings") => q.shared_strings = true,
            ("share", v) => return Err(format!("share must be strings, got {v:?}")),
            ("payload", "catalog") => q.document = false,
            ("payload", "data") => q.document = true,
            ("payload", v) => return Err(format!("payload must be catalog or data, got {v:?}")),
            (other, _) => {
                return Err(format!(
                    "unknown query parameter {other:?}; allowed: count, compression, share, payload"
                ));
            }
        }
    }
    Ok(q)
}

fn explain(app: App<'_>, format: Format, query: &str, s: &mut Scratch) -> Reply {
    let q = match parse_explain_query(query, EXPLAIN_JSON_MAX_COUNT.min(app.max_count)) {
        Ok(q) => q,
        Err(msg) => return s.error(400, &msg, VARY),
    };
    if q.shared_strings && (format != Format::Flatbuffers || q.document) {
        return s.error(
            400,
            "share=strings is a FlatBuffers builder option of the catalog",
            VARY,
        );
    }
    if q.document {
        return explain_document(app, format, q, query, s);
    }
    if s.admit(q.count.saturating_mul(EXPLAIN_JSON_BYTES_PER_PRODUCT), false)
        .is_none()
    {
        return s.error(
            503,
            "the server's response memory is in use; retry later",
            "Retry-After: 1\r\n",
        );
    }
    let products = &app.products[..q.count];
    let bytes = if q.shared_strings {
        crate::codec::flatbuffers::builder::shared(products)
    } else {
        match format.encode_to_vec(products) {
            Ok(b) => b,
            Err(e) => return s.error(500, &format!("encoding {format} failed: {e}"), VARY),
        }
    };
    let mut gz = Vec::new();
    crate::gzip::compress(&bytes, crate::gzip::DEFAULT_LEVEL, &mut gz);
    let mut extra = vec![
        ("count", q.count.to_string()),
        ("gzip_bytes", gz.len().to_string()),
        ("shared_strings", q.shared_strings.to_string()),
    ];
    let bytes = if q.gzip {
        // What a client of `compression=gzip` decodes: the body, gunzipped.
        match crate::gzip::decompress(&gz, bytes.len()) {
            Ok(b) => {
                extra.push(("compression", quote("gzip")));
                b
            }
            Err(e) => return s.error(500, &format!("gunzip of our own body failed: {e}"), VARY),
        }
    } else {
        extra.push(("compression", quote("none")));
        bytes
    };
    let json = annotated(format, &bytes, &extra);
    let mut reply = s.ok(JSON, VARY, json.as_bytes());
    reply.variant = Some(format as u8);
    reply
}

/// `/explain/{format}?payload=data`: the document's JSON form, with the
/// fields the page reads beside it (`gzip_bytes`, `compression`).
fn explain_document(app: App<'_>, format: Format, q: ExplainQuery, query: &str, s: &mut Scratch) -> Reply {
    let Some((payload, doc)) = app.data.and_then(|p| Some((p, p.as_document()?))) else {
        return s.error(404, "payload=data is served with `serve --data FILE.json`", VARY);
    };
    if query.split('&').any(|p| p.starts_with("count=") || p == "count") {
        return s.error(400, "count is a catalog parameter; the document is one", VARY);
    }
    let size = payload.size(format).unwrap_or(0);
    if size > PAGE_DOCUMENT_MAX_BYTES {
        let msg =
            format!("the document is {size} bytes in {format}; the page explains at most {PAGE_DOCUMENT_MAX_BYTES}");
        return s.error(400, &msg, VARY);
    }
    // At most a span per byte, each with its path and meaning.
    if s.admit(size.saturating_mul(EXPLAIN_JSON_BYTES_PER_BYTE), false)
        .is_none()
    {
        return s.error(503, crate::http::admission::REFUSED, "Retry-After: 1\r\n");
    }
    let bytes = match payload.encode_to_vec(format) {
        Ok(b) => b,
        Err(e) => return s.error(500, &format!("encoding {format} failed: {e}"), VARY),
    };
    let mut gz = Vec::new();
    crate::gzip::compress(&bytes, crate::gzip::DEFAULT_LEVEL, &mut gz);
    // What a client of `compression=gzip` decodes is the body itself.
    let extra = [
        ("count", "1".to_string()),
        ("gzip_bytes", gz.len().to_string()),
        ("shared_strings", "false".to_string()),
        ("compression", quote(if q.gzip { "gzip" } else { "none" })),
    ];
    let json = match crate::explain::annotate(format, &doc.schema, None, &bytes) {
        Ok(ex) => with_members(crate::explain::document_json(&ex, &extra), &ex),
        Err(failed) => crate::explain::failed_json(format, &bytes, &failed, &extra),
    };
    let mut reply = s.ok(JSON, VARY, json.as_bytes());
    reply.variant = Some(format as u8);
    reply
}

/// Adds the root record's `members` in payload order and `tops` (per span,
/// the index of the member it belongs to, -1 for the root's own framing):
/// the rows of `by_member`. The spans' `fields` name the nested paths.
fn with_members(mut json: String, ex: &crate::explain::Explained) -> String {
    json.pop(); // the closing brace
    json.push_str(",\"members\":[");
    for (i, m) in ex.members.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&quote(m));
    }
    json.push_str("],\"tops\":[");
    for (i, span) in ex.spans.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        let _ = match span.top {
            Some(t) => write!(json, "{t}"),
            None => write!(json, "-1"),
        };
    }
    json.push_str("]}");
    json
}

/// Upper bound of the document's JSON form per payload byte; a unit test
/// holds it above the real size.
pub const EXPLAIN_JSON_BYTES_PER_BYTE: usize = 512;

/// The JSON form of `bytes`, or of what parsed when they do not.
fn annotated(format: Format, bytes: &[u8], extra: &[(&str, String)]) -> String {
    match crate::explain::explain(format, bytes) {
        Ok(ex) => crate::explain::to_json(&ex, extra),
        Err(failed) => crate::explain::failed_json(format, bytes, &failed, extra),
    }
}

fn lab(app: App<'_>, s: &mut Scratch) -> Reply {
    let mut out = String::from("{\"cells\":[");
    for (i, c) in app.page.evolution.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"id\":{i},\"step\":{},\"change\":{},\"row\":{},\"format\":{},\"direction\":{},\"class\":{},\"outcome\":{}}}",
            quote(&c.step),
            quote(&c.change),
            quote(&c.row),
            quote(c.format.name()),
            quote(&c.direction),
            quote(&c.class),
            quote(&c.outcome)
        );
    }
    out.push_str("]}");
    s.ok(JSON, "", out.as_bytes())
}

fn lab_cell(app: App<'_>, id: &str, s: &mut Scratch) -> Reply {
    let cells = &app.page.evolution;
    let Some(c) = id.parse::<usize>().ok().and_then(|i| cells.get(i)) else {
        let msg = format!("no evolution cell {id:?}; cells are 0..{}", cells.len());
        return s.error(404, &msg, "");
    };
    let extra = [
        ("step", quote(&c.step)),
        ("change", quote(&c.change)),
        ("row", quote(&c.row)),
        ("direction", quote(&c.direction)),
        ("class", quote(&c.class)),
        ("outcome", quote(&c.outcome)),
    ];
    let json = annotated(c.format, &c.bytes, &extra);
    s.ok(JSON, "", json.as_bytes())
}

/// The `.svg` files of the results directory, by name.
fn charts(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| safe_name(n) && n.ends_with(".svg"))
        .collect();
    names.sort();
    names
}

/// A plain file name: no path separators, no leading dot.
fn safe_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

fn read_bounded(path: &std::path::Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    f.take(MAX_RESULT_FILE + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if out.len() as u64 > MAX_RESULT_FILE {
        return Err(format!("{} is larger than {MAX_RESULT_FILE} bytes", path.display()));
    }
    Ok(out)
}

fn no_results(s: &mut Scratch) -> Reply {
    s.error(
        404,
        "no results directory: start the server with `serve --results DIR`",
        "",
    )
}

fn result_file(app: App<'_>, name: &str, s: &mut Scratch) -> Reply {
    let Some(dir) = &app.page.results else {
        return no_results(s);
    };
    if !safe_name(name) || !name.ends_with(".svg") || !charts(dir).iter().any(|n| n == name) {
        return s.error(404, &format!("no chart {name:?} in the results directory"), "");
    }
    match read_bounded(&dir.join(name)) {
        Ok(bytes) => s.ok(SVG, "", &bytes),
        Err(e) => s.error(500, &e, ""),
    }
}

/// The second page: every chart of the results directory, then `REPORT.md`
/// as preformatted text (it survives any change of the report's layout).
fn results_page(app: App<'_>, s: &mut Scratch) -> Reply {
    let Some(dir) = &app.page.results else {
        return no_results(s);
    };
    let mut html = String::from(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>wirebench results</title>\
         <link rel=\"icon\" href=\"data:,\"><link rel=\"stylesheet\" href=\"/page/style.css\"></head>\
         <body class=\"results\"><header><h1>wirebench results</h1><nav><a href=\"/\">bytes explorer</a></nav></header><main>",
    );
    let _ = write!(
        html,
        "<p>Results directory <code>{}</code>.</p>",
        escape(&dir.display().to_string())
    );
    let names = charts(dir);
    if names.is_empty() {
        html.push_str("<p>No charts in this directory (run <code>make report</code>).</p>");
    }
    html.push_str("<section id=\"charts\">");
    for n in &names {
        let _ = write!(
            html,
            "<figure><img src=\"/results/{0}\" alt=\"{0}\"><figcaption>{0}</figcaption></figure>",
            escape(n)
        );
    }
    html.push_str("</section>");
    match read_bounded(&dir.join("REPORT.md")) {
        Ok(md) => {
            let _ = write!(
                html,
                "<h2>REPORT.md</h2><pre id=\"report\">{}</pre>",
                escape(&String::from_utf8_lossy(&md))
            );
        }
        Err(e) => {
            let _ = write!(html, "<p>No report: {}</p>", escape(&e));
        }
    }
    html.push_str("</main></body></html>");
    s.ok(HTML, "", html.as_bytes())
}

/// Text for HTML element content and attribute values.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_json_form_stays_within_its_budget() {
        let text = r#"{"orders":[{"id":1,"tags":{"a":"x"},"note":null},{"id":2,"tags":{},"note":"hi"}],"t":1.5}"#;
        let path = std::env::temp_dir().join(format!("wirebench-page-budget-{}.json", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let doc = crate::payload::Document::load(path.to_str().unwrap(), None).unwrap();
        let _ = std::fs::remove_file(&path);
        for format in Format::ALL {
            let mut bytes = Vec::new();
            crate::generic::encode(format, &doc.schema, &doc.datum, &mut bytes).unwrap();
            let ex = crate::explain::annotate(format, &doc.schema, None, &bytes).unwrap();
            let json = crate::explain::document_json(&ex, &[]);
            assert!(
                json.len() <= bytes.len() * EXPLAIN_JSON_BYTES_PER_BYTE,
                "{format:?}: {} bytes of JSON for {}",
                json.len(),
                bytes.len()
            );
        }
    }

    #[test]
    fn queries() {
        let q = parse_explain_query("count=20&compression=gzip&share=strings", 20).unwrap();
        assert_eq!((q.count, q.gzip, q.shared_strings), (20, true, true));
        assert_eq!(parse_explain_query("", 20).unwrap().count, 1);
        assert!(
            parse_explain_query("payload=data&compression=gzip", 20)
                .unwrap()
                .document
        );
        for bad in [
            "count=0",
            "count=21",
            "count=x",
            "compression=br",
            "share=all",
            "x=1",
            "payload=x",
        ] {
            assert!(parse_explain_query(bad, 20).is_err(), "{bad}");
        }
    }

    #[test]
    fn json_budget_bounds_the_real_size() {
        let products = crate::fixtures::catalog(EXPLAIN_JSON_MAX_COUNT).products;
        for format in Format::ALL {
            for n in [1, 20, EXPLAIN_JSON_MAX_COUNT] {
                let bytes = format.encode_to_vec(&products[..n]).unwrap();
                let json = annotated(format, &bytes, &[]);
                assert!(
                    json.len() <= n * EXPLAIN_JSON_BYTES_PER_PRODUCT,
                    "{format} {n}: {}",
                    json.len()
                );
            }
        }
    }

    #[test]
    fn names_and_escapes() {
        assert!(safe_name("http-latency.svg"));
        for bad in ["", ".hidden.svg", "../x.svg", "a/b.svg", "a b.svg"] {
            assert!(!safe_name(bad), "{bad}");
        }
        assert_eq!(
            escape("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }
}
