//! Which run each raw file belongs to, and the rule that one report is one
//! run.
//!
//! Every raw file a measuring command writes carries a run stamp
//! ([`crate::measure::run`]). [`check`] groups the report's inputs by run
//! id: one id (or no stamps at all, a directory written before stamps) is
//! one run; more than one is refused with every file and its run named,
//! unless `--allow-mixed`, and then every table says the run it came from.
//! Files that come from their own runs by design (`peers.txt`,
//! `peers-instructions.md`, `server-pressure.txt`) are not inputs of this
//! check: the report shows them as separate, labelled runs.

use crate::measure::run::RunStamp;

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
        let names: Vec<&str> = files.iter().filter(|f| f.id() == id).map(|f| f.file.as_str()).collect();
        msg += &format!("\n  run {id}: {}", names.join(", "));
    }
    Err(msg)
}

/// One run's stamp over all of its files: the earliest start with its
/// load, the latest end with its load, and the commit when every file names
/// the same one (else the distinct commits joined by `, `). None when no file
/// of run `id` has a stamp.
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

/// The run of `file` for a table's caption: `run ID`; empty when every
/// input is from one run (nothing to say).
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
        let stamp = |start: &str, end: Option<&str>, commit: &str| {
            Some(RunStamp {
                id: "r".into(),
                commit: commit.into(),
                start: start.into(),
                load: format!("load@{start}"),
                end: end.map(str::to_string),
                load_end: end.map(|e| format!("load@{e}")),
            })
        };
        let files = [
            FileRun {
                file: "codec.txt".into(),
                stamp: stamp("2026-12-01T10:00:00Z", Some("2026-12-01T10:03:00Z"), "aaa"),
            },
            FileRun {
                file: "http.csv".into(),
                stamp: stamp("2026-12-01T10:05:00Z", Some("2026-12-01T10:12:00Z"), "aaa"),
            },
            FileRun {
                file: "sizes.csv".into(),
                stamp: stamp("2026-12-01T10:03:00Z", None, "aaa"),
            },
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
