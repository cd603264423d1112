//! Counts the docs state: the fuzz targets (three lists in `fuzz/` that must
//! agree, and every "N targets" in the docs), and the top-level modules the
//! one reading order (docs/ARCHITECTURE.md, "Reading order") must name.

use crate::{differences, docs, first_cells, read, root, section, set};
use std::collections::BTreeSet;

/// The fuzz targets by the three lists that name them: the files, the
/// `[[bin]]` entries of fuzz/Cargo.toml, and fuzz/run.sh's default list.
fn fuzz_targets() -> [BTreeSet<String>; 3] {
    let files = std::fs::read_dir(root().join("fuzz/fuzz_targets"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".rs").map(str::to_string))
        .collect();
    let cargo = read("fuzz/Cargo.toml");
    let bins = cargo
        .split("[[bin]]")
        .skip(1)
        .map(|entry| {
            let line = entry
                .lines()
                .find(|l| l.trim_start().starts_with("name"))
                .expect("a name");
            line.split('"').nth(1).expect("a quoted name").to_string()
        })
        .collect();
    let run = read("fuzz/run.sh");
    let default = run
        .lines()
        .find_map(|l| l.strip_prefix("FUZZ_TARGETS=${FUZZ_TARGETS:-\""))
        .expect("run.sh sets a default FUZZ_TARGETS");
    let default = set(default.split('"').next().unwrap().split_whitespace());
    [files, bins, default]
}

const NUMBER_WORDS: [&str; 21] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];

fn number(word: &str) -> Option<usize> {
    let w = word.to_ascii_lowercase();
    w.parse().ok().or_else(|| NUMBER_WORDS.iter().position(|n| *n == w))
}

/// Every count of fuzz targets stated in `text`: a number followed by
/// `targets` or `fuzz targets`, on a line that mentions fuzzing (or
/// anywhere, when `fuzz_page` is set), as (line number, count).
fn stated_target_counts(text: &str, fuzz_page: bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if !fuzz_page && !line.to_ascii_lowercase().contains("fuzz") {
            continue;
        }
        let words: Vec<&str> = line
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
            .filter(|w| !w.is_empty())
            .collect();
        for (i, w) in words.iter().enumerate() {
            let Some(count) = number(w) else { continue };
            let next = words.get(i + 1).copied().unwrap_or("");
            let after = words.get(i + 2).copied().unwrap_or("");
            let targets = |w: &str| w == "targets" || w == "target";
            let fuzz = |w: &str| matches!(w, "fuzz" | "fuzzing" | "cargo-fuzz" | "libFuzzer");
            if targets(next) || fuzz(next) && targets(after) {
                out.push((n + 1, count));
            }
        }
    }
    out
}

#[test]
fn fuzz_target_counts_are_true() {
    let [files, bins, default] = fuzz_targets();
    assert_eq!(
        files, bins,
        "fuzz/fuzz_targets/*.rs against fuzz/Cargo.toml's [[bin]] names"
    );
    assert_eq!(
        files, default,
        "fuzz/fuzz_targets/*.rs against fuzz/run.sh's default FUZZ_TARGETS"
    );
    let mut bad = Vec::new();
    let mut stated = 0;
    let mut texts = docs();
    texts.push(("fuzz/run.sh".into(), read("fuzz/run.sh")));
    texts.push(("Makefile".into(), read("Makefile")));
    for (path, text) in texts {
        let page = path == "docs/FUZZING.md" || path == "fuzz/run.sh";
        for (line, n) in stated_target_counts(&text, page) {
            stated += 1;
            if n != files.len() {
                bad.push(format!(
                    "{path}:{line}: says {n} fuzz targets; there are {}",
                    files.len()
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(
        stated > 0,
        "no doc states the number of fuzz targets: is the scanner reading them?"
    );
}

/// The targets a `| target | … |` table names: every backticked word of its
/// first column.
fn target_table(md: &str) -> BTreeSet<String> {
    let at = md.find("\n| target |").expect("a `| target |` table");
    first_cells(&md[at + 1..])
        .iter()
        .flat_map(|c| c.split('`').skip(1).step_by(2).map(str::to_string).collect::<Vec<_>>())
        .collect()
}

#[test]
fn fuzzing_md_lists_every_target() {
    let [files, ..] = fuzz_targets();
    let table = target_table(&read("docs/FUZZING.md"));
    let bad = differences("docs/FUZZING.md's target table", &table, &files);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn fuzz_target_count_check_can_fail() {
    let table = "text\n| target | input |\n|---|---|\n| `json`, `avro` | x |\n| `gunzip` | y |\n\nmore";
    assert_eq!(target_table(table), set(["json", "avro", "gunzip"]));
    let doc = "make fuzz  # 10 targets\nall eleven fuzz targets\nrun 3 rounds of fuzzing\nten targets of make";
    assert_eq!(stated_target_counts(doc, false), [(1, 10), (2, 11)]);
    assert_eq!(stated_target_counts(doc, true), [(1, 10), (2, 11), (4, 10)]);
}

/// The top-level modules a crate root declares (`pub mod NAME;`).
fn top_modules(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod "))
        .filter_map(|l| l.strip_suffix(';'))
        .map(str::to_string)
        .collect()
}

/// The modules of `modules` that `text` never names as `src/NAME` (a file
/// `src/NAME.rs` or a folder `src/NAME/`).
fn unnamed_modules(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    modules
        .iter()
        .filter(|m| !text.contains(&format!("src/{m}.rs")) && !text.contains(&format!("src/{m}/")))
        .cloned()
        .collect()
}

/// Files other than docs/ARCHITECTURE.md that state a reading order of their
/// own (a "Reading order" heading or a "Reading order for ..." list) instead
/// of citing it.
fn other_reading_orders(files: &[(String, String)]) -> Vec<String> {
    const CITE: &str = "docs/ARCHITECTURE.md`, \"Reading order\"";
    files
        .iter()
        .filter(|(p, _)| p != "docs/ARCHITECTURE.md")
        .filter(|(_, t)| {
            t.lines().any(|l| {
                let l = l.trim_start_matches("//!").trim();
                let heading = l.trim_start_matches('#').trim().eq_ignore_ascii_case("reading order");
                let lower = l.to_ascii_lowercase();
                let opens = lower.starts_with("reading order for") || lower.starts_with("reading order:");
                let list = opens && !l.replace(".md,", ".md`,").contains(CITE);
                heading || list
            })
        })
        .map(|(p, _)| p.clone())
        .collect()
}

#[test]
fn one_reading_order_names_every_module() {
    let arch = read("docs/ARCHITECTURE.md");
    let order = section(&arch, "Reading order");
    let modules = top_modules(&read("src/lib.rs"));
    assert!(modules.contains("codec") && modules.contains("evolve"), "{modules:?}");
    let missing = unnamed_modules(order, &modules);
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md, \"Reading order\" never names {missing:?}"
    );
    let mut files = docs();
    files.push(("src/lib.rs".into(), read("src/lib.rs")));
    let others = other_reading_orders(&files);
    assert!(
        others.is_empty(),
        "a second reading order in {others:?}: cite docs/ARCHITECTURE.md, \"Reading order\""
    );
    for path in ["README.md", "src/lib.rs"] {
        assert!(
            read(path).contains("docs/ARCHITECTURE.md"),
            "{path} does not point to the reading order"
        );
    }
}

#[test]
fn reading_order_checks_can_fail() {
    let modules = top_modules("//! doc\npub mod codec;\npub mod evolve;\nmod private;\n");
    assert_eq!(modules, set(["codec", "evolve"]));
    assert_eq!(unnamed_modules("1. `src/codec/mod.rs`", &modules), set(["evolve"]));
    let files = [
        (
            "README.md".to_string(),
            "Reading order for the code: `docs/ARCHITECTURE.md`, \"Reading order\".".to_string(),
        ),
        (
            "src/lib.rs".to_string(),
            "//! Reading order for a newcomer:\n//! 1. model".to_string(),
        ),
        ("fake/X.md".to_string(), "## Reading order\n".to_string()),
    ];
    assert_eq!(other_reading_orders(&files), ["src/lib.rs", "fake/X.md"]);
}
