//! The binary's interface as the docs state it: commands (`wirebench
//! help`), each command's flags (`wirebench CMD --help`), the make targets,
//! and the exit statuses (`cli::EXIT_STATUSES`, and what the built binary
//! really returns).

use crate::{code, differences, docs, first_cells, read, root, section, set};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

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

/// Programs whose own flags docs name on a command line: a flag after one
/// of these (or after a `*.sh` script) is that program's, not wirebench's.
const OTHER_PROGRAMS: &[&str] = &[
    "cargo",
    "curl",
    "make",
    "taskset",
    "valgrind",
    "callgrind_annotate",
    "wrk",
    "oha",
    "nginx",
    "locust",
    "python",
    "python3",
    "pip",
    "git",
    "rustup",
    "flatc",
    "protoc",
    "perf",
];

/// Flags of other programs that docs name in prose, with the program.
const FOREIGN_FLAGS: &[(&str, &str)] = &[("--sanitizer", "cargo fuzz"), ("--case", "benches/peers.rs")];

/// The flags a doc names, each with the command it names it for: the
/// command word last seen on the line (after `wirebench`, cargo's `--`, or
/// opening a code span), or `None` for a flag named on its own. Flags of
/// other programs on the line (`cargo`, `curl`, `make`, `valgrind`, `wrk`, a
/// `*.sh` or `*.py` script, …) are left out.
fn flags_by_command(md: &str, commands: &BTreeSet<String>) -> Vec<(usize, Option<String>, String)> {
    let mut out = Vec::new();
    for (n, line) in md.lines().enumerate() {
        let mut current: Option<String> = None;
        let mut foreign = false; // inside a cargo/curl/make invocation's own flags
        let mut prev = "";
        for raw in line.split_whitespace() {
            let opens_code = raw.starts_with('`');
            let tok = raw.trim_matches(|c: char| "`'\"(),;:.".contains(c));
            let tool = OTHER_PROGRAMS.contains(&tok);
            if tool || tok.ends_with(".sh") || tok.ends_with(".py") {
                foreign = true;
                current = None;
            } else if commands.contains(tok)
                && (prev == "wirebench" || prev.ends_with("/wirebench") || prev == "--" || opens_code)
            {
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
    let table = set(first_cells(section(&read("docs/SPEC.md"), "Command line"))
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
    for (path, text) in docs() {
        for (line, cmd, flag) in flags_by_command(&text, &commands) {
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
              valgrind --tool=callgrind x; benches/a.sh --case y; locust -f l.py --users 5\n\
              target/release/wirebench serve --addr A\n";
    assert_eq!(
        flags_by_command(md, &commands),
        [
            (1, Some("load".to_string()), "--url".to_string()),
            (1, Some("load".to_string()), "--verify".to_string()),
            (3, Some("serve".to_string()), "--addr".to_string()),
            (3, None, "--histograms".to_string()),
            (4, Some("load".to_string()), "--bogus".to_string()),
            (6, Some("serve".to_string()), "--addr".to_string()),
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
    // README.md: "`make help` lists every target".
    let help = Command::new("make")
        .args(["--no-print-directory", "help"])
        .current_dir(root())
        .output();
    let help = String::from_utf8(help.expect("run make help").stdout).unwrap();
    let listed = set(help.lines().filter_map(|l| l.split_whitespace().next()));
    bad.extend(differences("`make help` vs the Makefile's rules", &listed, &targets));
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

/// Ways `src` could exit with a status `cli::EXIT_STATUSES` does not list:
/// an `ExitCode` from a literal or a std constant, or `process::exit`.
fn exit_bypasses(path: &str, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in src.match_indices("ExitCode::from(") {
        if src[i + 15..].starts_with(|c: char| c.is_ascii_digit()) {
            out.push(format!(
                "{path}: an ExitCode from a literal, not from cli::EXIT_STATUSES"
            ));
        }
    }
    if src.contains("ExitCode::SUCCESS") || src.contains("ExitCode::FAILURE") {
        out.push(format!("{path}: ExitCode::SUCCESS/FAILURE, not cli::EXIT_STATUSES"));
    }
    if src.contains("process::exit") {
        out.push(format!("{path}: process::exit, past main's status"));
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
    let mut rs = Vec::new();
    walk_rs(&root().join("src"), &mut rs);
    for p in rs {
        let rel = p.strip_prefix(root()).unwrap().to_string_lossy().into_owned();
        bad.extend(exit_bypasses(&rel, &std::fs::read_to_string(&p).unwrap()));
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
    assert!(exit_bypasses("m.rs", "ExitCode::from(cli::EXIT_OK)").is_empty());
    assert_eq!(
        exit_bypasses("m.rs", "ExitCode::from(3); ExitCode::SUCCESS; std::process::exit(4)").len(),
        3
    );
    let table = "### Exit status\n\n| status | when |\n|---|---|\n| `0` | ok |\n| `5` | odd |\n";
    let codes = set(["0", "1"]);
    assert_eq!(
        differences("t", &exit_table(section(table, "Exit status")), &codes).len(),
        2
    );
}

/// The first ```` ```text ```` block of `section`, trimmed.
fn first_text_block(section: &str) -> Option<&str> {
    let start = section.find("```text\n")? + 8;
    let len = section[start..].find("```")?;
    Some(section[start..start + len].trim())
}

/// The CSV header `load` writes is the one docs/LOAD.md, "The CSV columns" quotes.
#[test]
fn load_csv_columns_are_the_documented_ones() {
    let load = read("docs/LOAD.md");
    let quoted = first_text_block(section(&load, "The CSV columns")).expect("a ```text block");
    assert_eq!(
        quoted,
        wirebench::measure::results::HTTP_HEADER,
        "docs/LOAD.md, \"The CSV columns\""
    );
}

#[test]
fn csv_column_check_can_fail() {
    let doc = "## The CSV columns\n\nrows:\n\n```text\na,b,c\n```\n\n## Next\n";
    assert_eq!(first_text_block(section(doc, "The CSV columns")), Some("a,b,c"));
    assert_ne!(first_text_block(section(doc, "The CSV columns")), Some("a,b"));
    assert_eq!(first_text_block("no block"), None);
}
