//! The run a raw result file belongs to: its **run stamp**.
//!
//! One `make bench` is one run: every raw file it writes (`codec.txt`,
//! `sizes.csv`, `http*.csv`, `histograms/*.hist`, `histograms/*.hlog`,
//! `environment.json`) carries the same run id, so `wirebench report` can
//! refuse to mix files from different runs. The id is [`resolve_id`]'s (the
//! Makefile exports `WB_RUN_ID` once per `make`), the commit
//! `crate::measure::env::run_commit`'s.
//!
//! A stamp is `key: value` lines ([`RunStamp::lines`]):
//!
//! ```text
//! run: 20261201T201500Z-4fb1c70
//! commit: 4fb1c70…
//! start: 2026-12-01T20:15:00Z
//! load: 0.52 0.61 0.70
//! ```
//!
//! written at the top of the file, and `end: …` and `load-end: …` at its
//! bottom when the writer finishes. In `codec.txt` they are Go benchmark
//! configuration lines as they stand (benchstat reads `key: value` lines
//! as configuration); in the CSV files, `.hist` files and `.hlog` files
//! each line is a comment, `# run: ID` (in an `.hlog` as `#run: ID`, a
//! comment line every HdrHistogram log reader skips); in
//! `environment.json` they are the keys `run_id`, `run_start`.
//! [`read_stamp`] reads every one of these forms.

/// The environment variable every measuring command reads its run id from.
pub const RUN_ID_ENV: &str = "WB_RUN_ID";

/// The run a file belongs to, as written at its top (and `end`, `load_end`
/// at its bottom).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStamp {
    pub id: String,
    /// The run's commit (`crate::measure::env::run_commit`).
    pub commit: String,
    /// UTC `YYYY-MM-DDTHH:MM:SSZ` when the writer started.
    pub start: String,
    /// `/proc/loadavg`'s 1, 5 and 15 minute averages at the start.
    pub load: String,
    /// When the writer finished (None: the file was cut short or is old).
    pub end: Option<String>,
    pub load_end: Option<String>,
}

/// A fresh id: `YYYYMMDDTHHMMSSZ-p<pid>`.
pub fn fresh_id() -> String {
    let t: String = super::env::now_utc()
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect();
    format!("{t}-p{}", std::process::id())
}

/// The run id to use: `flag`, else `$WB_RUN_ID`, else [`fresh_id`]. An id
/// must be non-empty printable ASCII without spaces, commas or `#`.
pub fn resolve_id(flag: Option<String>) -> Result<String, String> {
    let id = flag
        .filter(|f| !f.is_empty())
        .or_else(|| std::env::var(RUN_ID_ENV).ok().filter(|v| !v.is_empty()))
        .unwrap_or_else(fresh_id);
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_graphic() && b != b',' && b != b'#') {
        return Err(format!(
            "run id {id:?}: expected printable ASCII without spaces, commas or '#'"
        ));
    }
    Ok(id)
}

impl RunStamp {
    /// The stamp of a writer starting now, with run id `id`.
    pub fn start(id: String) -> RunStamp {
        RunStamp {
            id,
            commit: super::env::run_commit(),
            start: super::env::now_utc(),
            load: super::env::load_average(),
            end: None,
            load_end: None,
        }
    }

    /// The stamp from `--run-id` / `$WB_RUN_ID` (see [`resolve_id`]).
    pub fn from_flag(flag: Option<String>) -> Result<RunStamp, String> {
        Ok(RunStamp::start(resolve_id(flag)?))
    }

    /// The top lines, each `key: value`, without a comment prefix.
    pub fn lines(&self) -> Vec<String> {
        vec![
            format!("run: {}", self.id),
            format!("commit: {}", self.commit),
            format!("start: {}", self.start),
            format!("load: {}", self.load),
        ]
    }

    /// The bottom lines for a writer finishing now.
    pub fn end_lines() -> Vec<String> {
        vec![
            format!("end: {}", super::env::now_utc()),
            format!("load-end: {}", super::env::load_average()),
        ]
    }

    /// [`Self::lines`] with `prefix` before each, newline-terminated.
    pub fn header(&self, prefix: &str) -> String {
        self.lines().iter().map(|l| format!("{prefix}{l}\n")).collect()
    }

    /// [`Self::end_lines`] with `prefix` before each, newline-terminated.
    pub fn footer(prefix: &str) -> String {
        Self::end_lines().iter().map(|l| format!("{prefix}{l}\n")).collect()
    }

    /// The short form the report prints: `ID (commit 4fb1c70, START–END)`.
    pub fn describe(&self) -> String {
        // `merged` stamps join several commits with ", ": shorten each.
        let commit: Vec<String> = self.commit.split(", ").map(|c| c.chars().take(7).collect()).collect();
        let commit = commit.join(", ");
        format!(
            "{} (commit {commit}, {} – {}, load {})",
            self.id,
            self.start,
            self.end.as_deref().unwrap_or("?"),
            self.load
        )
    }
}

/// The stamp of a raw file's text, in any of the forms the module docs list;
/// None when the file has no `run:` line (a file written before stamps).
pub fn read_stamp(text: &str) -> Option<RunStamp> {
    let mut s = RunStamp::default();
    let mut found = false;
    for line in text.lines() {
        let l = line.trim();
        let l = l.strip_prefix('#').map_or(l, str::trim_start);
        // environment.json: `"run_id": "…",`
        let json = |key: &str| {
            l.strip_prefix(&format!("\"{key}\": "))
                .map(|v| v.trim_end_matches(',').trim_matches('"').to_string())
        };
        let kv = |key: &str| l.strip_prefix(&format!("{key}: ")).map(|v| v.trim().to_string());
        if let Some(v) = kv("run").or_else(|| json("run_id")) {
            if !found {
                s.id = v;
                found = true;
            }
        } else if let Some(v) = kv("commit").or_else(|| json("git_commit")) {
            s.commit = v;
        } else if let Some(v) = kv("start").or_else(|| json("run_start")) {
            s.start = v;
        } else if let Some(v) = kv("load").or_else(|| json("load_average")) {
            s.load = v;
        } else if let Some(v) = kv("end").or_else(|| json("run_end")) {
            s.end = Some(v);
        } else if let Some(v) = kv("load-end") {
            s.load_end = Some(v);
        }
    }
    found.then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp() -> RunStamp {
        RunStamp {
            id: "R1".into(),
            commit: "abc".into(),
            start: "2026-12-01T00:00:00Z".into(),
            load: "0.1 0.2 0.3".into(),
            end: None,
            load_end: None,
        }
    }

    #[test]
    fn every_form_reads_back() {
        let s = stamp();
        for prefix in ["", "# ", "#"] {
            let text = format!("{}x,y\n1,2\n{}end: E\n", s.header(prefix), prefix);
            let got = read_stamp(&text).unwrap();
            assert_eq!(got.id, "R1");
            assert_eq!(got.commit, "abc");
            assert_eq!(got.load, "0.1 0.2 0.3");
            assert_eq!(got.end.as_deref(), Some("E"));
        }
        let json = "{\n  \"run_id\": \"R2\",\n  \"run_start\": \"S\",\n  \"git_commit\": \"c\",\n}\n";
        let got = read_stamp(json).unwrap();
        assert_eq!(
            (got.id.as_str(), got.start.as_str(), got.commit.as_str()),
            ("R2", "S", "c")
        );
        assert_eq!(read_stamp("format,count\njson,1\n"), None);
    }

    #[test]
    fn ids_are_checked() {
        assert_eq!(resolve_id(Some("abc-1".into())).unwrap(), "abc-1");
        assert!(resolve_id(Some("a b".into())).is_err());
        assert!(resolve_id(Some("a,b".into())).is_err());
        assert!(resolve_id(Some(String::new())).is_ok(), "empty flag falls back");
        assert!(fresh_id().contains("-p"));
    }
}
