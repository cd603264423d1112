//! `wirebench ab` on real processes of the built binary, kept short (short
//! batches, few rounds, two or three rows): two copies of one build flag no
//! row; the NEW side with `--slow-row` 30% slower flags that row alone (and a
//! document's row with `--data`, 100% slower) and
//! `--fail-over` exits 1; bad arguments exit 2 with an error naming what is
//! wrong.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Two copies of the built binary in a fresh directory, removed on drop
/// (also when the test fails), so a test run leaves nothing in the temp dir.
/// Holding the copies also holds [`SERIAL`]: the tests of this file time
/// two processes against each other, so they run one at a time rather than
/// on each other's cores (an A/A run beside another test's `ab` once saw
/// ±35% batches and flagged a row).
struct Copies {
    dir: PathBuf,
    base: PathBuf,
    new: PathBuf,
    _serial: std::sync::MutexGuard<'static, ()>,
}

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Drop for Copies {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn two_copies(name: &str) -> Copies {
    // A test that failed while holding the lock poisons it; the next still runs.
    let serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = std::env::temp_dir().join(format!("wirebench-ab-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (base, new) = (dir.join("base"), dir.join("new"));
    std::fs::copy(env!("CARGO_BIN_EXE_wirebench"), &base).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_wirebench"), &new).unwrap();
    Copies {
        dir,
        base,
        new,
        _serial: serial,
    }
}

/// Self-test of the clean-up: the directory exists while the copies live
/// and is gone after they drop.
#[test]
fn the_copies_are_removed_on_drop() {
    let c = two_copies("drop");
    let dir = c.dir.clone();
    assert!(c.base.is_file() && c.new.is_file());
    drop(c);
    assert!(!dir.exists(), "{} left behind", dir.display());
}

fn ab(base: &PathBuf, new: &PathBuf, flags: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .arg("ab")
        .arg(base)
        .arg(new)
        .args(flags)
        .output()
        .unwrap()
}

/// The result line of `row`, and whether it is flagged (no `~`).
fn verdict<'a>(stdout: &'a str, row: &str) -> (&'a str, bool) {
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(row))
        .unwrap_or_else(|| panic!("no line for {row}:\n{stdout}"));
    (line, !line.contains(" ~ "))
}

const ROWS: &str = "^Memcpy/json/100$|^Encode/msgpack/1$";
/// Both rows, 8 rounds of 5 ms batches; the A/A run fails over any slowdown.
const FLAGS: [&str; 8] = [
    "--rows",
    ROWS,
    "--rounds",
    "8",
    "--benchtime",
    "5ms",
    "--fail-over",
    "0",
];

#[test]
fn two_copies_of_one_build_flag_no_row() {
    let copies = two_copies("aa");
    let (a, b) = (copies.base.clone(), copies.new.clone());
    // The table is a test at alpha 0.05 (Holm over its rows), so an A/A run
    // flags a row about one time in twenty by design (CI saw one: debug
    // Encode/msgpack/1, NEW slower in 8 of 8 rounds). A flag that comes back
    // in a second run is a bias; one that does not is that 5%.
    let mut out = ab(&a, &b, &FLAGS);
    if !String::from_utf8_lossy(&out.stdout).contains("0 of 2 rows differ significantly") {
        eprintln!(
            "first A/A run flagged a row, running it again:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
        out = ab(&a, &b, &FLAGS);
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    for row in ["Memcpy/json/100", "Encode/msgpack/1"] {
        let (line, flagged) = verdict(&stdout, row);
        assert!(!flagged, "A/A flagged {row}: {line}");
        // A row the test separates but under the floor is not flagged and
        // says so after its count.
        assert!(line.split_whitespace().any(|w| w == "n=8"), "{line}");
    }
    assert!(stdout.contains("0 of 2 rows differ significantly"), "{stdout}");
    assert!(stdout.contains("geomean"), "{stdout}");
    // Progress with the time left, one line per row and round.
    assert_eq!(stderr.matches(" left] round ").count(), 16, "{stderr}");
}

#[test]
fn a_row_made_30_percent_slower_is_flagged_and_fails_the_run() {
    let copies = two_copies("slow");
    let (a, b) = (copies.base.clone(), copies.new.clone());
    let out = ab(
        &a,
        &b,
        &[&FLAGS[..6], &["--slow-row", "Memcpy/json/100=30", "--fail-over", "10"]].concat(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let (line, flagged) = verdict(&stdout, "Memcpy/json/100");
    assert!(flagged, "{line}");
    // The change column: "+30.x% [lo, hi]" around the hook's 30%.
    let change: f64 = line
        .split_whitespace()
        .find(|w| w.starts_with('+') && w.ends_with('%'))
        .and_then(|w| w.trim_matches(|c| c == '+' || c == '%').parse().ok())
        .unwrap_or_else(|| panic!("no change in {line}"));
    assert!((15.0..60.0).contains(&change), "{line}");
    assert!(
        stderr.contains("Memcpy/json/100") && stderr.contains("over 10%"),
        "{stderr}"
    );
    assert!(
        stdout.contains("test hook: NEW runs Memcpy/json/100 30% slower"),
        "{stdout}"
    );
    // A document's row (`--data`), made slower the same way, is flagged too
    // (by 100%: a document's debug-build batches spread wider than the
    // catalog row's, ±72% once on a quiet machine);
    // without --fail-over the run exits 0.
    let out = ab(
        &a,
        &b,
        &[
            "--data",
            "fixtures/data/events.json",
            "--rows",
            "^Data/avro/encode$",
            "--rounds",
            "10",
            "--benchtime",
            "5ms",
            "--slow-row",
            "Data/avro/encode=100",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("codec rows of fixtures/data/events.json"), "{stdout}");
    let (line, flagged) = verdict(&stdout, "Data/avro/encode");
    assert!(flagged && line.contains(" n=10"), "{line}");
}

#[test]
fn bad_arguments_exit_2_with_a_clear_error() {
    let copies = two_copies("bad");
    let (a, b) = (copies.base.clone(), copies.new.clone());
    let missing = PathBuf::from("/nonexistent/wirebench");
    let cases: Vec<(Vec<&str>, &PathBuf, &str)> = vec![
        (vec![], &missing, "NEW_BIN \"/nonexistent/wirebench\": not a file"),
        (vec!["--rows", "(a|b)"], &b, "'(' is not supported"),
        (vec!["--rows", "^NoSuchRow$"], &b, "matches no row"),
        (vec!["--rounds", "3"], &b, "--rounds 3: at least 6"),
        (vec!["--rounds", "many"], &b, "--rounds: invalid value \"many\""),
        (vec!["--benchtime", "fast"], &b, "invalid duration \"fast\""),
        (vec!["--fail-over", "-5"], &b, "--fail-over: expected a percentage"),
        (vec!["--slow-row", "Decode/json/1"], &b, "expected NAME=PCT"),
        (
            vec!["--rows", "^Decode/json/1$", "--slow-row", "Encode/json/1=3"],
            &b,
            "\"Encode/json/1\" is not among the rows run",
        ),
        (vec!["--bogus"], &b, "unknown flag --bogus"),
        (vec!["--schema", "s.avsc"], &b, "--schema goes with --data FILE.json"),
        (vec!["--data", "/nonexistent/doc.json"], &b, "/nonexistent/doc.json"),
        (
            vec!["--data", "fixtures/data/events.json", "--http"],
            &b,
            "the HTTP cases serve the catalog",
        ),
        (
            vec!["--data", "fixtures/data/events.json", "--rows", "^Encode/"],
            &b,
            "with --data, Data/json/encode",
        ),
    ];
    for (flags, new, message) in cases {
        let out = ab(&a, new, &flags);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {stderr}");
        assert!(stderr.contains(message), "{flags:?}: expected {message:?} in {stderr}");
    }
    // One binary only.
    let out = Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .args(["ab"])
        .arg(&a)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected BASE_BIN NEW_BIN, found 1 arguments"));
    // A NEW binary whose codec-bench fails: the run stops with its error.
    let script = a.with_file_name("broken");
    std::fs::write(&script, "#!/bin/sh\necho 'codec-bench: broken build' >&2\nexit 2\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = ab(
        &a,
        &script,
        &["--rows", "^Memcpy/json/1$", "--rounds", "6", "--benchtime", "1ms"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("NEW") && stderr.contains("broken build"), "{stderr}");
}

#[test]
fn http_cases_run_against_each_builds_server() {
    let copies = two_copies("http");
    let (a, b) = (copies.base.clone(), copies.new.clone());
    let out = ab(
        &a,
        &b,
        &[
            "--http",
            "--rows",
            "^http/json/1$",
            "--rounds",
            "6",
            "--http-duration",
            "100ms",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("HTTP server-only cases (server CPU µs per request"),
        "{stdout}"
    );
    let (line, _) = verdict(&stdout, "http/json/1");
    assert!(line.split_whitespace().any(|w| w == "n=6"), "{line}");
    assert!(!stdout.contains("codec rows"), "no codec row was asked for: {stdout}");
    // Without --http the HTTP cases are not offered.
    let out = ab(&a, &b, &["--rows", "^http/json/1$"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("matches no row"));
}
