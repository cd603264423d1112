//! House rules that a test can hold (after rust-analyzer's `tidy.rs`):
//! every source file opens with a module doc, every codec documents its wire
//! format, `unsafe` appears only where it is allowed — generated code and
//! the counting allocator, each of which says why — and docs state the
//! present rather than narrate history.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches"] {
        if root.join(dir).is_dir() {
            rust_files(&root.join(dir), &mut files);
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

fn is_generated(text: &str) -> bool {
    text.starts_with("// @generated")
}

#[test]
fn every_module_opens_with_a_doc_comment() {
    for (path, text) in sources() {
        if is_generated(&text) || path.starts_with("tests/support/") && text.starts_with("//!") {
            continue;
        }
        let first = text.lines().next().unwrap_or("");
        assert!(
            first.starts_with("//!") || first.starts_with("#![") && text.contains("\n//!"),
            "{path}: first line must be a module doc (`//! what this file does`)"
        );
    }
}

#[test]
fn every_codec_documents_its_wire_format() {
    for (path, text) in sources() {
        let is_codec_root = path.starts_with("src/codec/") && path.ends_with("/mod.rs") && path != "src/codec/mod.rs";
        if is_codec_root {
            assert!(
                text.contains("# Wire format"),
                "{path}: the module doc needs a `# Wire format` section"
            );
            assert!(
                text.lines()
                    .take_while(|l| l.starts_with("//!"))
                    .any(|l| l.contains("0x") || l.contains("  ")),
                "{path}: the wire format section should show bytes"
            );
        }
    }
}

/// Files where `unsafe` is allowed, and why.
const UNSAFE_ALLOWED: &[&str] = &[
    // flatc output: the generated accessors use unchecked reads after verification.
    "src/codec/flatbuffers/generated.rs",
    // A GlobalAlloc impl is unsafe by definition; each block carries a SAFETY comment.
    "src/measure/alloc.rs",
    // The spare-capacity writer both catalog writers share: fixed-width
    // stores and string copies into a vector's spare capacity under one
    // room check per section (no zero-fill), then `set_len` over the bytes
    // written; and the schema-driven encoders' single stores (a zeroed
    // window for `push_padded`); SAFETY comments, tests in the module
    // (debug builds assert every store against its check).
    "src/codec/spare.rs",
    // The MessagePack writer calls those stores (they are `unsafe fn`s),
    // arguing once per section that they stay within its check; SAFETY
    // comments, tests in the module.
    "src/codec/msgpack/write.rs",
    // The JSON writer does the same (each escape claiming its extra bytes),
    // and copies strings while scanning them for escapes a word at a time;
    // SAFETY comments, tests in the module.
    "src/codec/json/write.rs",
    // Strings read in place (the MessagePack reader and view, the Avro
    // view) are taken as `str` after `is_ascii` (no second UTF-8 pass);
    // SAFETY comment, test in the module.
    "src/codec/utf8.rs",
    // The server's C library calls on its listening socket (`listen(2)`
    // for the backlog, `getsockopt(2)` for its queue and drops); SAFETY
    // comments, tests in the module.
    "src/http/sys.rs",
    // `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`: the thread's exact CPU clock
    // (schedstat lags a tick); SAFETY comments, a test in the module.
    "src/measure/cpu.rs",
];

/// flatc output for the evolution steps' v2 schemas, like the catalog's
/// `generated.rs`: `src/evolve/generated/<step>_fb.rs`.
fn is_evolution_flatc_output(path: &str) -> bool {
    path.strip_prefix("src/evolve/generated/")
        .is_some_and(|name| name.ends_with("_fb.rs") && !name.contains('/'))
}

#[test]
fn unsafe_only_where_allowed() {
    for (path, text) in sources() {
        if UNSAFE_ALLOWED.contains(&path.as_str()) || is_evolution_flatc_output(&path) {
            if !is_generated(&text) {
                for (i, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or("");
                    if code.contains("unsafe {") || line.trim_start().starts_with("unsafe ") {
                        let before: Vec<&str> = text.lines().take(i).collect();
                        let near = before.iter().rev().take(6).any(|l| l.contains("SAFETY:"));
                        assert!(near, "{path}:{}: unsafe without a `// SAFETY:` comment above it", i + 1);
                    }
                }
            }
            continue;
        }
        if path == "tests/tidy.rs" {
            continue;
        }
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            // The one allowed attribute: on the declaration of a generated module.
            let on_generated_mod = code.contains("allow(unsafe_code")
                && lines[i + 1..].iter().take(3).any(|l| l.contains("mod generated"));
            if on_generated_mod {
                continue;
            }
            assert!(
                !(code.contains("unsafe ") || code.contains("unsafe{") || code.contains("allow(unsafe_code")),
                "{path}:{}: `unsafe` outside the allowed files",
                i + 1
            );
        }
    }
}

/// Runtime dependencies are exactly flatbuffers, prost and miniz_oxide (and
/// what they pull in): `cargo tree -e normal` lists nothing else at depth 1.
#[test]
fn runtime_dependencies_are_the_three_allowed() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["tree", "-e", "normal", "--depth", "1", "--prefix", "depth", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut direct: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix('1'))
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect();
    direct.sort();
    assert_eq!(
        direct,
        ["flatbuffers", "miniz_oxide", "prost"],
        "cargo tree -e normal:\n{text}"
    );
}

/// **Architecture Invariant:** codecs never do I/O and never import the
/// server, the load generator, the benchmarks, the report or the annotators;
/// annotators never call a codec's decoder or the generated code.
#[test]
fn layering_holds() {
    for (path, text) in sources() {
        // Unit tests may measure (e.g. read /proc); the layering is about the code itself.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        if path.starts_with("src/codec/") {
            for forbidden in [
                "crate::http",
                "crate::load",
                "crate::bench",
                "crate::report",
                "crate::explain",
                "std::net",
                "std::fs",
            ] {
                assert!(!code.contains(forbidden), "{path}: a codec must not use {forbidden}");
            }
        }
        if path.starts_with("src/explain/") {
            for forbidden in [
                "::decode(",
                "generated::",
                "codec::json::",
                "codec::msgpack::",
                "codec::avro::",
            ] {
                // The annotator itself; its unit tests may build a datum
                // from a JSON document or check it against a decoder.
                let hit = code
                    .lines()
                    .any(|l| !l.trim_start().starts_with("//") && l.contains(forbidden));
                assert!(
                    !hit,
                    "{path}: an annotator must be an independent reader, not call {forbidden}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Docs state the present

/// Phrases that narrate history instead of stating what is true
/// (`tests/docs.rs` catches dated runs and issue numbers; this catches the
/// words). Matched case-insensitively, on word boundaries.
const NARRATION: &[&str] = &[
    "as before",
    "no longer",
    "used to be",
    "it used to",
    "we used to",
    "which used to",
    "new:",
    "for now",
    "anymore",
    "previously",
    "formerly",
    "recently",
    "these days",
    "this morning",
    "yesterday",
    "today",
    "was renamed",
    "were renamed",
    "has been replaced",
    "was replaced",
    "since then",
];

/// Lines where a listed phrase is not narration, with the reason.
const NARRATION_ALLOWED: &[(&str, &str)] = &[
    // "now" is the moment the report runs, not a change to the code.
    ("src/report/mod.rs", "one now and says so"),
];

/// The prose of a Markdown text or of a Rust file's `//!` module doc, as
/// (line number, text): fenced code blocks, indented code blocks (quoted
/// output) and inline code spans are left out, since identifiers such as
/// `Instant::now` are not prose.
fn prose(path: &str, text: &str) -> Vec<(usize, String)> {
    let rust = path.ends_with(".rs");
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        let line = if rust {
            match line.trim_start().strip_prefix("//!") {
                Some(doc) => doc.strip_prefix(' ').unwrap_or(doc),
                None => continue,
            }
        } else {
            line
        };
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced || line.starts_with("    ") || line.starts_with('\t') {
            continue;
        }
        let kept: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        out.push((n + 1, kept));
    }
    out
}

fn word_at(hay: &str, i: usize, len: usize) -> bool {
    let b = hay.as_bytes();
    let before = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
    let after = b
        .get(i + len)
        .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'));
    before && after
}

/// Narrating phrases in `text` (Markdown, or a Rust file's module doc), as
/// "path:line: phrase: text". "now" counts unless it ends a clause ("the
/// bytes held now."), where it means "at this moment".
fn narration(path: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (n, line) in prose(path, text) {
        let lower = line.to_ascii_lowercase();
        let allowed = NARRATION_ALLOWED.iter().any(|(p, l)| *p == path && line.contains(l));
        if allowed {
            continue;
        }
        let mut hits: Vec<&str> = NARRATION
            .iter()
            .copied()
            .filter(|p| {
                lower
                    .match_indices(p)
                    .any(|(i, _)| word_at(&lower, i, p.len()) || p.ends_with(':'))
            })
            .collect();
        let now_narrates = lower.match_indices("now").any(|(i, _)| {
            let ends_clause = lower[i + 3..]
                .trim_start()
                .chars()
                .next()
                .is_none_or(|c| ".,;:)".contains(c));
            word_at(&lower, i, 3) && !ends_clause
        });
        if now_narrates {
            hits.push("now");
        }
        for hit in hits {
            out.push(format!("{path}:{n}: {hit:?}: {}", line.trim()));
        }
    }
    out
}

/// README.md, docs/*.md and every module doc in src/.
fn doc_texts() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![(
        "README.md".to_string(),
        std::fs::read_to_string(root.join("README.md")).unwrap(),
    )];
    let mut md: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    md.sort();
    for p in md {
        let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
        out.push((rel, std::fs::read_to_string(&p).unwrap()));
    }
    out.extend(
        sources()
            .into_iter()
            .filter(|(p, t)| p.starts_with("src/") && !is_generated(t)),
    );
    out
}

#[test]
fn docs_do_not_narrate_history() {
    let bad: Vec<String> = doc_texts().iter().flat_map(|(p, t)| narration(p, t)).collect();
    assert!(
        bad.is_empty(),
        "docs state the present; history lives in git (or add the line to NARRATION_ALLOWED with a reason):\n{}",
        bad.join("\n")
    );
}

/// The narration check finds each kind of phrase, and leaves code, quoted
/// output and "now" meaning "at this moment" alone.
#[test]
fn narration_check_can_fail() {
    let md = "JSON now gets a fresh buffer.\n\
              `/catalog/{format}` works as before.\n\
              The formats no longer differ.\n\
              New: a flag.\n\
              It used to be slower. Today it is fast.\n\
              The bytes held now.\n\
              Call `Instant::now()` and `now_ns`.\n\
              \x20   $ date   # prints now and then\n\
              ```\nnow is code\n```\n\
              A snowy known town.\n";
    let found = narration("fake/X.md", md);
    let lines: Vec<&str> = found.iter().map(|f| f.split(": ").next().unwrap()).collect();
    assert_eq!(
        lines,
        [
            "fake/X.md:1",
            "fake/X.md:2",
            "fake/X.md:3",
            "fake/X.md:4",
            "fake/X.md:5",
            "fake/X.md:5",
            "fake/X.md:5"
        ],
        "{found:#?}"
    );
    let rs = "//! The reader now checks UTF-8.\n//! Bytes reserved now.\nlet now = Instant::now(); // now as before\n";
    assert_eq!(narration("src/x.rs", rs).len(), 1, "{:?}", narration("src/x.rs", rs));
}
