//! The machine a run happened on → `results/environment.json`.
//!
//! Captured by `codec-bench` when the benchmarks start (so it describes the
//! run, not the later `report`), from Linux's own files: CPU model and cores
//! from `/proc/cpuinfo`, memory from `/proc/meminfo`, OS from
//! `/etc/os-release`, kernel from `/proc/sys/kernel/osrelease`, load average
//! from `/proc/loadavg`; plus `rustc -V`,
//! the locked versions of our runtime dependencies and of the peer crates
//! from `Cargo.lock`, `git rev-parse HEAD`, and the UTC date. A value that
//! cannot be read is `"unknown"`, never guessed.

/// The environment variable that fixes the run's commit (the Makefile sets
/// it once, beside `WB_RUN_ID`, so a commit made while the run goes on
/// changes no stamp).
pub const RUN_COMMIT_ENV: &str = "WB_RUN_COMMIT";

/// The run's commit: `$WB_RUN_COMMIT` when it is printable, else `git
/// rev-parse HEAD`, else `unknown`.
pub fn run_commit() -> String {
    std::env::var(RUN_COMMIT_ENV)
        .ok()
        .filter(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_graphic()))
        .unwrap_or_else(|| command("git", &["rev-parse", "HEAD"]))
}

use std::process::Command;

/// Crates whose locked version the report names.
pub const CRATES: [&str; 7] = [
    "flatbuffers",
    "prost",
    "miniz_oxide",
    "serde_json",
    "rmp-serde",
    "apache-avro",
    "serde",
];

/// What environment.json holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Environment {
    pub date_utc: String,
    pub cpu: String,
    pub cores: usize,
    pub memory: String,
    pub os: String,
    pub kernel: String,
    /// `/proc/loadavg`'s 1, 5 and 15 minute averages when the run started: a
    /// busy machine makes every number slower and noisier.
    pub load_average: String,
    pub arch: String,
    pub rustc: String,
    pub git_commit: String,
    pub crates: Vec<(String, String)>,
    /// The run this file belongs to (`crate::measure::run`), `unknown`
    /// until the writer sets it.
    pub run_id: String,
    pub run_start: String,
}

const UNKNOWN: &str = "unknown";

pub fn capture() -> Environment {
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let cpu = cpuinfo
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| UNKNOWN.into());
    let meminfo = read("/proc/meminfo");
    let memory = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or_else(
            || UNKNOWN.into(),
            |kb| format!("{:.1} GiB", kb as f64 / 1024.0 / 1024.0),
        );
    let os = read("/etc/os-release")
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map_or_else(|| UNKNOWN.into(), |v| v.trim_matches('"').to_string());
    let kernel = non_empty(read("/proc/sys/kernel/osrelease").trim());
    Environment {
        date_utc: now_utc(),
        cpu,
        cores: super::stats::procs(),
        memory,
        os,
        kernel,
        load_average: load_average(),
        arch: std::env::consts::ARCH.into(),
        rustc: command("rustc", &["-V"]),
        git_commit: run_commit(),
        crates: locked_versions(&read("Cargo.lock")),
        run_id: UNKNOWN.into(),
        run_start: UNKNOWN.into(),
    }
}

/// `/proc/loadavg`'s first three fields, or `unknown`.
pub fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    non_empty(&text.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

fn non_empty(s: &str) -> String {
    if s.is_empty() { UNKNOWN.into() } else { s.to_string() }
}

fn command(cmd: &str, args: &[&str]) -> String {
    Command::new(cmd)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(
            || UNKNOWN.into(),
            |o| non_empty(String::from_utf8_lossy(&o.stdout).trim()),
        )
}

/// `(name, version)` of each of [`CRATES`] in a Cargo.lock text (every
/// locked version, comma-joined, if there are several).
pub fn locked_versions(lock: &str) -> Vec<(String, String)> {
    let mut found: Vec<(String, Vec<String>)> = CRATES.iter().map(|c| (c.to_string(), vec![])).collect();
    let mut name: Option<String> = None;
    for line in lock.lines() {
        if line == "[[package]]" {
            name = None;
        } else if let Some(v) = line.strip_prefix("name = ") {
            name = Some(v.trim_matches('"').to_string());
        } else if let Some(v) = line.strip_prefix("version = ") {
            if let Some((_, versions)) = found.iter_mut().find(|(c, _)| Some(c) == name.as_ref()) {
                versions.push(v.trim_matches('"').to_string());
            }
        }
    }
    found
        .into_iter()
        .map(|(c, v)| (c, if v.is_empty() { UNKNOWN.into() } else { v.join(", ") }))
        .collect()
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ` (civil-from-days, no deps).
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format_utc(secs)
}

/// Unix seconds → `YYYY-MM-DDTHH:MM:SSZ` (Howard Hinnant's civil_from_days).
pub fn format_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

impl Environment {
    /// Pretty JSON, one key per line (so `report` can pick values with
    /// [`json_string_field`] without a JSON library).
    pub fn to_json(&self) -> String {
        let q = super::json::quote;
        let mut s = String::from("{\n");
        for (k, v) in [
            ("run_id", &self.run_id),
            ("run_start", &self.run_start),
            ("date_utc", &self.date_utc),
            ("cpu", &self.cpu),
            ("memory", &self.memory),
            ("os", &self.os),
            ("kernel", &self.kernel),
            ("load_average", &self.load_average),
            ("arch", &self.arch),
            ("rustc", &self.rustc),
            ("git_commit", &self.git_commit),
        ] {
            s += &format!("  {}: {},\n", q(k), q(v));
        }
        s += &format!("  \"cores\": {},\n  \"crates\": {{\n", self.cores);
        let crates: Vec<String> = self
            .crates
            .iter()
            .map(|(c, v)| format!("    {}: {}", q(c), q(v)))
            .collect();
        s += &crates.join(",\n");
        s += "\n  }\n}\n";
        s
    }
}

/// The string value of `"key": "value"` on its own line in [`Environment::to_json`] output.
pub fn json_string_field(json: &str, key: &str) -> Option<String> {
    let prefix = format!("\"{key}\": ");
    json.lines().find_map(|l| {
        let v = l.trim().strip_prefix(&prefix)?;
        let v = v.trim_end_matches(',');
        Some(super::json::unquote(v).unwrap_or_else(|| v.to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(format_utc(1_796_000_000), "2026-11-30T00:53:20Z");
    }

    #[test]
    fn cargo_lock_versions() {
        let lock = "[[package]]\nname = \"prost\"\nversion = \"0.14.1\"\n\n[[package]]\nname = \"prost-derive\"\nversion = \"9\"\n";
        let v = locked_versions(lock);
        assert!(v.contains(&("prost".into(), "0.14.1".into())));
        assert!(v.contains(&("flatbuffers".into(), "unknown".into())));
    }

    #[test]
    fn json_round_trip_of_fields() {
        let mut e = capture();
        e.cpu = "Weird \"CPU\" \\ model".into();
        let j = e.to_json();
        assert_eq!(json_string_field(&j, "cpu").as_deref(), Some("Weird \"CPU\" \\ model"));
        assert!(j.contains("\"cores\": "));
    }
}
