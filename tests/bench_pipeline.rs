//! `make bench` on a results directory that holds another run's files: the
//! run's first step (`wirebench report --clear-run DIR`) removes every file a
//! run writes and keeps the separate runs, so a stale file never stops the
//! new run's report; a directory mixed by hand is still refused.
//! Runs the built binary on copies of the committed `results/`.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_wirebench");

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirebench-pipeline-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/results")), &dir);
    dir
}

/// Writes `file` again with its run stamp replaced by `id`: a file of
/// another run left in the directory.
fn restamp(dir: &Path, file: &str, id: &str) {
    let p = dir.join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        match line.strip_prefix("run: ").or_else(|| line.strip_prefix("# run: ")) {
            Some(_) if line.starts_with('#') => out += &format!("# run: {id}\n"),
            Some(_) => out += &format!("run: {id}\n"),
            None => out += &format!("{line}\n"),
        }
    }
    assert_ne!(out, text, "{file} carries no run stamp to replace");
    std::fs::write(&p, out).unwrap();
}

fn report(dir: &Path) -> std::process::Output {
    Command::new(BIN).args(["report", "--dir"]).arg(dir).output().unwrap()
}

#[test]
fn a_stale_file_of_another_run_never_stops_the_next_run() {
    let dir = scratch("stale");
    // The committed run, as the next run will rewrite it.
    let fresh = scratch("fresh-copy");
    std::fs::remove_file(fresh.join("data-codec.txt")).ok();
    std::fs::remove_file(fresh.join("data-sizes.csv")).ok();
    // What a fresh clone may hold: a DATA= run's document file, stamped with
    // another run than the one about to be made (made from codec.txt when
    // the committed run had no DATA=).
    if !dir.join("data-codec.txt").exists() {
        std::fs::copy(dir.join("codec.txt"), dir.join("data-codec.txt")).unwrap();
    }
    restamp(&dir, "data-codec.txt", "20261101T000000Z-0000000");

    // Self-test: this directory is mixed, and report refuses it.
    let out = report(&dir);
    assert_eq!(out.status.code(), Some(2), "a mixed directory is refused");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("different runs") && err.contains("data-codec.txt"),
        "{err}"
    );

    // The run's first step clears the run's files, keeps the separate runs.
    let kept: Vec<String> = ["peers.txt", "server-pressure.txt", "nginx.md"]
        .iter()
        .filter(|f| dir.join(f).exists())
        .map(|f| f.to_string())
        .collect();
    assert!(!kept.is_empty(), "the committed results hold separate runs");
    let out = Command::new(BIN)
        .args(["report", "--clear-run"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for f in [
        "data-codec.txt",
        "data-sizes.csv",
        "codec.txt",
        "http.csv",
        "REPORT.md",
        "DETAILS.md",
    ] {
        assert!(!dir.join(f).exists(), "{f} of the earlier run is gone");
    }
    for f in &kept {
        assert!(dir.join(f).exists(), "{f} (a separate run) stays");
    }
    // The stages write the new run's files (here: the committed run without
    // DATA=), and its report is made.
    for e in std::fs::read_dir(&fresh).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().to_string();
        if e.file_type().unwrap().is_file() && wirebench::report::runs::is_run_file(&name) {
            std::fs::copy(e.path(), dir.join(&name)).unwrap();
        }
    }
    copy_dir(&fresh.join("histograms"), &dir.join("histograms"));
    let out = report(&dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.join("REPORT.md").exists());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&fresh);
}

#[test]
fn looking_at_data_writes_nothing_into_results() {
    // sizes and codec-bench print to stdout unless --out is given.
    let dir = std::env::temp_dir().join(format!("wirebench-pipeline-{}-cwd", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let doc = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/data/events.json");
    let out = Command::new(BIN)
        .current_dir(&dir)
        .args(["sizes", "--data", doc, "--reps", "1", "--batch", "1ms"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!out.stdout.is_empty(), "the sizes go to stdout");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "sizes --data wrote files: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
