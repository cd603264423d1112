//! Facts the docs state that the code can compute, computed at test time and
//! compared with every place a doc states them:
//!
//! | fact | from the code | in the docs |
//! |---|---|---|
//! | fuzz targets | `fuzz/fuzz_targets/*.rs`, `fuzz/Cargo.toml` `[[bin]]`, `fuzz/run.sh`'s default list | every "N targets" / "eleven fuzz targets" |
//! | commands | `wirebench help` (the built binary) | docs/SPEC.md, "Command line" |
//! | flags | `wirebench CMD --help` | every `--flag` README.md names, under the command it names |
//! | make targets | the Makefile's rules | every `make TARGET` in README.md and docs/ |
//! | routes | `http::routes::ROUTES`, held to the router's source and to a running server | docs/SPEC.md and docs/HTTP.md "Routes" tables, the `route` label list of `/metrics` |
//! | metric names | the `# TYPE` lines a running server's `/metrics` sends | docs/HTTP.md, "Metrics (`/metrics`)", and `src/http/metrics.rs`'s table |
//! | top-level modules | `src/lib.rs`'s `pub mod` list | docs/ARCHITECTURE.md, "Reading order", the one reading order README.md and `src/lib.rs` cite |
//! | exit statuses | `cli::EXIT_STATUSES`, the binary's real statuses, `main.rs` | docs/SPEC.md, "Exit status", `load --help`, README.md |
//!
//! Another branch adding a flag, route, metric or target then fails here
//! until the docs say so. Every comparison is a function with a self-test that
//! feeds it a planted discrepancy.

mod support;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use support::server::{self, Client};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// README.md and every docs/*.md, as (path, text).
fn docs() -> Vec<(String, String)> {
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

fn set<I: IntoIterator<Item = S>, S: Into<String>>(items: I) -> BTreeSet<String> {
    items.into_iter().map(Into::into).collect()
}

/// The lines of `md` under the heading whose text is `heading`, up to the
/// next heading of the same or a higher level.
fn section<'a>(md: &'a str, heading: &str) -> &'a str {
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
fn first_cells(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // the header and the |---| row
        .map(|l| l.trim_matches('|').split(" | ").next().unwrap_or("").trim().to_string())
        .collect()
}

/// The text inside the first backtick pair of `cell` (the cell itself if none).
fn code(cell: &str) -> &str {
    cell.split('`').nth(1).unwrap_or(cell)
}

/// What differs between what the docs say and what the code has, as lines.
fn differences(what: &str, doc: &BTreeSet<String>, code: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for d in doc.difference(code) {
        out.push(format!("{what}: the docs name {d:?}, the code has no such thing"));
    }
    for c in code.difference(doc) {
        out.push(format!("{what}: the code has {c:?}, the docs do not name it"));
    }
    out
}

// ---------------------------------------------------------------------------
// Fuzz targets

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

#[test]
fn fuzz_target_count_check_can_fail() {
    let doc = "make fuzz  # 10 targets\nall eleven fuzz targets\nrun 3 rounds of fuzzing\nten targets of make";
    assert_eq!(stated_target_counts(doc, false), [(1, 10), (2, 11)]);
    assert_eq!(stated_target_counts(doc, true), [(1, 10), (2, 11), (4, 10)]);
}

// ---------------------------------------------------------------------------
// Commands, flags, make targets

/// Runs the built binary; (exit status, stdout + stderr).
fn wirebench(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run wirebench");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code().expect("an exit status"), text)
}

/// The command names of `wirebench help`'s COMMANDS list.
fn commands_in_help(help: &str) -> BTreeSet<String> {
    help.lines()
        .skip_while(|l| l.trim() != "COMMANDS:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// Every `--flag` token in `text`.
fn flags_in(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("--") {
        let b = text.as_bytes();
        if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'-') {
            continue;
        }
        let name: String = text[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if name.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.insert(format!("--{}", name.trim_end_matches('-')));
        }
    }
    out
}

/// Flags of other programs that docs name in prose, with the program.
const FOREIGN_FLAGS: &[(&str, &str)] = &[("--sanitizer", "cargo fuzz"), ("--case", "benches/peers.rs")];

/// The flags a doc names, each with the command it names it for: the
/// command word last seen on the line (after `wirebench`, cargo's `--`, or
/// opening a code span), or `None` for a flag named on its own. Flags of
/// other programs on the line (`cargo`, `curl`, `make`, `valgrind`, `wrk`, a
/// `*.sh` script, …) are left out.
fn flags_by_command(md: &str, commands: &BTreeSet<String>) -> Vec<(usize, Option<String>, String)> {
    let mut out = Vec::new();
    for (n, line) in md.lines().enumerate() {
        let mut current: Option<String> = None;
        let mut foreign = false; // inside a cargo/curl/make invocation's own flags
        let mut prev = "";
        for raw in line.split_whitespace() {
            let opens_code = raw.starts_with('`');
            let tok = raw.trim_matches(|c: char| "`'\"(),;:.".contains(c));
            let tool = matches!(
                tok,
                "cargo" | "curl" | "make" | "taskset" | "valgrind" | "callgrind_annotate" | "wrk"
            );
            if tool || tok.ends_with(".sh") {
                foreign = true;
                current = None;
            } else if commands.contains(tok) && (prev == "wirebench" || prev == "--" || opens_code) {
                current = Some(tok.to_string());
                foreign = false;
            } else if opens_code && !tok.starts_with("--") {
                foreign = false;
                current = None;
            }
            if tok.starts_with("--") && tok.len() > 2 && !foreign {
                for flag in flags_in(tok) {
                    out.push((n + 1, current.clone(), flag));
                }
            }
            if raw.len() > 1 && raw.trim_end_matches(|c: char| ",.;:)".contains(c)).ends_with('`') {
                current = None; // the code span ends
                foreign = false;
            }
            prev = tok;
        }
    }
    out
}

#[test]
fn commands_and_flags_in_the_docs_are_the_binarys() {
    let (status, help) = wirebench(&["help"]);
    assert_eq!(status, 0, "{help}");
    let commands = commands_in_help(&help);
    assert!(commands.len() >= 5, "COMMANDS list not found in:\n{help}");
    let mut bad = Vec::new();

    // docs/SPEC.md's command table is the complete list.
    let spec = read("docs/SPEC.md");
    let table = set(first_cells(section(&spec, "Command line"))
        .iter()
        .map(|c| code(c).split_whitespace().next().unwrap_or("").to_string()));
    bad.extend(differences("docs/SPEC.md, \"Command line\"", &table, &commands));

    let mut flags = std::collections::BTreeMap::new();
    for cmd in commands.iter().filter(|c| *c != "help") {
        let (status, text) = wirebench(&[cmd, "--help"]);
        if status != 0 {
            bad.push(format!("wirebench {cmd} --help exits {status}"));
        }
        flags.insert(cmd.clone(), flags_in(&text));
    }
    let any: BTreeSet<String> = flags.values().flatten().cloned().collect();
    // docs/HTTP.md's flag table is the complete list of `serve`'s flags.
    let http = read("docs/HTTP.md");
    let table = set(first_cells(section(&http, "Threads, limits and timeouts"))
        .iter()
        .flat_map(|c| flags_in(c)));
    bad.extend(differences(
        "docs/HTTP.md, \"Threads, limits and timeouts\" vs serve --help",
        &table,
        &flags["serve"],
    ));
    drop(spec);
    for (path, text) in docs() {
        for (line, cmd, flag) in flags_by_command(&text, &commands) {
            let path = path.as_str();
            let known = match &cmd {
                Some(c) => flags.get(c).is_some_and(|f| f.contains(&flag)),
                None => any.contains(&flag),
            };
            let foreign = FOREIGN_FLAGS.iter().any(|(f, _)| *f == flag);
            if !known && !foreign && flag != "--help" {
                let whose = cmd.map_or("any command".to_string(), |c| format!("wirebench {c}"));
                bad.push(format!("{path}:{line}: {flag} is not in the --help of {whose}"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn command_and_flag_checks_can_fail() {
    let help = "USAGE: x\n\nCOMMANDS:\n  serve   run\n  load    go\n  help    this\n\nRun it.\n";
    let commands = commands_in_help(help);
    assert_eq!(commands, set(["serve", "load", "help"]));
    let spec = "## Command line\n\n| command | does |\n|---|---|\n| `serve` | x |\n| `explain FORMAT` | y |\n";
    let table = set(first_cells(section(spec, "Command line"))
        .iter()
        .map(|c| code(c).split_whitespace().next().unwrap().to_string()));
    assert_eq!(
        differences("t", &table, &commands).len(),
        3,
        "explain extra, load and help missing"
    );
    assert_eq!(
        flags_in("--rate R, `--url=x` a--b --9 -- --Upper"),
        set(["--rate", "--url"])
    );
    let serve_table = "| flag | default |\n|---|---|\n| `--max-connections` / `--threads` | 1 |\n| `--addr` | x |\n";
    assert_eq!(
        set(first_cells(serve_table).iter().flat_map(|c| flags_in(c))),
        set(["--max-connections", "--threads", "--addr"])
    );
    let md = "    cargo run --release -- load --url X --verify json\n\
              curl --compressed 'http://x'\n\
              `serve --addr A` and `--histograms DIR`\n\
              wirebench load --bogus\n\
              valgrind --tool=callgrind x; benches/a.sh --case y\n";
    assert_eq!(
        flags_by_command(md, &commands),
        [
            (1, Some("load".to_string()), "--url".to_string()),
            (1, Some("load".to_string()), "--verify".to_string()),
            (3, Some("serve".to_string()), "--addr".to_string()),
            (3, None, "--histograms".to_string()),
            (4, Some("load".to_string()), "--bogus".to_string()),
        ]
    );
}

/// The rules a Makefile defines (`name:` at the start of a line).
fn make_targets(makefile: &str) -> BTreeSet<String> {
    makefile
        .lines()
        .filter_map(|l| l.split_once(':').map(|(name, _)| name))
        .filter(|name| !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'))
        .map(str::to_string)
        .collect()
}

/// Every `make TARGET` in `text` (a lowercase word after `make `), by line.
fn make_invocations(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (i, _) in line.match_indices("make ") {
            if i > 0 && line.as_bytes()[i - 1].is_ascii_alphanumeric() {
                continue; // "remake", "cmake"
            }
            let target: String = line[i + 5..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect();
            let quoted = line[..i].ends_with('`') || line[..i].trim().is_empty() || line[..i].ends_with("; ");
            if !target.is_empty() && quoted {
                out.push((n + 1, target));
            }
        }
    }
    out
}

#[test]
fn make_targets_in_the_docs_exist() {
    let targets = make_targets(&read("Makefile"));
    assert!(targets.contains("test") && targets.contains("help"), "{targets:?}");
    let mut bad = Vec::new();
    let mut seen = 0;
    for (path, text) in docs() {
        for (line, t) in make_invocations(&text) {
            seen += 1;
            if !targets.contains(&t) {
                bad.push(format!("{path}:{line}: `make {t}` is not a Makefile target"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(
        seen > 10,
        "only {seen} `make` invocations found: is the scanner reading them?"
    );
}

#[test]
fn make_target_check_can_fail() {
    let targets = make_targets("CARGO ?= cargo\n.PHONY: a\ntest: ## t\n\tcargo test\nbench-quick: build\n");
    assert_eq!(targets, set(["test", "bench-quick"]));
    let doc = "    make test    # all\nrun `make bench-slow` or make it so\n";
    assert_eq!(
        make_invocations(doc),
        [(1, "test".to_string()), (2, "bench-slow".to_string())]
    );
}

// ---------------------------------------------------------------------------
// Routes

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
    let routes = set(wirebench::http::routes::ROUTES);
    let mut bad = Vec::new();
    let source = read("src/http/routes.rs");
    bad.extend(differences(
        "src/http/routes.rs's match arms vs ROUTES",
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
    let mut labels = routes.clone();
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
    for route in &routes {
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

// ---------------------------------------------------------------------------
// Exit statuses

/// Exit statuses a text states: the numbers of an `EXIT STATUS:` list
/// (lines `  N  meaning`), and numbers in the sentence after "exit status
/// is", "exit status", "exits" or "exit".
fn stated_exit_statuses(text: &str) -> BTreeSet<u8> {
    let mut out = BTreeSet::new();
    let mut in_list = false;
    for line in text.lines() {
        let t = line.trim();
        if t.eq_ignore_ascii_case("EXIT STATUS:") {
            in_list = true;
        } else if in_list {
            match t.split_whitespace().next().and_then(|w| w.parse().ok()) {
                Some(n) => {
                    out.insert(n);
                }
                None => in_list = false,
            }
        }
    }
    let flat = text.replace('\n', " ");
    for key in ["exit status is ", "exit status ", "exits ", "exit "] {
        for (i, _) in flat.match_indices(key) {
            let rest = &flat[i + key.len()..];
            let sentence = &rest[..rest.find(". ").unwrap_or(rest.len()).min(120)];
            for (k, w) in sentence.split(|c: char| !c.is_ascii_alphanumeric()).enumerate() {
                if let Ok(n) = w.parse::<u8>() {
                    out.insert(n);
                } else if k == 0 && !w.is_empty() {
                    break; // "exit the loop"
                }
            }
        }
    }
    out
}

/// The statuses of a `| status | meaning |` table (its first column).
fn exit_table(section: &str) -> BTreeSet<String> {
    set(first_cells(section).iter().map(|c| code(c).to_string()))
}

#[test]
fn exit_statuses_in_the_docs_are_the_binarys() {
    let codes: BTreeSet<u8> = wirebench::cli::EXIT_STATUSES.iter().map(|(n, _)| *n).collect();
    let mut bad = Vec::new();
    // The binary exits with these codes and only through them.
    let main = read("src/main.rs");
    for (i, _) in main.match_indices("ExitCode::from(") {
        if main[i + 15..].starts_with(|c: char| c.is_ascii_digit()) {
            bad.push("src/main.rs: an ExitCode from a literal, not from cli::EXIT_STATUSES".into());
        }
    }
    if main.contains("ExitCode::SUCCESS") || main.contains("ExitCode::FAILURE") {
        bad.push("src/main.rs: ExitCode::SUCCESS/FAILURE instead of cli::EXIT_STATUSES".into());
    }
    let mut rs = Vec::new();
    walk_rs(&root().join("src"), &mut rs);
    for p in rs {
        if std::fs::read_to_string(&p).unwrap().contains("process::exit") {
            bad.push(format!("{}: exits past main's status", p.display()));
        }
    }
    let to_set = |s: &BTreeSet<u8>| -> BTreeSet<String> { s.iter().map(u8::to_string).collect() };
    let spec = read("docs/SPEC.md");
    bad.extend(differences(
        "docs/SPEC.md, \"Exit status\"",
        &exit_table(section(&spec, "Exit status")),
        &to_set(&codes),
    ));
    let (_, load_help) = wirebench(&["load", "--help"]);
    bad.extend(differences(
        "wirebench load --help",
        &to_set(&stated_exit_statuses(&load_help)),
        &to_set(&codes),
    ));
    for (path, text) in docs() {
        for n in stated_exit_statuses(&text) {
            if !codes.contains(&n) {
                bad.push(format!(
                    "{path}: states exit status {n}, which the binary never returns"
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));

    // And the binary returns each one where the table says.
    let expect = |want: u8, args: &[&str]| {
        let (status, text) = wirebench(args);
        assert_eq!(status, i32::from(want), "wirebench {}:\n{text}", args.join(" "));
    };
    expect(wirebench::cli::EXIT_OK, &["help"]);
    expect(wirebench::cli::EXIT_USAGE, &["serve", "--no-such-flag"]);
    expect(wirebench::cli::EXIT_USAGE, &["no-such-command"]);
    // A port nothing listens on: every request fails to connect.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/ping");
    expect(
        wirebench::cli::EXIT_FAILED_REQUESTS,
        &[
            "load",
            "--url",
            &url,
            "--duration",
            "50ms",
            "--warmup",
            "0",
            "--concurrency",
            "1",
        ],
    );
}

fn walk_rs(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            walk_rs(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn exit_status_check_can_fail() {
    let help = "FLAGS:\n  --x\n\nEXIT STATUS:\n  0  fine\n  3  odd\n\nmore";
    assert_eq!(stated_exit_statuses(help), BTreeSet::from([0, 3]));
    let prose = "the exit status is 0 when all went well, 1 when\nany failed, 4 on a usage error. Then 7 things. Run exit the loop 9";
    assert_eq!(stated_exit_statuses(prose), BTreeSet::from([0, 1, 4]));
    assert_eq!(
        stated_exit_statuses("(exit 2 when they do not resolve)"),
        BTreeSet::from([2])
    );
    let table = "### Exit status\n\n| status | when |\n|---|---|\n| `0` | ok |\n| `5` | odd |\n";
    let codes = set(["0", "1"]);
    assert_eq!(
        differences("t", &exit_table(section(table, "Exit status")), &codes).len(),
        2
    );
}

// ---------------------------------------------------------------------------
// The reading order

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
