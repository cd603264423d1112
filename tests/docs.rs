//! `docs/FORMATS.md` stays true to the code: every dump it quotes, the
//! per-field comparison table and the pretty-printed record are compared with
//! what `explain` prints for the same fixture.
//!
//! The page marks what it quotes with HTML comments (invisible when rendered):
//!
//! - `<!-- explain: FORMAT -->` or `<!-- explain: FORMAT count=N -->` before a
//!   ```` ```text ```` block: each line of the block must be a line of
//!   `explain::explain_text(FORMAT, encoding of fixtures::catalog(N), true)`,
//!   in the same order (excerpts may skip lines, never reorder or edit them);
//! - `<!-- explain: compare -->` before a Markdown table: the table must equal
//!   `explain::compare_text(&fixtures::catalog(1).products)`;
//! - `<!-- record -->` before a ```` ```json ```` block: it must parse to the
//!   first product of the JSON encoding of `fixtures::catalog(1)`.
//!
//! When a codec changes a byte, this test names the line to update.
//!
//! The second half keeps references honest across the repository (code,
//! tests, benches, fuzz targets, README.md and docs/): every `docs/NAME.md`
//! and `README.md` named exists; every repository path a doc names in
//! backticks or links exists; every `(FILE.md, "Section")` citation and every
//! `README section "X"` names a heading that exists; no comment in `src/`
//! cites the spec without `docs/SPEC.md`; and README.md and docs/*.md carry no
//! dates, issue numbers or commit hashes (history lives in git and in
//! `results/`).

use std::collections::BTreeSet;
use wirebench::codec::Format;
use wirebench::explain;
use wirebench::fixtures;

const DOC: &str = include_str!("../docs/FORMATS.md");

/// What a page quotes, by kind: formats with dumps, and whether it has the
/// compare table and the record.
#[derive(Debug, Default)]
struct Checked {
    dumps: BTreeSet<String>,
    lines: usize,
    compare: bool,
    record: bool,
}

/// The lines of the fenced block that starts right after `lines[at]`.
fn fenced<'a>(lines: &[&'a str], at: usize, lang: &str) -> Result<Vec<&'a str>, String> {
    let open = format!("```{lang}");
    if lines.get(at + 1).map(|l| l.trim_end()) != Some(open.as_str()) {
        return Err(format!("line {}: expected {open} after the marker", at + 2));
    }
    let body: Vec<&str> = lines[at + 2..]
        .iter()
        .copied()
        .take_while(|l| l.trim_end() != "```")
        .collect();
    if at + 2 + body.len() >= lines.len() {
        return Err(format!("line {}: unclosed code block", at + 2));
    }
    Ok(body)
}

/// `FORMAT` or `FORMAT count=N` from a marker's argument.
fn target(arg: &str) -> Result<(Format, usize), String> {
    let mut words = arg.split_whitespace();
    let format: Format = words.next().unwrap_or("").parse()?;
    let count = match words.next() {
        None => 1,
        Some(w) => w
            .strip_prefix("count=")
            .and_then(|n| n.parse().ok())
            .ok_or(format!("bad marker argument {w:?}"))?,
    };
    Ok((format, count))
}

/// Checks every marked quotation of `doc`; the error names the doc line.
fn check(doc: &str) -> Result<Checked, String> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut done = Checked::default();
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        if line == "<!-- record -->" {
            let body = fenced(&lines, i, "json")?.join("\n");
            let quoted: serde_json::Value =
                serde_json::from_str(&body).map_err(|e| format!("line {}: record: {e}", i + 3))?;
            let bytes = Format::Json
                .encode_to_vec(&fixtures::catalog(1).products)
                .map_err(|e| e.to_string())?;
            let real: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
            if quoted != real["products"][0] {
                return Err(format!("line {}: the record differs from fixtures::product(1)", i + 3));
            }
            done.record = true;
            continue;
        }
        let Some(arg) = line.strip_prefix("<!-- explain:").and_then(|r| r.strip_suffix("-->")) else {
            continue;
        };
        let arg = arg.trim();
        if arg == "compare" {
            let table: Vec<&str> = lines[i + 1..]
                .iter()
                .copied()
                .take_while(|l| !l.trim().is_empty())
                .collect();
            let real = explain::compare_text(&fixtures::catalog(1).products)?;
            if table.join("\n") != real.trim_end() {
                return Err(format!(
                    "line {}: the compare table differs from `explain compare`; it is now:\n{real}",
                    i + 2
                ));
            }
            done.compare = true;
            continue;
        }
        let (format, count) = target(arg).map_err(|e| format!("line {}: {e}", i + 1))?;
        let body = fenced(&lines, i, "text")?;
        if body.is_empty() {
            return Err(format!("line {}: empty quotation", i + 1));
        }
        let bytes = format
            .encode_to_vec(&fixtures::catalog(count).products)
            .map_err(|e| e.to_string())?;
        let real = explain::explain_text(format, &bytes, true).map_err(|u| u.error.to_string())?;
        let real: Vec<&str> = real.lines().collect();
        let mut from = 0;
        for (j, quoted) in body.iter().enumerate() {
            match real[from..].iter().position(|r| r == quoted) {
                Some(k) => from += k + 1,
                None => {
                    return Err(format!(
                        "line {}: not in `explain {format} --count {count}` (or out of order):\n{quoted}",
                        i + 3 + j
                    ));
                }
            }
        }
        done.dumps.insert(format.name().to_string());
        done.lines += body.len();
    }
    Ok(done)
}

#[test]
fn formats_md_quotes_the_real_output() {
    let done = check(DOC).unwrap_or_else(|e| panic!("docs/FORMATS.md {e}"));
    let all: BTreeSet<String> = Format::ALL.iter().map(|f| f.name().to_string()).collect();
    assert_eq!(done.dumps, all, "every format has at least one checked dump");
    assert!(done.compare, "the compare table is marked and checked");
    assert!(done.record, "the record is marked and checked");
    assert!(done.lines >= 100, "only {} dump lines checked", done.lines);
}

/// The checker can fail: one changed byte, a reordered excerpt, a changed
/// table cell and a changed record value are each caught.
#[test]
fn edits_to_quotations_are_caught() {
    let dump = "<!-- explain: msgpack -->\n```text\n";
    let good =
        format!("{dump}     17  01                                                     positive fixint 1\n```\n");
    assert!(check(&good).is_ok(), "{:?}", check(&good));
    let cases = [
        good.replace("01   ", "02   "),
        format!(
            "{dump}     18  a3                                                     fixstr, 3 bytes (0xa0 | 3)\n     17  01                                                     positive fixint 1\n```\n"
        ),
        "<!-- explain: compare -->\n| bytes | json |\n".to_string(),
        format!("<!-- record -->\n```json\n{}\n```\n", r#"{"id": 2}"#),
        "<!-- explain: yaml -->\n```text\nx\n```\n".to_string(),
        format!("{dump}x\n"),
    ];
    for doc in cases {
        assert!(check(&doc).is_err(), "not caught:\n{doc}");
    }
}

// ---------------------------------------------------------------------------
// References between files: every doc path, cited section and README section
// named anywhere in the repository exists, and docs state the present.
// ---------------------------------------------------------------------------

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `.rs` and `.md` files under `dir`, skipping build and fuzzing output.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), "target" | "corpus" | "artifacts" | "logs") {
                walk(&path, out);
            }
        } else if name.ends_with(".rs") || name.ends_with(".md") {
            out.push(path);
        }
    }
}

/// (path relative to the root, text) of the code and the docs, except this
/// file, whose self-tests name missing files on purpose.
fn repo_files() -> Vec<(String, String)> {
    let mut paths = vec![root().join("README.md")];
    for dir in ["src", "tests", "benches", "fuzz", "docs"] {
        walk(&root().join(dir), &mut paths);
    }
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .filter(|(rel, _)| rel != "tests/docs.rs")
        .collect()
}

/// README.md and docs/*.md: the files that must state the present.
fn doc_files() -> Vec<(String, String)> {
    repo_files()
        .into_iter()
        .filter(|(p, _)| p == "README.md" || (p.starts_with("docs/") && p.ends_with(".md")))
        .collect()
}

/// The headings of a Markdown text (`#` marks and surrounding space removed),
/// ignoring lines inside fenced code blocks.
fn headings(md: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(line.trim_start_matches('#').trim().to_string());
        }
    }
    out
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Every `docs/NAME.md` and `README.md` named in `text`.
fn doc_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("docs/") {
        if i > 0 && (is_name_byte(text.as_bytes()[i - 1]) || text.as_bytes()[i - 1] == b'/') {
            continue; // part of a longer path, e.g. `target/doc/...`
        }
        let rest = &text[i + 5..];
        let len = rest.bytes().take_while(|&b| is_name_byte(b)).count();
        if len > 0 && rest[len..].starts_with(".md") {
            out.push(format!("docs/{}.md", &rest[..len]));
        }
    }
    for (i, _) in text.match_indices("README.md") {
        if i == 0 || !is_name_byte(text.as_bytes()[i - 1]) && text.as_bytes()[i - 1] != b'/' {
            out.push("README.md".to_string());
        }
    }
    out
}

/// Every `(FILE.md, "Section")` citation in `text`: the file as written
/// (a path ending in `.md`, optionally in backticks) and the section with
/// line breaks and comment markers folded into single spaces.
fn citations(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices(".md") {
        let start = text[..i]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || "_-./".contains(c)))
            .map_or(0, |s| s + 1);
        let file = &text[start..i + 3];
        let mut rest = &text[i + 3..];
        rest = rest.strip_prefix('`').unwrap_or(rest);
        let Some(rest) = rest.strip_prefix(',') else { continue };
        let rest = rest.trim_start_matches([' ', '\n']);
        let Some(rest) = rest.strip_prefix('"') else { continue };
        let Some(end) = rest.find('"') else { continue };
        let section = rest[..end]
            .split_whitespace()
            .filter(|w| !w.starts_with("//"))
            .collect::<Vec<_>>()
            .join(" ");
        out.push((file.to_string(), section));
    }
    out
}

/// Every `README section "X"`, `README, "X"` or `README "X"` reference in `text`.
fn readme_sections(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("README") {
        let rest = &text[i + 6..];
        let rest = rest.strip_prefix(" section").or(rest.strip_prefix(",")).unwrap_or(rest);
        if let Some(rest) = rest.strip_prefix(" \"") {
            if let Some(end) = rest.find('"') {
                out.push(rest[..end].to_string());
            }
        }
    }
    out
}

/// Comment lines in Rust `text` that cite the spec without `docs/SPEC.md, "…"`.
fn bare_spec_citations(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some(at) = line.find("//") else { continue };
        let comment = &line[at..];
        let bare = comment.match_indices("SPEC").any(|(i, _)| {
            let b = comment.as_bytes();
            let before = i == 0 || !is_name_byte(b[i - 1]);
            let after = b.get(i + 4).is_none_or(|&c| !is_name_byte(c));
            before && after && !comment[..i].ends_with("docs/")
        });
        if bare {
            out.push((n + 1, line.trim().to_string()));
        }
    }
    out
}

/// Dated-run narration in a doc: ISO dates (`2026-11-30`), day-month-year
/// dates (`29 Nov 2026`), "issue N" and commit hashes (7 to 40 lowercase hex
/// digits, letters and digits both).
fn narration(md: &str) -> Vec<(usize, String)> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let mut out = Vec::new();
    for (n, line) in md.lines().enumerate() {
        let b = line.as_bytes();
        let digits = |s: usize, k: usize| b.get(s..s + k).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
        let iso = (0..b.len()).any(|i| {
            digits(i, 4)
                && b.get(i + 4) == Some(&b'-')
                && digits(i + 5, 2)
                && b.get(i + 7) == Some(&b'-')
                && digits(i + 8, 2)
        });
        let words: Vec<&str> = line
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let dmy = words
            .windows(2)
            .any(|w| MONTHS.contains(&w[0]) && w[1].len() == 4 && w[1].bytes().all(|c| c.is_ascii_digit()));
        let issue = words
            .windows(2)
            .any(|w| w[0].eq_ignore_ascii_case("issue") && w[1].bytes().all(|c| c.is_ascii_digit()));
        let commit = words.iter().any(|w| {
            (7..=40).contains(&w.len())
                && w.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
                && w.bytes().any(|c| c.is_ascii_digit())
                && w.bytes().any(|c| c.is_ascii_alphabetic())
        });
        if iso || dmy || issue || commit {
            out.push((n + 1, line.trim().to_string()));
        }
    }
    out
}

/// Repository paths a doc names in backticks or relative links that do not
/// exist. Patterns (`{`, `*`, `<`, `…`) and placeholders are not paths.
fn missing_paths(doc_path: &str, md: &str) -> Vec<String> {
    const TOP: [&str; 9] = [
        "src/",
        "tests/",
        "benches/",
        "fuzz/",
        "fixtures/",
        "schemas/",
        "docs/",
        "results/",
        ".ci/",
    ];
    let mut named = Vec::new();
    for span in md.split('`').skip(1).step_by(2) {
        let first = span.split_whitespace().next().unwrap_or("");
        if TOP.iter().any(|t| first.starts_with(t)) && first == span {
            named.push(span.to_string());
        }
    }
    let dir = Path::new(doc_path).parent().unwrap();
    for (i, _) in md.match_indices("](") {
        let target = &md[i + 2..];
        let target = &target[..target.find(')').unwrap_or(0)];
        let target = target.split('#').next().unwrap();
        if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let joined = dir.join(target);
        let mut parts: Vec<&str> = Vec::new();
        for c in joined.components() {
            match c {
                std::path::Component::ParentDir => {
                    parts.pop();
                }
                std::path::Component::Normal(s) => parts.push(s.to_str().unwrap()),
                _ => {}
            }
        }
        named.push(parts.join("/"));
    }
    named
        .into_iter()
        .filter(|p| !p.contains(['{', '*', '<', '…', '$']) && !p.contains("..."))
        .map(|p| p.split("::").next().unwrap().to_string()) // `tests/x.rs::test_name`
        .filter(|p| !root().join(p.trim_end_matches('/')).exists())
        .collect()
}

#[test]
fn doc_paths_exist() {
    let mut bad = Vec::new();
    for (path, text) in repo_files() {
        for doc in doc_paths(&text) {
            if !root().join(&doc).is_file() {
                bad.push(format!("{path}: names {doc}, which does not exist"));
            }
        }
    }
    for (path, text) in doc_files() {
        for missing in missing_paths(&path, &text) {
            bad.push(format!("{path}: names {missing}, which does not exist"));
        }
    }
    assert!(bad.is_empty(), "dangling paths:\n{}", bad.join("\n"));
}

#[test]
fn cited_sections_exist() {
    let mut bad = Vec::new();
    let mut seen = 0;
    for (path, text) in repo_files() {
        for (file, section) in citations(&text) {
            if !(file.starts_with("docs/") || file.starts_with("results/") || file == "README.md") {
                continue; // another project's file, e.g. msgpack/spec.md
            }
            let Ok(target) = std::fs::read_to_string(root().join(&file)) else {
                bad.push(format!("{path}: cites {file}, which does not exist"));
                continue;
            };
            seen += 1;
            if !headings(&target).contains(&section) {
                bad.push(format!(
                    "{path}: cites {file}, \"{section}\", which is not a heading there"
                ));
            }
        }
        for section in readme_sections(&text) {
            seen += 1;
            if !headings(include_str!("../README.md")).contains(&section) {
                bad.push(format!(
                    "{path}: cites README section \"{section}\", which does not exist"
                ));
            }
        }
    }
    assert!(bad.is_empty(), "dangling section references:\n{}", bad.join("\n"));
    assert!(
        seen > 20,
        "only {seen} citations found: is the scanner still reading them?"
    );
}

#[test]
fn spec_citations_point_to_docs_spec() {
    let mut bad = Vec::new();
    for (path, text) in repo_files() {
        if path.starts_with("src/") && !path.ends_with("generated.rs") {
            for (line, l) in bare_spec_citations(&text) {
                bad.push(format!("{path}:{line}: {l}"));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "cite the spec as (docs/SPEC.md, \"Section\"):\n{}",
        bad.join("\n")
    );
}

#[test]
fn docs_state_the_present() {
    let mut bad = Vec::new();
    for (path, text) in doc_files() {
        for (line, l) in narration(&text) {
            bad.push(format!("{path}:{line}: {l}"));
        }
    }
    assert!(
        bad.is_empty(),
        "dated runs and issue numbers belong in results/ and git, not in docs:\n{}",
        bad.join("\n")
    );
}

/// Each scanner above finds what it is for: a test that cannot fail is a defect.
#[test]
fn reference_checks_can_fail() {
    assert_eq!(
        doc_paths("see docs/NOPE.md and `README.md`"),
        ["docs/NOPE.md", "README.md"]
    );
    assert!(doc_paths("target/docs/x.md").is_empty());
    assert_eq!(
        citations("(docs/SPEC.md, \"No such\nsection\") and `docs/HTTP.md`, \"Routes\""),
        [
            ("docs/SPEC.md".to_string(), "No such section".to_string()),
            ("docs/HTTP.md".to_string(), "Routes".to_string())
        ]
    );
    assert!(!headings(include_str!("../docs/SPEC.md")).contains(&"No such section".to_string()));
    assert_eq!(
        readme_sections("see README \"Content types\", README section \"Testing\" (README, \"Formats\")"),
        ["Content types", "Testing", "Formats"]
    );
    assert!(!headings(include_str!("../README.md")).contains(&"Content types".to_string()));
    assert_eq!(
        bare_spec_citations("/// keys in SPEC order\nlet x = 1;\n// (docs/SPEC.md, \"Field order\")").len(),
        1
    );
    assert_eq!(bare_spec_citations("//! SPEC's table").len(), 1);
    assert_eq!(bare_spec_citations("// see SPEC.md").len(), 1);
    assert!(bare_spec_citations("// STATUS_UNSPECIFIED = 0, docs/SPEC.md").is_empty());
    assert_eq!(
        narration(
            "Measured 2026-11-29 23:10 UTC\nA run on 29 Nov 2026\nsee issue 4\nfine\nat commit 3661f48\n(`13108d6`)"
        )
        .len(),
        5
    );
    assert!(
        narration(
            "RFC 9112 §2.2, 1,000 products, Issue tracker, 99999999999999999999, deadbeef, 1728401303288, 0x7f 92 a8"
        )
        .is_empty()
    );
    assert_eq!(
        missing_paths("docs/X.md", "`src/nope.rs` and [a](../src/nope2.rs) and `src/lib.rs`"),
        ["src/nope.rs", "src/nope2.rs"]
    );
}

/// The Go workshop's figures in docs/SPEC.md, "Reference figures", are the
/// ones the report divides by (`report::markdown::GO_REFERENCE`).
#[test]
fn spec_reference_figures_match_the_report() {
    let spec = include_str!("../docs/SPEC.md");
    let section = &spec[spec.find("### Reference figures").expect("heading")..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let num = |s: &str| {
        s.trim()
            .replace(',', "")
            .parse::<f64>()
            .unwrap_or_else(|e| panic!("{s:?}: {e}"))
    };
    let mut rows = 0;
    for line in section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| format"))
    {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let go = wirebench::report::markdown::GO_REFERENCE
            .iter()
            .find(|r| r.0 == cells[0])
            .unwrap_or_else(|| panic!("{} is not in GO_REFERENCE", cells[0]));
        let (raw, gz) = cells[1].split_once('/').unwrap();
        let (p50, p95) = cells[5].split_once('/').unwrap();
        let spec_row = [
            num(raw),
            num(gz),
            num(cells[2]),
            num(cells[3]),
            num(cells[4]),
            num(p50),
            num(p95),
        ];
        let code_row = [go.1, go.2, go.3, go.4, go.5, go.6, go.7];
        assert_eq!(spec_row, code_row, "{}", cells[0]);
        rows += 1;
    }
    assert_eq!(rows, wirebench::report::markdown::GO_REFERENCE.len());
}
