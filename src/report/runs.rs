//! Which run each raw file belongs to, and the rule that one report is one
//! run.
//!
//! Every raw file a measuring command writes carries a run stamp
//! ([`crate::measure::run`]). [`check`] groups the report's inputs by run
//! id: one id (or no stamps at all) is one run; more are refused, naming
//! every file and its run, unless `--allow-mixed` (then every table names
//! its run). The separate runs (`peers.txt`, `peers-instructions.md`,
//! `server-pressure.txt`, `link*.csv`) are not inputs of the check. Every
//! file in `histograms/` is checked, since the report pools every round.
//!
//! [`clear`] (`report --clear-run DIR`, the first step of `make bench`)
//! removes every file a stage of `make bench` writes ([`is_run_file`]) and
//! keeps the rest, so a file of an earlier run never stops the new report.

use crate::measure::run::RunStamp;
use std::path::{Path, PathBuf};

/// HTTP files in report order; the first two are expected, the rest optional.
pub const HTTP_FILES: [&str; 6] = [
    "http.csv",
    "http-gzip.csv",
    "http-gzip1.csv",
    "http-c1.csv",
    "http-c16.csv",
    "http-server.csv",
];

/// Every file one `make bench` writes besides the [`HTTP_FILES`],
/// `histograms/*.hist`/`*.hlog` and `chart-*.svg` ([`is_run_file`]); `data-*`
/// only with `DATA=`.
pub const RUN_FILES: [&str; 9] = [
    "environment.json",
    "codec.txt",
    "sizes.csv",
    "data-codec.txt",
    "data-sizes.csv",
    "REPORT.md",
    "DETAILS.md",
    "medians.json",
    "compare.txt",
];

/// Whether `name` (in the results directory, or `histograms/NAME`) is
/// written by `make bench`, so [`clear`] removes it.
pub fn is_run_file(name: &str) -> bool {
    if let Some(h) = name.strip_prefix("histograms/") {
        return !h.contains('/') && (h.ends_with(".hist") || h.ends_with(".hlog"));
    }
    RUN_FILES.contains(&name) || HTTP_FILES.contains(&name) || (name.starts_with("chart-") && name.ends_with(".svg"))
}

/// Removes every run file ([`is_run_file`]) from `dir`, returning their
/// paths; a missing `dir` is created.
pub fn clear(dir: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names: Vec<String> = Vec::new();
    for (sub, prefix) in [(dir.to_path_buf(), ""), (dir.join("histograms"), "histograms/")] {
        let entries = match std::fs::read_dir(&sub) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("{}: {e}", sub.display())),
        };
        for e in entries {
            let e = e.map_err(|e| format!("{}: {e}", sub.display()))?;
            let is_file = e
                .file_type()
                .map_err(|err| format!("{}: {err}", e.path().display()))?
                .is_file();
            if let Some(n) = e.file_name().to_str().filter(|_| is_file) {
                names.push(format!("{prefix}{n}"));
            }
        }
    }
    names.sort();
    let mut removed = Vec::new();
    for n in names.iter().filter(|n| is_run_file(n)) {
        let p = dir.join(n);
        std::fs::remove_file(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        removed.push(p);
    }
    Ok(removed)
}

/// The runs of the histogram files (`*.hist`, `*.hlog`) in `hist_dir`, one
/// entry per run id (its first file by name).
pub fn histogram_runs(hist_dir: &Path) -> Result<Vec<FileRun>, String> {
    let entries = match std::fs::read_dir(hist_dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", hist_dir.display())),
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".hist") || n.ends_with(".hlog"))
        .collect();
    names.sort();
    let mut out: Vec<FileRun> = Vec::new();
    for n in names {
        let p = hist_dir.join(&n);
        let text = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        let fr = FileRun {
            file: format!("histograms/{n}"),
            stamp: crate::measure::run::read_stamp(&String::from_utf8_lossy(&text)),
        };
        if !out.iter().any(|o| o.id() == fr.id()) {
            out.push(fr);
        }
    }
    Ok(out)
}

/// One input file and its stamp (None: written before stamps).
#[derive(Clone, Debug, PartialEq)]
pub struct FileRun {
    pub file: String,
    pub stamp: Option<RunStamp>,
}

/// What a file without a stamp is called in messages.
pub const UNSTAMPED: &str = "(no run stamp)";

impl FileRun {
    pub fn id(&self) -> &str {
        self.stamp.as_ref().map_or(UNSTAMPED, |s| s.id.as_str())
    }
}

/// The distinct run ids of `files`, in first-seen order.
pub fn ids(files: &[FileRun]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in files {
        if !out.iter().any(|i| i == f.id()) {
            out.push(f.id().to_string());
        }
    }
    out
}

/// Ok when `files` come from one run (or `allow_mixed`); otherwise an error
/// naming every run and its files.
pub fn check(files: &[FileRun], allow_mixed: bool) -> Result<(), String> {
    let ids = ids(files);
    if ids.len() <= 1 || allow_mixed {
        return Ok(());
    }
    let mut msg = format!(
        "the raw files come from {} different runs; one report is one run (re-run `make bench`, or pass --allow-mixed to label every table with its run):",
        ids.len()
    );
    for id in &ids {
        let mut names: Vec<&str> = files.iter().filter(|f| f.id() == id).map(|f| f.file.as_str()).collect();
        names.sort_unstable();
        msg += &format!("\n  run {id}: {}", names.join(", "));
    }
    Err(msg)
}

/// Run `id`'s stamp over its files: the earliest start and latest end with
/// their loads, the distinct commits joined by `, `; None without a stamp.
pub fn merged(files: &[FileRun], id: &str) -> Option<RunStamp> {
    let stamps: Vec<&RunStamp> = files
        .iter()
        .filter_map(|f| f.stamp.as_ref())
        .filter(|s| s.id == id)
        .collect();
    // ISO 8601 UTC times in one format sort as text.
    let first = stamps.iter().min_by(|a, b| a.start.cmp(&b.start))?;
    let last = stamps
        .iter()
        .filter(|s| s.end.is_some())
        .max_by(|a, b| a.end.cmp(&b.end));
    let mut commits: Vec<&str> = Vec::new();
    for s in &stamps {
        if !commits.contains(&s.commit.as_str()) {
            commits.push(&s.commit);
        }
    }
    Some(RunStamp {
        id: id.to_string(),
        commit: commits.join(", "),
        start: first.start.clone(),
        load: first.load.clone(),
        end: last.and_then(|s| s.end.clone()),
        load_end: last.and_then(|s| s.load_end.clone()),
    })
}

/// ` (run `ID`)` for a table's caption; empty when all inputs are one run.
pub fn label(files: &[FileRun], file: &str) -> String {
    if ids(files).len() <= 1 {
        return String::new();
    }
    files
        .iter()
        .find(|f| f.file == file)
        .map_or(String::new(), |f| format!(" (run `{}`)", f.id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The run's span is the earliest start and the latest end over its
    /// files, whichever file wrote them; commits that differ are all named.
    #[test]
    fn merged_spans_every_file_of_the_run() {
        let run = |file: &str, start: &str, end: Option<&str>| FileRun {
            file: file.into(),
            stamp: Some(RunStamp {
                id: "r".into(),
                commit: "aaa".into(),
                start: start.into(),
                load: format!("load@{start}"),
                end: end.map(str::to_string),
                load_end: end.map(|e| format!("load@{e}")),
            }),
        };
        let files = [
            run("codec.txt", "2026-12-01T10:00:00Z", Some("2026-12-01T10:03:00Z")),
            run("http.csv", "2026-12-01T10:05:00Z", Some("2026-12-01T10:12:00Z")),
            run("sizes.csv", "2026-12-01T10:03:00Z", None),
        ];
        let m = merged(&files, "r").unwrap();
        assert_eq!(
            (m.start.as_str(), m.end.as_deref()),
            ("2026-12-01T10:00:00Z", Some("2026-12-01T10:12:00Z"))
        );
        assert_eq!(m.load_end.as_deref(), Some("load@2026-12-01T10:12:00Z"));
        assert_eq!(m.commit, "aaa");
        let mut two = files.to_vec();
        two[1].stamp.as_mut().unwrap().commit = "bbb".into();
        assert_eq!(merged(&two, "r").unwrap().commit, "aaa, bbb");
        assert_eq!(merged(&files, "other"), None);
    }

    fn f(file: &str, id: Option<&str>) -> FileRun {
        FileRun {
            file: file.into(),
            stamp: id.map(|i| RunStamp {
                id: i.into(),
                ..Default::default()
            }),
        }
    }

    /// `make bench-link`'s files are a run of their own: `--clear-run` keeps them.
    #[test]
    fn link_files_are_not_run_files() {
        for f in ["link.csv", "link-c8.csv", "link-sizes.csv", "peers.txt"] {
            assert!(!is_run_file(f), "{f}");
        }
        // Self-test: the same check sees a run file.
        assert!(is_run_file("http.csv") && is_run_file("chart-link.svg"));
    }

    #[test]
    fn one_run_passes_two_are_named() {
        assert!(check(&[f("codec.txt", Some("A")), f("http.csv", Some("A"))], false).is_ok());
        assert!(check(&[f("codec.txt", None), f("http.csv", None)], false).is_ok());
        let e = check(
            &[
                f("codec.txt", Some("A")),
                f("http.csv", Some("B")),
                f("sizes.csv", Some("A")),
            ],
            false,
        )
        .unwrap_err();
        assert!(e.contains("2 different runs"), "{e}");
        assert!(e.contains("run A: codec.txt, sizes.csv"), "{e}");
        assert!(e.contains("run B: http.csv"), "{e}");
        let mixed = [f("codec.txt", Some("A")), f("http.csv", None)];
        assert!(check(&mixed, false).unwrap_err().contains(UNSTAMPED));
        assert!(check(&mixed, true).is_ok());
        assert_eq!(label(&mixed, "http.csv"), format!(" (run `{UNSTAMPED}`)"));
        assert_eq!(label(&mixed[..1], "codec.txt"), "");
    }
}
