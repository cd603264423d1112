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
