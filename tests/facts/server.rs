//! The server as the docs state it: the routes (`serve::routes::ROUTES`, held
//! to the router's source and to a running server) and the metric names a
//! running server's `/metrics` sends.

use crate::support::server::{self, Client};
use crate::{code, differences, first_cells, read, section, set};
use std::collections::BTreeSet;

/// A route table's first column, each path as `ROUTES` spells it: the query
/// dropped, and a `{a,b,c}` alternative list replaced by what it stands for.
fn route_table(section: &str) -> BTreeSet<String> {
    first_cells(section)
        .iter()
        .map(|cell| {
            let path = code(cell).split('?').next().unwrap_or("");
            match path.split_once('{') {
                Some((prefix, rest)) if rest.contains(',') && prefix == "/schemas/" => format!("{prefix}{{file}}"),
                Some((prefix, rest)) if rest.contains(',') => format!("{prefix}{{format}}"),
                _ => path.to_string(),
            }
        })
        .collect()
}

/// The routes a router's source matches: `"/path" =>` arms and
/// `strip_prefix("/dir/")` (as `/dir/{…}`, the name in braces taken from
/// `routes`). Paths starting with `/__` are test hooks, left out.
fn routes_in_source(src: &str, routes: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in src.lines() {
        let code = line.split("//").next().unwrap_or("").trim();
        if let Some(rest) = code.strip_prefix("\"/") {
            if let Some((path, arm)) = rest.split_once('"') {
                if arm.trim_start().starts_with("=>") || arm.trim_start().starts_with("if ") {
                    out.insert(format!("/{path}"));
                }
            }
        }
        for (i, _) in code.match_indices("strip_prefix(\"/") {
            let prefix = code[i + 14..].split('"').next().unwrap_or("");
            let named = routes
                .iter()
                .find(|r| r.starts_with(prefix) && r[prefix.len()..].starts_with('{'));
            out.insert(named.cloned().unwrap_or_else(|| format!("{prefix}{{?}}")));
        }
    }
    out.retain(|r| !r.starts_with("/__"));
    out
}

/// The `route` label values the `/metrics` table of docs/HTTP.md lists.
fn metric_route_labels(metrics_section: &str) -> BTreeSet<String> {
    let row = metrics_section
        .lines()
        .find(|l| l.starts_with("| `wirebench_http_requests_total`"))
        .expect("the requests_total row");
    let list = row.split("`route` (").nth(1).expect("a `route` (…) list");
    let list = &list[..list.find(')').expect("closing )")];
    list.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

#[test]
fn routes_in_the_docs_are_the_routers() {
    let labelled = set(wirebench::serve::routes::ROUTES);
    let mut routes = labelled.clone();
    routes.extend(set(wirebench::serve::routes::PAGE_ROUTES));
    routes.extend(set(wirebench::serve::routes::DATA_ROUTES));
    let mut bad = Vec::new();
    // The server's code, without its unit tests (whose handlers may match paths).
    let mut source = String::new();
    for entry in std::fs::read_dir(crate::root().join("src/serve")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            source.push_str(text.split("#[cfg(test)]").next().unwrap());
        }
    }
    bad.extend(differences(
        "the path match arms in src/serve/*.rs vs ROUTES",
        &routes_in_source(&source, &routes),
        &routes,
    ));
    let spec = read("docs/SPEC.md");
    bad.extend(differences(
        "docs/SPEC.md, \"Routes\"",
        &route_table(section(&spec, "Routes")),
        &routes,
    ));
    let http = read("docs/HTTP.md");
    bad.extend(differences(
        "docs/HTTP.md, \"Routes\"",
        &route_table(section(&http, "Routes")),
        &routes,
    ));
    // The page's own routes count under `other`.
    let mut labels = labelled;
    labels.insert("other".into());
    let metrics = section(&http, "Metrics (`/metrics`)");
    bad.extend(differences(
        "docs/HTTP.md, `route` label of /metrics",
        &metric_route_labels(metrics),
        &labels,
    ));
    assert!(bad.is_empty(), "{}", bad.join("\n"));

    // Each route is served, and a path outside the list is not.
    let s = server::start();
    let mut c = Client::connect(s.local_addr());
    // `/lab/{i}` and `/results*` need lab cells and a results directory
    // handed to the server; tests/page.rs serves them with both. `/data*`
    // needs `--data`: tests/data.rs serves it.
    for route in routes
        .iter()
        .filter(|r| !r.starts_with("/results") && !r.contains("{i}") && !r.contains("/data"))
    {
        let path = route.replace("{format}", "json").replace("{file}", "catalog.avsc");
        let resp = c.get(&path);
        assert_eq!(resp.status, 200, "GET {path}: {}", resp.text());
    }
    assert_eq!(c.get("/catalogue").status, 404);
}

#[test]
fn route_checks_can_fail() {
    let table = "## Routes\n\n| route | answer |\n|---|---|\n| `/catalog/{json,msgpack}?count=N` | x |\n\
                 | `/schemas/{a.proto,b.fbs}` | y |\n| `/ping` | z |\n";
    assert_eq!(
        route_table(section(table, "Routes")),
        set(["/catalog/{format}", "/schemas/{file}", "/ping"])
    );
    let routes = set(["/", "/ping", "/catalog/{format}"]);
    let src = "let r = match path {\n    \"/\" => A,\n    \"/ping\" => B, // x\n    \"/new\" => C,\n    \
               \"/__test\" if t => D,\n    _ => if let Some(n) = path.strip_prefix(\"/catalog/\") {}\n    \
               else if let Some(n) = path.strip_prefix(\"/more/\") {}\n};\nlet s = \"/not-a-route\";";
    let found = routes_in_source(src, &routes);
    assert_eq!(found, set(["/", "/ping", "/new", "/catalog/{format}", "/more/{?}"]));
    assert_eq!(differences("t", &found, &routes).len(), 2);
    let metrics = "| `wirebench_http_requests_total` | counter | `route` (`/`, `/ping`, `other`), `format` |\n";
    assert_eq!(metric_route_labels(metrics), set(["/", "/ping", "other"]));
}

// ---------------------------------------------------------------------------
// Metric names

/// The metric families of a Prometheus text exposition (its `# TYPE` lines).
fn families(exposition: &str) -> BTreeSet<String> {
    exposition
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// The metric names (`wirebench_…` in backticks) of the first table column in `text`.
fn documented_metrics(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(|l| l.trim_start_matches("//!").trim())
        .filter(|l| l.starts_with("| `wirebench_"))
        .map(|l| code(l).to_string())
        .collect()
}

#[test]
fn metric_names_in_the_docs_are_the_servers() {
    let s = server::start();
    let mut c = Client::connect(s.local_addr());
    assert_eq!(c.get("/catalog/json?count=1").status, 200);
    let resp = c.get("/metrics");
    assert_eq!(resp.status, 200);
    let served = families(&resp.text());
    assert!(served.len() >= 5, "{}", resp.text());
    let http = read("docs/HTTP.md");
    let mut bad = differences(
        "docs/HTTP.md, \"Metrics (`/metrics`)\"",
        &documented_metrics(section(&http, "Metrics (`/metrics`)")),
        &served,
    );
    bad.extend(differences(
        "src/http/metrics.rs's module doc",
        &documented_metrics(&read("src/http/metrics.rs")),
        &served,
    ));
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn metric_name_check_can_fail() {
    let exposition = "# HELP a_total x\n# TYPE a_total counter\na_total 1\n# TYPE b_seconds histogram\n";
    assert_eq!(families(exposition), set(["a_total", "b_seconds"]));
    let doc = "| series | type |\n|---|---|\n| `wirebench_a` | counter |\n//! | `wirebench_b` | gauge |\n";
    let documented = documented_metrics(doc);
    assert_eq!(documented, set(["wirebench_a", "wirebench_b"]));
    assert_eq!(differences("t", &documented, &families(exposition)).len(), 4);
}
