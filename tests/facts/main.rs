//! Facts the docs state that the code can compute, computed at test time and
//! compared with every place a doc states them:
//!
//! | fact | from the code | in the docs |
//! |---|---|---|
//! | fuzz targets | `fuzz/fuzz_targets/*.rs`, `fuzz/Cargo.toml` `[[bin]]`, `fuzz/run.sh`'s default list | every "N targets" / "eleven fuzz targets", docs/FUZZING.md's target table |
//! | commands | `wirebench help` (the built binary) | docs/SPEC.md, "Command line" |
//! | flags | `wirebench CMD --help` | every `--flag` README.md and docs/*.md name, under the command they name it with; docs/HTTP.md's `serve` flag table, both ways |
//! | make targets | the Makefile's rules | every `make TARGET` in README.md and docs/, and `make help` (README: it lists every target) |
//! | routes | `serve::routes::ROUTES`, held to the router's source and to a running server | docs/SPEC.md and docs/HTTP.md "Routes" tables, the `route` label list of `/metrics` |
//! | metric names | the `# TYPE` lines a running server's `/metrics` sends | docs/HTTP.md, "Metrics (`/metrics`)", and `src/http/metrics.rs`'s table |
//! | top-level modules | `src/lib.rs`'s `pub mod` list | docs/ARCHITECTURE.md, "Reading order", the one reading order README.md and `src/lib.rs` cite |
//! | `load`'s CSV columns | `measure::results::HTTP_HEADER` | docs/LOAD.md, "The CSV columns" |
//! | exit statuses | `cli::EXIT_STATUSES`, the binary's real statuses, `main.rs` | docs/SPEC.md, "Exit status", `load --help`, README.md |
//!
//! Another branch adding a flag, route, metric or target then fails here
//! until the docs say so. Every comparison is a function with a self-test that
//! feeds it a planted discrepancy.

#[path = "../support/mod.rs"]
mod support;

mod binary;
mod counts;
mod server;

use std::collections::BTreeSet;
use std::path::Path;

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// README.md and every docs/*.md, as (path, text).
pub fn docs() -> Vec<(String, String)> {
    let mut out = vec![("README.md".to_string(), read("README.md"))];
    let mut names: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    names.sort();
    for n in names {
        let rel = format!("docs/{n}");
        let text = read(&rel);
        out.push((rel, text));
    }
    out
}

pub fn set<I: IntoIterator<Item = S>, S: Into<String>>(items: I) -> BTreeSet<String> {
    items.into_iter().map(Into::into).collect()
}

/// The lines of `md` under the heading whose text is `heading`, up to the
/// next heading of the same or a higher level.
pub fn section<'a>(md: &'a str, heading: &str) -> &'a str {
    let mut start = None;
    let mut level = 0;
    let mut offset = 0;
    let mut fenced = false;
    for line in md.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let hashes = line.bytes().take_while(|&b| b == b'#').count();
        match start {
            None if line[hashes..].trim() == heading => {
                start = Some(offset);
                level = hashes;
            }
            Some(s) if hashes <= level => return &md[s..at],
            _ => {}
        }
    }
    match start {
        Some(s) => &md[s..],
        None => panic!("no heading {heading:?}"),
    }
}

/// The first cell of every body row of the first Markdown table in `text`.
pub fn first_cells(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // the header and the |---| row
        .map(|l| l.trim_matches('|').split(" | ").next().unwrap_or("").trim().to_string())
        .collect()
}

/// The text inside the first backtick pair of `cell` (the cell itself if none).
pub fn code(cell: &str) -> &str {
    cell.split('`').nth(1).unwrap_or(cell)
}

/// What differs between what the docs say and what the code has, as lines.
pub fn differences(what: &str, doc: &BTreeSet<String>, code: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for d in doc.difference(code) {
        out.push(format!("{what}: names {d:?}, which the code does not have"));
    }
    for c in code.difference(doc) {
        out.push(format!("{what}: does not name {c:?}, which the code has"));
    }
    out
}
