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
