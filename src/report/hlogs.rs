//! `wirebench report --hlogs DIR`: HdrHistogram interval logs (`.hlog`) from
//! several client machines, merged by tag into one percentile table, beside
//! Locust's own figures for the same request names.
//!
//! Inputs: every `*.hlog` in DIR (or a comma-separated list of files). With
//! `--run-id ID` (or `WB_RUN_ID`) only files of that run ([`run_id_of`]) are
//! merged; without one, all must carry the same id (or none), so two runs
//! are never pooled by accident.
//!
//! Merging: the counts of every interval with the same tag are added per
//! value slot (keyed by its lowest value and width, whatever each file's
//! layout). A percentile is the nearest rank (`⌈q·n⌉`) over the merged
//! slots at the slot's midpoint, as `wirebench load` reports its own; the
//! max is the largest `Interval_Max`. The `all` row merges every tag except
//! `service-*` (open-loop service times of the same requests).
//!
//! Locust's figures (`--locust-csv FILE`: `locustfile.py --wb-stats FILE`,
//! or Locust's own `PREFIX_stats.csv`, which may miss the last second) are
//! rounded to about two significant digits by Locust; the `.hlog` columns
//! are within HdrHistogram's 3 significant digits.

use crate::cli::Args;
use crate::measure::hlog::read_log;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The quantiles of the table.
pub const QUANTILES: [(f64, &str); 4] = [(0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (0.999, "p99.9")];

/// One tag's merged distribution: `(slot low, slot width) → count` in ns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Merged {
    pub slots: BTreeMap<(u64, u64), u64>,
    /// Largest `Interval_Max` (ms).
    pub max_ms: f64,
    /// Files that had this tag.
    pub files: usize,
}

impl Merged {
    pub fn count(&self) -> u64 {
        self.slots.values().fold(0, |a, &c| a.saturating_add(c))
    }

    /// Nearest-rank quantile, ns (the slot's midpoint); None when empty.
    pub fn quantile_ns(&self, q: f64) -> Option<u64> {
        let n = self.count();
        if n == 0 {
            return None;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0u64;
        for (&(low, width), &c) in &self.slots {
            seen = seen.saturating_add(c);
            if seen >= rank {
                return Some(low.saturating_add(width / 2));
            }
        }
        None
    }

    fn add(&mut self, other: &Merged) {
        for (&k, &c) in &other.slots {
            *self.slots.entry(k).or_insert(0) += c;
        }
        self.max_ms = self.max_ms.max(other.max_ms);
    }
}

/// Every tag of the selected files, merged; and the files used.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pool {
    pub run_id: Option<String>,
    pub tags: BTreeMap<String, Merged>,
    pub files: Vec<PathBuf>,
    /// Files left out because their run id differs from the one asked for.
    pub skipped: Vec<PathBuf>,
}

/// The run id of a log: its `#run: ID` stamp line (what `wirebench load`
/// and `locust/locustfile.py` write, docs/MEASUREMENT.md, "Runs: one `make bench`, one run id"), else the
/// `run_id=` token of its comment lines.
pub fn run_id_of(text: &str) -> Option<String> {
    let comments = || text.lines().take_while(|l| l.starts_with('#'));
    comments()
        .find_map(|l| l.strip_prefix("#run: ").map(|id| id.trim().to_string()))
        .or_else(|| {
            comments()
                .flat_map(|l| l.split_whitespace())
                .find_map(|t| t.strip_prefix("run_id=").map(str::to_string))
        })
}

/// Reads and merges `files`, keeping those of `run_id` (see the module doc).
pub fn pool(files: &[PathBuf], run_id: Option<&str>) -> Result<Pool, String> {
    let mut texts = Vec::new();
    for p in files {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        texts.push((p.clone(), run_id_of(&text), text));
    }
    let chosen = match run_id {
        Some(id) => Some(id.to_string()),
        None => {
            let ids: std::collections::BTreeSet<&str> = texts.iter().filter_map(|(_, id, _)| id.as_deref()).collect();
            if ids.len() > 1 {
                let list: Vec<&str> = ids.into_iter().collect();
                return Err(format!(
                    "the logs hold {} runs ({}); choose one with --run-id or WB_RUN_ID",
                    list.len(),
                    list.join(", ")
                ));
            }
            ids.into_iter().next().map(str::to_string)
        }
    };
    let mut out = Pool {
        run_id: chosen.clone(),
        ..Pool::default()
    };
    for (p, id, text) in texts {
        if run_id.is_some() && id != chosen {
            out.skipped.push(p);
            continue;
        }
        let log = read_log(&text).map_err(|e| format!("{}: {e}", p.display()))?;
        let mut of_file: BTreeMap<String, Merged> = BTreeMap::new();
        for iv in &log.intervals {
            let tag = iv.tag.clone().unwrap_or_else(|| "untagged".to_string());
            let m = of_file.entry(tag).or_default();
            for &(i, c) in &iv.hdr.counts {
                if let Some(slot) = iv.hdr.layout.slot(i) {
                    *m.slots.entry(slot).or_insert(0) += c;
                }
            }
            m.max_ms = m.max_ms.max(iv.max);
        }
        for (tag, m) in of_file {
            let t = out.tags.entry(tag).or_default();
            t.add(&m);
            t.files += 1;
        }
        out.files.push(p);
    }
    if out.files.is_empty() {
        return Err(match &chosen {
            Some(id) => format!("no .hlog file of run {id:?} among {} files", files.len()),
            None => "no .hlog files".to_string(),
        });
    }
    Ok(out)
}

/// One row of Locust's `*_stats.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct LocustRow {
    pub requests: u64,
    pub failures: u64,
    /// p50, p90, p99, p99.9 (ms, as Locust rounds them; None for `N/A`).
    pub quantiles_ms: [Option<f64>; 4],
    pub max_ms: Option<f64>,
}

/// Splits one CSV line (RFC 4180 quotes).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    out.push(field);
    out
}

/// Locust's stats CSV: name → row (`Aggregated` included).
pub fn read_locust_csv(name: &str, text: &str) -> Result<BTreeMap<String, LocustRow>, String> {
    let mut lines = text.lines();
    let header = csv_fields(lines.next().ok_or_else(|| format!("{name}: empty file"))?);
    let col = |want: &str| {
        header
            .iter()
            .position(|h| h == want)
            .ok_or_else(|| format!("{name}: no column {want:?} (is this Locust's --csv PREFIX_stats.csv?)"))
    };
    let (c_name, c_req, c_fail, c_max) = (
        col("Name")?,
        col("Request Count")?,
        col("Failure Count")?,
        col("Max Response Time")?,
    );
    let c_q = [col("50%")?, col("90%")?, col("99%")?, col("99.9%")?];
    let mut out = BTreeMap::new();
    for (n, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let f = csv_fields(line);
        let get = |i: usize| f.get(i).map(String::as_str).unwrap_or("");
        let int = |i: usize| {
            get(i)
                .parse::<u64>()
                .map_err(|_| format!("{name}: line {}: expected a count, found {:?}", n + 2, get(i)))
        };
        let ms = |i: usize| get(i).parse::<f64>().ok().filter(|v| v.is_finite());
        out.insert(
            get(c_name).to_string(),
            LocustRow {
                requests: int(c_req)?,
                failures: int(c_fail)?,
                quantiles_ms: c_q.map(ms),
                max_ms: ms(c_max),
            },
        );
    }
    Ok(out)
}

/// The markdown table: one row per tag, then `all`.
pub fn table(pool: &Pool, locust: Option<&BTreeMap<String, LocustRow>>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Run {}: {} .hlog files merged{}.\n",
        pool.run_id.as_deref().unwrap_or("(no run id)"),
        pool.files.len(),
        if pool.skipped.is_empty() {
            String::new()
        } else {
            format!(", {} of other runs left out", pool.skipped.len())
        }
    );
    let q_heads: Vec<&str> = QUANTILES.iter().map(|(_, h)| *h).collect();
    let mut head = format!("| tag | files | requests | {} ms | max ms |", q_heads.join(" ms | "));
    let mut rule = "|---|---:|---:|".to_string() + &"---:|".repeat(QUANTILES.len() + 1);
    if locust.is_some() {
        head += &format!(
            " Locust requests | Locust failures | Locust {} ms | Locust max ms |",
            q_heads.join(" ms | Locust ")
        );
        rule += &"---:|".repeat(QUANTILES.len() + 3);
    }
    let _ = writeln!(s, "{head}\n{rule}");
    let mut all = Merged::default();
    for (tag, m) in &pool.tags {
        if !tag.starts_with("service-") {
            all.add(m);
            all.files = all.files.max(m.files);
        }
    }
    all.files = pool.files.len();
    let rows = pool.tags.iter().map(|(t, m)| (t.as_str(), m, t.as_str()));
    for (tag, m, locust_name) in rows.chain(std::iter::once(("all", &all, "Aggregated"))) {
        let q = |ns: Option<u64>| ns.map_or("–".to_string(), |v| format!("{:.3}", v as f64 / 1e6));
        let qs: Vec<String> = QUANTILES.iter().map(|&(p, _)| q(m.quantile_ns(p))).collect();
        let _ = write!(
            s,
            "| {tag} | {} | {} | {} | {:.3} |",
            m.files,
            m.count(),
            qs.join(" | "),
            m.max_ms
        );
        if let Some(l) = locust {
            let o = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.0}"));
            match l.get(locust_name) {
                Some(r) => {
                    let lq: Vec<String> = r.quantiles_ms.iter().map(|&v| o(v)).collect();
                    let _ = write!(
                        s,
                        " {} | {} | {} | {} |",
                        r.requests,
                        r.failures,
                        lq.join(" | "),
                        o(r.max_ms)
                    );
                }
                None => {
                    let _ = write!(s, "{}", " – |".repeat(QUANTILES.len() + 3));
                }
            }
        }
        s.push('\n');
    }
    s
}

/// The `.hlog` files of `spec`: a directory (its `*.hlog`, sorted) or a comma-separated list.
pub fn files_of(spec: &str) -> Result<Vec<PathBuf>, String> {
    let p = Path::new(spec);
    if p.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(|e| format!("{spec}: {e}"))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "hlog"))
            .collect();
        files.sort();
        return Ok(files);
    }
    Ok(spec.split(',').filter(|s| !s.is_empty()).map(PathBuf::from).collect())
}

/// `wirebench report --hlogs DIR|FILES [--run-id ID] [--locust-csv FILE] [--out FILE]`.
pub fn cli_main(spec: &str, args: &mut Args) -> Result<(), String> {
    let run_id = match args.value("--run-id")? {
        Some(id) => Some(id),
        None => std::env::var("WB_RUN_ID").ok().filter(|s| !s.is_empty()),
    };
    let locust_csv = args.value("--locust-csv")?;
    let out = args.value("--out")?.map(PathBuf::from);
    args.finish()?;
    let pool = pool(&files_of(spec)?, run_id.as_deref())?;
    let locust = match &locust_csv {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"))?;
            Some(read_locust_csv(p, &text)?)
        }
        None => None,
    };
    let text = table(&pool, locust.as_ref());
    print!("{text}");
    if let Some(p) = out {
        std::fs::write(&p, &text).map_err(|e| format!("{}: {e}", p.display()))?;
        eprintln!("report: wrote {}", p.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::histogram::Histogram;
    use crate::measure::hlog::{WriteInterval, write_log};

    fn log(run_id: &str, tag: &str, values: &[u64]) -> String {
        let mut h = Histogram::new();
        for &v in values {
            h.record(v);
        }
        write_log(
            &[format!("wirebench locust: run_id={run_id} host=a pid=1")],
            1.0,
            &[WriteInterval {
                tag,
                start_s: 0.0,
                length_s: 1.0,
                histogram: &h,
            }],
        )
    }

    /// A directory removed on drop.
    struct Dir(PathBuf);

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// `texts` as `w{i}.hlog` in a fresh directory.
    fn files(texts: &[String]) -> (Dir, Vec<PathBuf>) {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let d = Dir(std::env::temp_dir().join(format!("wb-hlogs-{}-{n}", std::process::id())));
        std::fs::create_dir_all(&d.0).unwrap();
        let paths = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let p = d.0.join(format!("w{i}.hlog"));
                std::fs::write(&p, t).unwrap();
                p
            })
            .collect();
        (d, paths)
    }

    #[test]
    fn two_machines_merge_into_one_distribution() {
        // Machine a saw 1..=900 µs, machine b 901..=1000 µs: the merged p90 is
        // 900 µs and p99 990 µs, which neither file has alone.
        let a: Vec<u64> = (1..=900).map(|i| i * 1000).collect();
        let b: Vec<u64> = (901..=1000).map(|i| i * 1000).collect();
        let (_d, paths) = files(&[log("r1", "json-100-none", &a), log("r1", "json-100-none", &b)]);
        let p = pool(&paths, None).unwrap();
        assert_eq!(p.run_id.as_deref(), Some("r1"));
        let m = &p.tags["json-100-none"];
        assert_eq!((m.count(), m.files), (1000, 2));
        for (q, want) in [
            (0.5, 500_000.0),
            (0.9, 900_000.0),
            (0.99, 990_000.0),
            (1.0, 1_000_000.0),
        ] {
            let got = m.quantile_ns(q).unwrap() as f64;
            assert!((got - want).abs() <= want * 0.006, "q {q}: {got} vs {want}");
        }
        let t = table(&p, None);
        assert!(t.contains("| all | 2 | 1000 |"), "{t}");
    }

    #[test]
    fn runs_are_never_pooled_by_accident() {
        let (_d, paths) = files(&[log("r1", "x", &[1000]), log("r2", "x", &[2000, 3000])]);
        let e = pool(&paths, None).unwrap_err();
        assert!(e.contains("2 runs (r1, r2)"), "{e}");
        let p = pool(&paths, Some("r2")).unwrap();
        assert_eq!((p.tags["x"].count(), p.skipped.len()), (2, 1));
        assert!(
            pool(&paths, Some("r3"))
                .unwrap_err()
                .contains("no .hlog file of run \"r3\"")
        );
    }

    #[test]
    fn service_tags_stay_out_of_all() {
        let text = log("r", "json-1-none", &[1000, 2000]);
        let service = log("r", "service-json-1-none", &[500, 600]);
        let (_d, paths) = files(&[text, service]);
        let t = table(&pool(&paths, None).unwrap(), None);
        assert!(t.contains("| all | 2 | 2 |"), "{t}");
    }

    #[test]
    fn locust_figures_sit_beside_ours() {
        let csv = "Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,Min Response Time,Max Response Time,Average Content Size,Requests/s,Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%\n\
                   GET,json-100-none,1000,3,1,1.2,0.3,12.5,6000,100,0.3,1,1,1,1,2,2,3,4,12,13,13\n\
                   ,Aggregated,1000,3,1,1.2,0.3,12.5,6000,100,0.3,1,1,1,1,2,2,3,4,12,13,N/A\n";
        let l = read_locust_csv("x_stats.csv", csv).unwrap();
        assert_eq!(l["Aggregated"].requests, 1000);
        assert_eq!(
            l["json-100-none"].quantiles_ms,
            [Some(1.0), Some(2.0), Some(4.0), Some(12.0)]
        );
        let (_d, paths) = files(&[log("r", "json-100-none", &[1_000_000; 3])]);
        let t = table(&pool(&paths, None).unwrap(), Some(&l));
        assert!(t.contains("| 1000 | 3 | 1 | 2 | 4 | 12 | 12 |"), "{t}");
        let e = read_locust_csv("y.csv", "a,b\n1,2\n").unwrap_err();
        assert!(e.contains("no column \"Name\""), "{e}");
        assert_eq!(csv_fields(r#"a,"b,""c""",d"#), ["a", "b,\"c\"", "d"]);
    }

    #[test]
    fn run_id_comes_from_comments_only() {
        assert_eq!(run_id_of("#x run_id=abc y\nTag=a,run_id=no"), Some("abc".into()));
        // The run stamp of `wirebench load` (and of the locustfile) first.
        assert_eq!(
            run_id_of("#run: 20261201T2158Z-abc\n#x run_id=other\n"),
            Some("20261201T2158Z-abc".into())
        );
        assert_eq!(run_id_of("Tag=a\n#run: late"), None);
        assert_eq!(run_id_of("Tag=a\n#run_id=late"), None);
    }
}
