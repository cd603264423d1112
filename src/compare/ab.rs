//! `wirebench ab BASE_BIN NEW_BIN`: did my change help? Two builds measured
//! in the same rounds, judged on the ratios of their pairs ([`super::paired`]).
//!
//! Each batch is one process of its build, from a fresh copy ([`FreshCopy`]):
//! `[taskset -c CPU] BIN codec-bench --out - --count K --benchtime D --counts N --filter ROW`
//! (with `--data FILE`: `--data FILE [--schema S]` in place of `--counts N`)
//! (flags `codec-bench` has long had, so an older BASE runs too). The
//! round's sample is the fastest of the K batches' `cpu-ns/op` (`ns/op` when
//! either side lacks it): another process on the CPU only adds time.
//!
//! Order: each round runs every row once on both sides, the row order
//! rotated by one per round and the first side flipped every `rows` rounds,
//! so over `2 × rows` rounds each side takes every position equally often.
//! Sample i of BASE pairs with sample i of NEW; both sides are pinned to one
//! CPU (`--cpu`, when `taskset` exists).
//!
//! `--slow-row NAME=PCT` (test hook) makes the NEW side do PCT% more real
//! work in that row (`crate::bench::hooks::SlowRow`): what `ab` must find.
//! Child processes ([`child`]): output capped at [`child::MAX_OUTPUT`], a batch
//! killed after [`batch_timeout`]; a failing child ends the run with its stderr.

pub mod child;
pub mod http;

use super::paired::{self, PairedRow};
use crate::cli::{Args, parse_duration};
use crate::payload::{Document, Payload};
use child::{run_child, tail};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const USAGE: &str = "\
wirebench ab BASE_BIN NEW_BIN [FLAGS]
  runs the codec rows of two builds alternately in the same rounds (each batch
  one `codec-bench` process, pinned to one CPU, each side at every position of the round) and prints per row
  both medians, the change from the per-round NEW/BASE ratios with its 95%
  interval (Hodges-Lehmann), the signed-rank p (Holm-Bonferroni over the
  rows), `~` where not significant at 0.05 or under the floor, and the geomean.
  --rows REGEX        rows to run (default all): literal text, . * ^ $, and |
                      between alternatives, e.g. '^Decode/json/1000$|^Encode/'
  --rounds N          processes per row and side, one per round (default 60)
  --benchtime D       minimum time of one batch (default 30ms)
  --batches K         batches per process; a round's sample is the fastest (default 5)
  --cpu N             pin both sides to CPU N with taskset (default 1; the
                      last CPU when there are fewer); unpinned without taskset
  --data FILE         the rows of a JSON document through the schema-driven codecs
                      (Data/FORMAT/encode and decode) in place of the catalog's;
                      both builds read FILE (codec-bench --data)
  --schema S.avsc     with --data: the document's Avro schema (else inferred)
  --http              also offer the server-only HTTP cases http/FORMAT/COUNT
                      (counts 1, 100, 1000): each build's `serve` pinned to --cpu,
                      this binary's `load --server` on another CPU; the figure
                      is the server's CPU µs per request
  --http-duration D   one load run of an HTTP case (default 500ms)
  --floor PCT         smallest change flagged (default 1.0: under what an A/A
                      of two copies of one build estimates on this machine;
                      docs/MEASUREMENT.md)
  --fail-over PCT     exit 1 when a row's significant slowdown exceeds PCT percent
  --slow-row NAME=PCT test hook: the NEW side runs row NAME PCT% slower by real
                      work (codec-bench --slow-row)
EXIT STATUS: 0 ok, 1 a slowdown over --fail-over, 2 usage or run error
";

/// Counts whose rows `ab` offers (`codec-bench`'s default `--counts`).
pub const COUNTS: [usize; 4] = [1, 100, 1000, 10_000];

/// How long one batch process may take before it is killed: calibration
/// and the batch take a few `benchtime`s; the rest is startup.
pub fn batch_timeout(benchtime: Duration) -> Duration {
    benchtime * 20 + Duration::from_secs(60)
}

/// The two builds, by their role.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Base,
    New,
}

impl Side {
    fn label(self) -> &'static str {
        ["BASE", "NEW"][self as usize]
    }
}

/// What one run of `ab` does.
#[derive(Clone, Debug)]
pub struct Plan {
    pub base: PathBuf,
    pub new: PathBuf,
    pub rows: Vec<String>,
    pub rounds: usize,
    pub benchtime: Duration,
    /// Batches per process; a round's sample is the fastest.
    pub batches: usize,
    /// `taskset -c CPU`, or None (unpinned).
    pub pin: Option<usize>,
    /// The CPU of the HTTP load generator (another one than `pin`).
    pub load_pin: Option<usize>,
    /// One load run of an `http/…` row ([`http`]).
    pub http_duration: Duration,
    pub slow_row: Option<crate::bench::hooks::SlowRow>,
    /// `--data FILE` and its `--schema`: a document's rows in place of the catalog's.
    pub data: Option<(String, Option<String>)>,
    /// The smallest change flagged, as a fraction ([`paired::judge`]).
    pub floor: f64,
}

/// One batch's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    ns: f64,
    cpu_ns: Option<f64>,
    /// The extra work the test hook reported for this batch, in percent.
    hook_pct: Option<f64>,
}

/// `wirebench ab`; Ok(true) when a slowdown exceeds `--fail-over`.
pub fn cli_main(args: &mut Args) -> Result<bool, String> {
    if args.switch("--help") {
        print!("{USAGE}");
        return Ok(false);
    }
    let rows_re = args.value("--rows")?;
    let rounds = args.parse_or("--rounds", 60usize)?;
    let benchtime = parse_duration(&args.value("--benchtime")?.unwrap_or("30ms".into()))?;
    let batches = args.parse_or("--batches", 5usize)?;
    let cpu = args.parse_or("--cpu", 1usize)?;
    let fail_over: Option<f64> = args.parse("--fail-over")?;
    let floor = args.parse_or("--floor", paired::DEFAULT_FLOOR * 100.0)?;
    let slow = args.value("--slow-row")?;
    let with_http = args.switch("--http");
    let data = args.value("--data")?;
    let schema = args.value("--schema")?;
    let http_duration = parse_duration(&args.value("--http-duration")?.unwrap_or("500ms".into()))?;
    let bins = args.positional();
    args.finish()?;
    let [base, new] = bins.as_slice() else {
        return Err(format!(
            "expected BASE_BIN NEW_BIN, found {} arguments\n\n{USAGE}",
            bins.len()
        ));
    };
    for (what, p) in [("BASE_BIN", base), ("NEW_BIN", new)] {
        if !Path::new(p).is_file() {
            return Err(format!("{what} {p:?}: not a file"));
        }
    }
    if rounds < 6 {
        return Err(format!(
            "--rounds {rounds}: at least 6 (below that no pair of samples can reach p < 0.05)"
        ));
    }
    if batches == 0 {
        return Err("--batches: at least 1".into());
    }
    if benchtime.is_zero() || http_duration.is_zero() {
        return Err("--benchtime and --http-duration: must be above 0".into());
    }
    if fail_over.is_some_and(|p| !(p >= 0.0 && p.is_finite())) {
        return Err("--fail-over: expected a percentage ≥ 0".into());
    }
    if !(floor >= 0.0 && floor.is_finite()) {
        return Err(format!("--floor {floor}: expected a percentage ≥ 0"));
    }
    let pattern = Pattern::parse(rows_re.as_deref().unwrap_or(""))?;
    let payloads = match &data {
        Some(_) if with_http => {
            return Err("--data and --http: the HTTP cases serve the catalog; run them apart".into());
        }
        Some(file) => vec![Payload::document(Document::load(file, schema.as_deref())?)],
        None if schema.is_some() => return Err("--schema goes with --data FILE.json".into()),
        None => {
            let catalog = Payload::fixture(COUNTS[COUNTS.len() - 1]);
            COUNTS.iter().filter_map(|&n| catalog.with_count(n)).collect()
        }
    };
    let mut universe = crate::bench::codec::row_names(&payloads);
    if with_http {
        universe.extend(http::case_names());
    }
    let rows: Vec<String> = universe.into_iter().filter(|r| pattern.matches(r)).collect();
    if rows.is_empty() {
        return Err(format!(
            "--rows {:?}: matches no row (codec rows look like Decode/json/1000, FlatbuffersDirect/100; with --data, Data/json/encode; with --http, http/json/1000)",
            rows_re.unwrap_or_default()
        ));
    }
    let slow_row = slow.as_deref().map(crate::bench::hooks::SlowRow::parse).transpose()?;
    if let Some(s) = &slow_row {
        if !rows.contains(&s.name) {
            return Err(format!("--slow-row: {:?} is not among the rows run", s.name));
        }
    }
    let pin = pin_cpu(cpu);
    let plan = Plan {
        base: PathBuf::from(base),
        new: PathBuf::from(new),
        rows,
        rounds,
        benchtime,
        batches,
        pin,
        load_pin: pin.map(other_cpu),
        http_duration,
        slow_row,
        data: data.map(|file| (file, schema)),
        floor: floor / 100.0,
    };
    let outcome = run(&plan)?;
    let pinned = match plan.pin {
        Some(c) => format!("pinned to CPU {c}"),
        None => "unpinned (no taskset)".to_string(),
    };
    println!(
        "wirebench ab: BASE {} vs NEW {}",
        plan.base.display(),
        plan.new.display()
    );
    let stats = format!(
        "change: Hodges-Lehmann estimate of the per-round NEW/BASE ratios, Wilcoxon signed-rank test, Holm-Bonferroni over the table's rows, alpha = {}; flagged from ±{:.1}% (--floor)",
        crate::measure::significance::ALPHA,
        plan.floor * 100.0
    );
    let of = plan.data.as_ref().map_or(String::new(), |(f, _)| format!(" of {f}"));
    let codec_title = format!(
        "codec rows{of} ({}, lower is better; {} rounds, each one process per side, each side at every position of the round, running the row's fastest of {} {:?} batches, both {pinned}; {stats})",
        outcome.unit, plan.rounds, plan.batches, plan.benchtime,
    );
    let http_title = format!(
        "HTTP server-only cases (server CPU µs per request, lower is better; {} rounds of one {:?} load run per side, each side at every position of the round, both servers {pinned}, the load generator on CPU {}; {stats})",
        plan.rounds,
        plan.http_duration,
        plan.load_pin.map_or("any".to_string(), |c| c.to_string()),
    );
    if let Some(s) = &plan.slow_row {
        let real = outcome
            .hook_pct
            .map_or("none reported".to_string(), |p| format!("+{p:.2}% of the iterations"));
        println!(
            "test hook: NEW runs {} {}% slower (--slow-row); its real extra work, median over the processes: {real}",
            s.name, s.pct
        );
    }
    let mut tables = Vec::new();
    if !outcome.codec.verdicts.is_empty() || !outcome.codec.warnings.is_empty() {
        tables.push((codec_title, &outcome.codec));
    }
    if !outcome.http.verdicts.is_empty() || !outcome.http.warnings.is_empty() {
        tables.push((http_title, &outcome.http));
    }
    for (title, t) in &tables {
        print!("{}", paired::render(title, t));
    }
    let Some(limit) = fail_over else { return Ok(false) };
    let over: Vec<_> = tables.iter().flat_map(|(_, t)| t.regressions_over(limit)).collect();
    for v in &over {
        eprintln!("ab: {}: {:+.1}% slower (over {limit}%)", v.name, v.change * 100.0);
    }
    Ok(!over.is_empty())
}

/// Another CPU than `cpu` for the load generator (the same one on a single CPU).
fn other_cpu(cpu: usize) -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 { cpu } else { (cpu + 1) % cpus }
}

/// `Some(cpu)` when `taskset` runs here; the CPU is `cpu`, or the last one
/// when the machine has fewer.
fn pin_cpu(cpu: usize) -> Option<usize> {
    let ok = Command::new("taskset")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    ok.then(|| cpu.min(cpus - 1))
}

/// What a run found.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The codec rows' verdicts.
    pub codec: paired::PairedTable,
    /// `cpu-ns/op`, or `ns/op` when a side lacks CPU times.
    pub unit: &'static str,
    /// The `http/…` rows' verdicts (server CPU µs per request).
    pub http: paired::PairedTable,
    /// The test hook's real extra work (median over NEW's processes), percent.
    pub hook_pct: Option<f64>,
}

/// The side order of row `row` in round `round` (module docs): flipped every
/// `nrows` rounds, and neighbouring rows start with different sides.
fn side_order(round: usize, row: usize, nrows: usize) -> [Side; 2] {
    if (round / nrows.max(1) + row) % 2 == 0 {
        [Side::Base, Side::New]
    } else {
        [Side::New, Side::Base]
    }
}

/// Runs the plan (module docs).
pub fn run(plan: &Plan) -> Result<Outcome, String> {
    let nrows = plan.rows.len();
    let servers = if plan.rows.iter().any(|r| r.starts_with("http/")) {
        let base = http::start(&plan.base, plan.pin).map_err(|e| format!("BASE: {e}"))?;
        let new = http::start(&plan.new, plan.pin).map_err(|e| format!("NEW: {e}"))?;
        Some([base, new])
    } else {
        None
    };
    let load_bin = std::env::current_exe().map_err(|e| format!("which binary am I: {e}"))?;
    let copy = FreshCopy::new()?;
    let mut samples: Vec<[Vec<Sample>; 2]> = vec![[Vec::new(), Vec::new()]; nrows];
    let mut progress = crate::measure::progress::Progress::new(plan.rounds * nrows);
    eprintln!(
        "ab: {nrows} rows × {} rounds, two processes of {} {:?} batches each",
        plan.rounds, plan.batches, plan.benchtime
    );
    for round in 0..plan.rounds {
        for i in 0..nrows {
            let k = (i + round) % nrows;
            let order = side_order(round, k, nrows);
            for side in order {
                let row = &plan.rows[k];
                let s = match &servers {
                    Some(servers) if row.starts_with("http/") => {
                        let server = &servers[side as usize];
                        let v = http::sample(&load_bin, plan.load_pin, server, row, plan.http_duration)
                            .map_err(|e| format!("{side:?}: {e}"))?;
                        Sample {
                            ns: v,
                            cpu_ns: Some(v),
                            hook_pct: None,
                        }
                    }
                    _ => batch(plan, &copy, side, row)?,
                };
                samples[k][side as usize].push(s);
            }
            let [b, n] = &samples[k];
            let (b, n) = (b[round], n[round]);
            eprintln!(
                "ab: {} round {}: {:<30} base {:>10.0} new {:>10.0} ({:+.1}%)",
                progress.step(),
                round + 1,
                plan.rows[k],
                b.cpu_ns.unwrap_or(b.ns),
                n.cpu_ns.unwrap_or(n.ns),
                (n.cpu_ns.unwrap_or(n.ns) / b.cpu_ns.unwrap_or(b.ns) - 1.0) * 100.0
            );
        }
    }
    let is_http = |name: &str| name.starts_with("http/");
    let all_cpu = plan
        .rows
        .iter()
        .zip(&samples)
        .filter(|(name, _)| !is_http(name))
        .flat_map(|(_, s)| s.iter().flatten())
        .all(|s| s.cpu_ns.is_some());
    let pick = |s: &Sample| if all_cpu { s.cpu_ns.unwrap_or(s.ns) } else { s.ns };
    let rows = |want_http: bool| -> Vec<PairedRow> {
        plan.rows
            .iter()
            .zip(&samples)
            .filter(|(name, _)| is_http(name) == want_http)
            .map(|(name, [b, n])| PairedRow {
                name: name.clone(),
                base: b.iter().map(pick).collect(),
                new: n.iter().map(pick).collect(),
            })
            .collect()
    };
    let hook: Vec<f64> = samples
        .iter()
        .flat_map(|[_, n]| n.iter().filter_map(|s| s.hook_pct))
        .collect();
    Ok(Outcome {
        codec: paired::judge(&rows(false), plan.floor),
        http: paired::judge(&rows(true), plan.floor),
        unit: if all_cpu { "cpu-ns/op" } else { "ns/op" },
        hook_pct: crate::measure::stats::median(&hook),
    })
}

/// One batch of `row` by one side's `codec-bench`.
fn batch(plan: &Plan, copy: &FreshCopy, side: Side, row: &str) -> Result<Sample, String> {
    let built = [&plan.base, &plan.new][side as usize];
    let bin = &copy.of(built)?;
    let mut cmd = http::pinned(plan.pin, bin);
    cmd.args(["codec-bench", "--out", "-", "--count", &plan.batches.to_string()])
        .args(["--benchtime", &format!("{}ns", plan.benchtime.as_nanos())]);
    match &plan.data {
        Some((file, schema)) => {
            cmd.args(["--data", file]);
            if let Some(s) = schema {
                cmd.args(["--schema", s]);
            }
        }
        None => {
            let count = row
                .rsplit('/')
                .next()
                .and_then(|c| c.parse::<usize>().ok())
                .ok_or_else(|| format!("row {row:?}: no product count at its end"))?;
            cmd.args(["--counts", &count.to_string()]);
        }
    }
    cmd.args(["--filter", row]);
    if let (Side::New, Some(s)) = (side, &plan.slow_row) {
        if s.name == row {
            cmd.args(["--slow-row", &format!("{}={}", s.name, s.pct)]);
        }
    }
    let label = side.label();
    let (stdout, stderr) = run_child(cmd, batch_timeout(plan.benchtime))
        .map_err(|e| format!("{label} {} codec-bench {row}: {e}", built.display()))?;
    let mut sample = parse_batch(&stdout, row).map_err(|e| {
        format!(
            "{label} {} codec-bench {row}: {e}; its stderr ends:\n{}",
            built.display(),
            tail(&stderr)
        )
    })?;
    sample.hook_pct = hook_pct(&stderr);
    Ok(sample)
}

/// The real extra work of the test hook, from its stderr line
/// `test hook --slow-row: NAME runs X extra of N iterations per batch (+P%)`.
fn hook_pct(stderr: &str) -> Option<f64> {
    let line = stderr.lines().find(|l| l.starts_with("test hook --slow-row:"))?;
    let (_, rest) = line.rsplit_once("(+")?;
    rest.strip_suffix("%)")?.parse().ok()
}

/// Where each codec batch's binary runs from: a fresh copy of BASE_BIN or
/// NEW_BIN at one path, made anew before every batch (removed on drop).
/// Two copies of one build kept as files measure about 1.5% apart (their
/// code's physical pages favour one side); a fresh copy per batch shares
/// that noise, and one path keeps `argv` the same length.
pub struct FreshCopy {
    dir: PathBuf,
}

impl FreshCopy {
    pub fn new() -> Result<FreshCopy, String> {
        let dir = std::env::temp_dir().join(format!("wirebench-ab-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(FreshCopy { dir })
    }

    /// A fresh copy of `bin` (a new file, so new page-cache pages) at this
    /// run's one path.
    pub fn of(&self, bin: &Path) -> Result<PathBuf, String> {
        let path = self.dir.join("wirebench");
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
        std::fs::copy(bin, &path).map_err(|e| format!("copy {} to {}: {e}", bin.display(), path.display()))?;
        Ok(path)
    }
}

impl Drop for FreshCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The figures of `row` in one `codec-bench --out -` output: the fastest
/// of its batches.
fn parse_batch(stdout: &str, row: &str) -> Result<Sample, String> {
    let file = crate::report::parse::codec("stdout", stdout).map_err(|e| e.to_string())?;
    let lines: Vec<_> = file
        .lines
        .iter()
        .filter(|l| {
            let three = format!("{}/{}/{}", l.op, l.format, l.count);
            let two = format!("{}/{}", l.op, l.count);
            let data = format!("Data/{}/{}", l.format, l.op.to_ascii_lowercase());
            three == row || two == row || data == row
        })
        .collect();
    let min = |v: &[f64]| v.iter().copied().reduce(f64::min);
    let ns = min(&lines.iter().map(|l| l.ns_per_op).collect::<Vec<_>>())
        .ok_or_else(|| format!("no result line for {row} (was it renamed or skipped in this build?)"))?;
    let cpu: Option<Vec<f64>> = lines.iter().map(|l| l.cpu_ns_per_op).collect();
    Ok(Sample {
        ns,
        cpu_ns: cpu.and_then(|c| min(&c)),
        hook_pct: None,
    })
}

/// The `--rows` pattern: alternatives separated by `|`, each matched
/// anywhere in the name unless anchored, with `.` any character, `x*` zero
/// or more of the item before, `^` the start and `$` the end (Pike's
/// matcher). Other regex syntax is refused, never taken literally.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    alternatives: Vec<Vec<char>>,
}

impl Pattern {
    pub fn parse(re: &str) -> Result<Pattern, String> {
        if let Some(c) = re.chars().find(|c| "()[]{}+?\\".contains(*c)) {
            return Err(format!(
                "--rows {re:?}: {c:?} is not supported; use literal text, . * ^ $ and | between alternatives"
            ));
        }
        let alternatives: Vec<Vec<char>> = re.split('|').map(|a| a.chars().collect()).collect();
        for a in &alternatives {
            let bad_star = a.first() == Some(&'*') || a.windows(2).any(|w| w[1] == '*' && (w[0] == '*' || w[0] == '^'));
            let bad_anchor = a.iter().skip(1).any(|&c| c == '^') || a.iter().rev().skip(1).any(|&c| c == '$');
            if bad_star || bad_anchor {
                return Err(format!(
                    "--rows {re:?}: a `*` must follow a character or `.`, `^` may only start and `$` only end an alternative"
                ));
            }
        }
        Ok(Pattern { alternatives })
    }

    pub fn matches(&self, text: &str) -> bool {
        let t: Vec<char> = text.chars().collect();
        self.alternatives.iter().any(|a| match a.split_first() {
            Some(('^', rest)) => here(rest, &t),
            _ => (0..=t.len()).any(|i| here(a, &t[i..])),
        })
    }
}

/// Pike's `matchhere`: does `re` match at the start of `t`?
fn here(re: &[char], t: &[char]) -> bool {
    match re {
        [] => true,
        [c, '*', rest @ ..] => {
            let mut i = 0;
            loop {
                if here(rest, &t[i..]) {
                    return true;
                }
                if i < t.len() && (*c == '.' || t[i] == *c) {
                    i += 1;
                } else {
                    return false;
                }
            }
        }
        ['$'] => t.is_empty(),
        [c, rest @ ..] => !t.is_empty() && (*c == '.' || t[0] == *c) && here(rest, &t[1..]),
    }
}

#[cfg(test)]
mod tests {

    /// Over `2 × nrows` rounds (rows rotated through the slots as `run`
    /// does), each row's BASE and NEW take every position of the round
    /// equally often, and each goes first in half the rounds; rows next to
    /// each other start with different sides. Self-test: flipping every
    /// round fails the position check with 2 rows.
    #[test]
    fn each_side_takes_every_position_of_the_round_equally() {
        type Order = fn(usize, usize, usize) -> [Side; 2];
        // position[row][side]: how often that side ran at each position.
        let positions = |nrows: usize, rounds: usize, order: Order| {
            let mut pos = vec![[vec![0usize; 2 * nrows], vec![0usize; 2 * nrows]]; nrows];
            let mut adjacent_same = false;
            for round in 0..rounds {
                let mut previous = None;
                for i in 0..nrows {
                    let k = (i + round) % nrows;
                    let o = order(round, k, nrows);
                    for (j, side) in o.iter().enumerate() {
                        pos[k][*side as usize][2 * i + j] += 1;
                    }
                    if i > 0 && k != 0 && previous == Some(o[0]) {
                        adjacent_same = true;
                    }
                    previous = Some(o[0]);
                }
            }
            (pos, adjacent_same)
        };
        for nrows in [1usize, 2, 5, 6] {
            let rounds = 4 * nrows;
            let (pos, adjacent_same) = positions(nrows, rounds, side_order);
            for (k, [base, new]) in pos.iter().enumerate() {
                assert_eq!(base, new, "rows {nrows}, row {k}");
                let first: usize = (0..nrows).map(|slot| base[2 * slot]).sum();
                assert_eq!(first, rounds / 2, "rows {nrows}, row {k}");
            }
            assert!(!adjacent_same, "rows {nrows}");
        }
        let every_round: Order = |round, row, _| {
            if (round + row) % 2 == 0 {
                [Side::Base, Side::New]
            } else {
                [Side::New, Side::Base]
            }
        };
        let (pos, _) = positions(2, 8, every_round);
        assert_ne!(pos[0][0], pos[0][1], "the check sees BASE at the ends");
    }

    use super::*;

    #[test]
    fn pattern_matches_like_a_regex() {
        let m = |re: &str, t: &str| Pattern::parse(re).unwrap().matches(t);
        assert!(m("", "Decode/json/1000"));
        assert!(m("json", "Decode/json/1000"));
        assert!(m("^Decode/json/1000$", "Decode/json/1000"));
        assert!(!m("^Decode/json/1$", "Decode/json/1000"));
        assert!(!m("^Encode", "ProtobufEncodePrebuilt/1"));
        assert!(m("^Encode/.*/1000$|^Memcpy/", "Encode/avro/1000"));
        assert!(m("^Encode/.*/1000$|^Memcpy/", "Memcpy/json/1"));
        assert!(!m("^Encode/.*/1000$|^Memcpy/", "Encode/avro/100"));
        assert!(m("a*b", "b") && m("^x.*y$", "xy") && !m("^x.y$", "xy"));
        for bad in ["(a|b)", "a+", "[ab]", "*a", "a^b", "a$b", "x\\.y"] {
            assert!(Pattern::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn parse_batch_takes_the_named_row_and_its_cpu_time() {
        let out = "goos: linux\nbenchtime: 100ms\n\
            BenchmarkDecode/json/1-2\t100\t2000 ns/op\t1.0 MB/s\t10 B/op\t1 allocs/op\t1900 cpu-ns/op\n\
            BenchmarkFlatbuffersDirect/1-2\t100\t500 ns/op\t1.0 MB/s\t0 B/op\t0 allocs/op\n";
        let s = parse_batch(out, "Decode/json/1").unwrap();
        assert_eq!((s.ns, s.cpu_ns), (2000.0, Some(1900.0)));
        let three = format!(
            "{out}BenchmarkDecode/json/1-2\t100\t1500 ns/op\t1800 cpu-ns/op\nBenchmarkDecode/json/1-2\t100\t2500 ns/op\t2400 cpu-ns/op\n"
        );
        let s = parse_batch(&three, "Decode/json/1").unwrap();
        assert_eq!((s.ns, s.cpu_ns), (1500.0, Some(1800.0)), "each figure's fastest batch");
        assert_eq!(
            hook_pct("x\ntest hook --slow-row: Decode/json/1 runs 3 extra of 100 iterations per batch (+3.00%)\n"),
            Some(3.0)
        );
        assert_eq!(hook_pct("codec-bench: done"), None);
        let s = parse_batch(out, "FlatbuffersDirect/1").unwrap();
        assert_eq!((s.ns, s.cpu_ns), (500.0, None));
        let data =
            "data: x.json\nBenchmarkData/avro/decode-2\t100\t900 ns/op\t1.0 MB/s\t0 B/op\t0 allocs/op\t800 cpu-ns/op\n";
        assert_eq!(parse_batch(data, "Data/avro/decode").unwrap().cpu_ns, Some(800.0));
        assert!(parse_batch(data, "Data/avro/encode").is_err());
        let e = parse_batch(out, "Encode/json/1").unwrap_err();
        assert!(e.contains("no result line for Encode/json/1"), "{e}");
        assert!(parse_batch("Benchmark garbage", "Decode/json/1").is_err());
    }
}
