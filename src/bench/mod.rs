//! Codec microbenchmarks and payload sizes: a small std-only harness in the
//! spirit of `go test -bench`.
//!
//! How the rows are measured ([`interleave`]; [`bench`] is the same for one row):
//!
//! 1. **Calibrate** ([`calibrate`]): run the operation once, then predict a
//!    larger `n` from the time per operation so far (aiming 20% past the
//!    budget, at most 100× per step: Go's `predictN`) until one batch of `n`
//!    takes at least `--benchtime`.
//! 2. **Measure**, interleaved: `--count` rounds, each one batch of that `n`
//!    of every row (after one untimed operation that brings the row's data
//!    back into the caches), the row order rotated by one each round. A change
//!    of machine state during the run lands in one batch of many rows, so it
//!    widens their intervals instead of shifting one row's median. Each batch
//!    is one result line; timing runs with allocation counting off.
//! 3. **Count** ([`count_allocs`]): run the operation again, untimed, with the
//!    counting allocator on ([`alloc::with_counting`]): B/op and allocs/op are
//!    exact averages over up to [`COUNT_ITERS`] iterations.
//!
//! Inputs go through [`std::hint::black_box`] and every operation checks its
//! result inside the timed loop (an encoder's length, a decoder's product
//! count), so the optimizer cannot drop the work and a broken codec cannot
//! produce a fast number. Timing uses the monotonic [`Instant`] on the
//! calling thread. Result lines are Go's benchmark format (tab-separated), so
//! `benchstat` reads `results/codec.txt`:
//!
//! ```text
//! BenchmarkEncode/json/1000-2    5000    237010 ns/op    714.05 MB/s    169241 B/op    3 allocs/op
//! ```
//!
//! MB/s is the format's encoded size at that count (10^6 bytes) per second,
//! for encoders and decoders alike. `cpu-ns/op` is the thread's on-CPU time
//! over the batch (`crate::measure::cpu::thread_cpu_ns`, read around the
//! batch) per operation, exact to about a scheduler tick: on a shared machine
//! ns/op also counts waiting for a core, and `cpu-ns/op` is the figure to
//! compare with the CPU time per HTTP request.

pub mod codec;
pub mod hooks;
pub mod processes;
pub mod sizes;

use crate::measure::alloc;
use crate::measure::stats::procs;
use std::fmt;
use std::time::{Duration, Instant};

pub use codec::cli_codec_bench;
pub use sizes::cli_sizes;

/// Upper bound on iterations per batch (Go uses 1e9 too).
pub const MAX_ITERS: u64 = 1_000_000_000;

/// Most iterations of one untimed counting run ([`count_allocs`]).
pub const COUNT_ITERS: u64 = 1000;

/// How long and how often each row runs.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Minimum duration of one measured batch (`--benchtime`).
    pub benchtime: Duration,
    /// Batches (result lines) per row (`--count`).
    pub count: usize,
}

/// One measured batch.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// Iterations in the batch.
    pub iters: u64,
    /// Wall time of the whole batch.
    pub elapsed: Duration,
    /// Allocator activity during the counting run of the same operation
    /// (zero without a counting allocator).
    pub allocs: alloc::Counts,
    /// Iterations of that counting run (0: not counted).
    pub alloc_iters: u64,
    /// On-CPU time of the measuring thread during the batch (None without `/proc`).
    pub cpu: Option<Duration>,
}

impl Run {
    pub fn ns_per_op(&self) -> f64 {
        self.elapsed.as_nanos() as f64 / self.iters.max(1) as f64
    }
}

/// Go's `predictN`: the next iteration count to try after `n` iterations took
/// `elapsed`, aiming 20% past `budget`; at least `n + 1`, at most `100 n`,
/// never above [`MAX_ITERS`].
pub fn next_n(n: u64, elapsed: Duration, budget: Duration) -> u64 {
    let n = n.max(1);
    let per_op = (elapsed.as_nanos() as f64 / n as f64).max(1.0);
    let goal = budget.as_nanos() as f64 * 1.2 / per_op;
    let goal = if goal.is_finite() { goal as u64 } else { MAX_ITERS };
    goal.clamp(n + 1, n.saturating_mul(100)).min(MAX_ITERS)
}

/// Finds the smallest predicted `n` for which `timed(n)` (run `n` iterations,
/// return their wall time) reaches `budget`. Returns `n` and that batch's time.
/// The clock is a parameter so tests can drive it with a fake one.
pub fn calibrate(budget: Duration, mut timed: impl FnMut(u64) -> Duration) -> (u64, Duration) {
    let mut n = 1;
    loop {
        let t = timed(n);
        if t >= budget || n >= MAX_ITERS {
            return (n, t);
        }
        n = next_n(n, t, budget);
    }
}

/// Runs `op` `n` times and returns the wall time. Never inlined, so the
/// timed loop is one symbol in every binary that uses the harness (callgrind
/// can count exactly its instructions with `--toggle-collect`).
#[inline(never)]
fn time_n(op: &mut impl FnMut(), n: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..n {
        op();
    }
    start.elapsed()
}

/// Calibrates `op` to `cfg.benchtime`, measures `runs` batches of the
/// calibrated size, then counts its allocations in one untimed run
/// ([`count_allocs`]) and attaches them to every batch. `op` must black-box
/// its inputs and check its result.
pub fn bench(cfg: &Config, runs: usize, mut op: impl FnMut()) -> Vec<Run> {
    let n = calibrate_op(cfg.benchtime, &mut op);
    let mut runs: Vec<Run> = (0..runs).map(|_| measure(n, &mut op)).collect();
    attach_allocs(&mut runs, n, &mut op);
    runs
}

/// Counts `op`'s allocations in one untimed run of `n` iterations (at most
/// [`COUNT_ITERS`]) and gives them to every batch in `runs`.
fn attach_allocs(runs: &mut [Run], n: u64, op: &mut impl FnMut()) {
    let k = n.clamp(1, COUNT_ITERS);
    let allocs = count_allocs(k, op);
    for r in runs {
        r.allocs = allocs;
        r.alloc_iters = k;
    }
}

/// One row of an interleaved measurement ([`interleave`]).
pub struct Case<'a> {
    /// Result-line name, e.g. `Encode/json/1000`.
    pub name: String,
    /// Payload bytes per operation (for MB/s).
    pub payload: usize,
    /// Batches this row gets (rows of one run may have fewer than the rounds).
    pub batches: usize,
    /// The test hook `--slow-row` ([`hooks::SlowRow`]): extra iterations in
    /// every measured batch of this row.
    pub slow: Option<hooks::SlowRow>,
    op: Box<dyn Op + 'a>,
}

/// An operation behind a trait object whose timed loop stays monomorphic:
/// the dynamic call is once per batch, never once per iteration.
trait Op {
    fn timed(&mut self, n: u64) -> Duration;
    fn once(&mut self);
}

struct OpFn<F>(F);

impl<F: FnMut()> Op for OpFn<F> {
    fn timed(&mut self, n: u64) -> Duration {
        time_n(&mut self.0, n)
    }
    fn once(&mut self) {
        (self.0)()
    }
}

impl<'a> Case<'a> {
    /// A row named `name` of `batches` batches; `op` must black-box its
    /// inputs and check its result.
    pub fn new(name: impl Into<String>, payload: usize, batches: usize, op: impl FnMut() + 'a) -> Case<'a> {
        Case {
            name: name.into(),
            payload,
            batches,
            slow: None,
            op: Box::new(OpFn(op)),
        }
    }
}

/// Measures `cases` interleaved (module docs): calibrates each to
/// `benchtime`, then runs rounds of one batch per row, the order rotated by
/// one per round, until every row has its `batches`; then counts each row's
/// allocations in one untimed run. Returns each case's batches, in the order
/// of `cases`. `progress(round, rounds)` is called after each round.
pub fn interleave(benchtime: Duration, cases: &mut [Case], progress: impl FnMut(usize, usize)) -> Vec<Vec<Run>> {
    interleave_with(benchtime, cases, usize::MAX, |_| {}, progress)
}

/// Batches between two calibration samples in [`interleave_with`] (codec-bench).
pub const CALIBRATE_EVERY: usize = 8;

/// [`interleave_with`] taking a calibration sample
/// (`crate::measure::calibration`) every [`CALIBRATE_EVERY`] batches: the
/// runs of every case, and the samples in the order they were taken.
pub fn interleave_calibrated(
    benchtime: Duration,
    cases: &mut [Case],
    progress: impl FnMut(usize, usize),
) -> (Vec<Vec<Run>>, Vec<crate::measure::calibration::Sample>) {
    let mut probe = crate::measure::calibration::Probe::new();
    let mut samples = Vec::new();
    let runs = interleave_with(
        benchtime,
        cases,
        CALIBRATE_EVERY,
        |round| samples.push(probe.sample(round, None)),
        progress,
    );
    (runs, samples)
}

/// [`interleave`], calling `between(round)` (1-based) before the first batch
/// of every round and before every `every`-th batch after it, outside any
/// timed batch: `codec-bench` times the calibration workload there
/// (`crate::measure::calibration`). A case with [`Case::slow`] set runs its
/// extra iterations inside every measured batch (the test hook).
pub fn interleave_with(
    benchtime: Duration,
    cases: &mut [Case],
    every: usize,
    mut between: impl FnMut(usize),
    mut progress: impl FnMut(usize, usize),
) -> Vec<Vec<Run>> {
    let every = every.max(1);
    let ns: Vec<u64> = cases
        .iter_mut()
        .map(|c| calibrate(benchtime, |n| c.op.timed(n)).0)
        .collect();
    let extra: Vec<u64> = cases
        .iter()
        .zip(&ns)
        .map(|(c, &n)| c.slow.as_ref().map_or(0, |s| s.extra(n)))
        .collect();
    for ((c, &n), &x) in cases.iter().zip(&ns).zip(&extra) {
        if c.slow.is_some() {
            eprintln!(
                "test hook --slow-row: {} runs {x} extra of {n} iterations per batch (+{:.2}%)",
                c.name,
                x as f64 * 100.0 / n as f64
            );
        }
    }
    let mut runs: Vec<Vec<Run>> = cases.iter().map(|c| Vec::with_capacity(c.batches)).collect();
    let rounds = cases.iter().map(|c| c.batches).max().unwrap_or(0);
    let len = cases.len();
    for round in 0..rounds {
        let mut done = 0;
        for i in 0..len {
            let k = (i + round) % len;
            if runs[k].len() >= cases[k].batches {
                continue;
            }
            if done % every == 0 {
                between(round + 1);
            }
            done += 1;
            let op = &mut cases[k].op;
            op.once();
            let x = extra[k];
            runs[k].push(measure_timed(ns[k], |n| op.timed(n + x)));
        }
        progress(round + 1, rounds);
    }
    for (c, (r, &n)) in cases.iter_mut().zip(runs.iter_mut().zip(&ns)) {
        attach_allocs(r, n, &mut || c.op.once());
    }
    runs
}

/// Runs `op` `k` times, untimed, with allocation counting switched on, and
/// returns what the process allocated meanwhile; the switch is restored after.
pub fn count_allocs(k: u64, op: &mut impl FnMut()) -> alloc::Counts {
    alloc::with_counting(|| {
        let before = alloc::counts();
        for _ in 0..k {
            op();
        }
        alloc::counts().since(before)
    })
}

/// The iteration count for which one batch of `op` takes at least `budget`.
pub fn calibrate_op(budget: Duration, op: &mut impl FnMut()) -> u64 {
    calibrate(budget, |n| time_n(op, n)).0
}

/// One timed batch of `n` iterations; nothing else runs inside it (the
/// allocation counts stay empty: [`count_allocs`] fills them apart).
/// Interleaving `measure` calls of two operations (A B A B …) spreads any
/// change in machine load over both, which is how the peers bench compares.
pub fn measure(n: u64, op: &mut impl FnMut()) -> Run {
    measure_timed(n, |n| time_n(op, n))
}

/// [`measure`] with the timed loop given: `timed(n)` runs `n` iterations
/// and returns their wall time; the thread's CPU time is read around it.
fn measure_timed(n: u64, timed: impl FnOnce(u64) -> Duration) -> Run {
    let cpu_before = crate::measure::cpu::thread_cpu_ns();
    let elapsed = timed(n);
    let cpu_after = crate::measure::cpu::thread_cpu_ns();
    Run {
        iters: n,
        elapsed,
        allocs: alloc::Counts::default(),
        alloc_iters: 0,
        cpu: cpu_before
            .zip(cpu_after)
            .map(|(b, a)| Duration::from_nanos(a.saturating_sub(b))),
    }
}

/// One Go-style result line.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Name without `Benchmark` and without the `-P` suffix, e.g. `Encode/json/1000`.
    pub name: String,
    /// The `-P` suffix (Go's GOMAXPROCS): here the available parallelism.
    pub procs: usize,
    pub iters: u64,
    pub ns_per_op: f64,
    /// Payload megabytes (10^6) per second; `None` when there is no payload.
    pub mb_per_s: Option<f64>,
    pub bytes_per_op: u64,
    pub allocs_per_op: u64,
    /// On-CPU ns per operation (`cpu-ns/op`), when measured.
    pub cpu_ns_per_op: Option<f64>,
}

impl Line {
    /// The line for one run, with `payload` bytes processed per operation.
    pub fn from_run(name: &str, run: &Run, payload: usize) -> Line {
        let secs = run.elapsed.as_secs_f64();
        let n = run.alloc_iters.max(1);
        Line {
            name: name.to_string(),
            procs: procs(),
            iters: run.iters,
            ns_per_op: run.ns_per_op(),
            mb_per_s: (payload > 0 && secs > 0.0).then(|| payload as f64 * run.iters as f64 / 1e6 / secs),
            bytes_per_op: run.allocs.bytes / n,
            allocs_per_op: run.allocs.allocs / n,
            // CPU time covers the timed batch, allocations the counting run.
            cpu_ns_per_op: run.cpu.map(|c| c.as_nanos() as f64 / run.iters.max(1) as f64),
        }
    }
}

/// Go prints ns/op with fewer decimals as the value grows.
fn fmt_ns(ns: f64) -> String {
    if ns == 0.0 || ns >= 99.995 {
        format!("{ns:10.0}")
    } else if ns >= 9.9995 {
        format!("{ns:12.1}")
    } else {
        format!("{ns:13.2}")
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = format!("Benchmark{}-{}", self.name, self.procs);
        write!(f, "{name:<40}\t{:8}\t{} ns/op", self.iters, fmt_ns(self.ns_per_op))?;
        if let Some(mb) = self.mb_per_s {
            write!(f, "\t{mb:8.2} MB/s")?;
        }
        write!(f, "\t{:8} B/op\t{:8} allocs/op", self.bytes_per_op, self.allocs_per_op)?;
        if let Some(cpu) = self.cpu_ns_per_op {
            write!(f, "\t{} cpu-ns/op", fmt_ns(cpu))?;
        }
        Ok(())
    }
}

/// The header block Go prints before results (`goos:`, `goarch:`, `pkg:`, `cpu:`).
pub fn go_header(cpu: &str) -> String {
    format!(
        "goos: {}\ngoarch: {}\npkg: wirebench\ncpu: {cpu}\n",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}

/// The products a command measures: the deterministic fixture, or `--fixture FILE`.
pub(crate) fn load_products(fixture: Option<&str>, max_count: usize) -> Result<Vec<crate::model::Product>, String> {
    match fixture {
        None => Ok(crate::fixtures::catalog(max_count).products),
        Some(path) => {
            let c = crate::fixtures::load_file(std::path::Path::new(path))?;
            if c.products.len() < max_count {
                return Err(format!(
                    "{path} holds {} products but --counts asks for {max_count}",
                    c.products.len()
                ));
            }
            Ok(c.products)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_reaches_the_budget_with_a_fake_clock() {
        // Each iteration "takes" 3 µs; budget 300 ms → n must reach 100,000.
        for (per_op_ns, budget_ms) in [(3_000u64, 300u64), (1, 300), (250_000_000, 300), (7, 1)] {
            let budget = Duration::from_millis(budget_ms);
            let mut tried = Vec::new();
            let (n, t) = calibrate(budget, |n| {
                tried.push(n);
                Duration::from_nanos(n * per_op_ns)
            });
            assert!(t >= budget, "per_op {per_op_ns}: {t:?} < {budget:?}");
            assert_eq!(t, Duration::from_nanos(n * per_op_ns));
            // Every earlier attempt was below the budget (we stopped at the first that reached it).
            for &m in &tried[..tried.len() - 1] {
                assert!(Duration::from_nanos(m * per_op_ns) < budget);
            }
            assert!(tried.windows(2).all(|w| w[1] > w[0] && w[1] <= w[0] * 100));
        }
    }

    #[test]
    fn next_n_bounds() {
        let ms = Duration::from_millis;
        assert_eq!(next_n(1, Duration::ZERO, ms(300)), 100); // at most 100×
        assert_eq!(next_n(1000, ms(300), ms(300)), 1200); // 20% past
        assert_eq!(next_n(10, ms(900), ms(300)), 11); // at least n + 1
        assert_eq!(next_n(MAX_ITERS, Duration::ZERO, ms(300)), MAX_ITERS);
    }

    #[test]
    fn real_bench_runs_the_op_and_black_box_keeps_it() {
        let cfg = Config {
            benchtime: Duration::from_millis(2),
            count: 2,
        };
        let mut calls = 0u64;
        let runs = bench(&cfg, 2, || {
            calls += 1;
            let v = std::hint::black_box(vec![1u8; 64]);
            assert_eq!(v.len(), 64);
        });
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].iters, runs[1].iters);
        assert!(calls > 2 * runs[0].iters);
        // The lib test binary installs the counting allocator (see alloc.rs):
        // one 64-byte Vec per iteration of the counting run at least.
        assert!(runs[0].alloc_iters >= 1 && runs[0].alloc_iters <= runs[0].iters.min(COUNT_ITERS));
        assert!(runs[0].allocs.allocs >= runs[0].alloc_iters, "{:?}", runs[0]);
        let line = Line::from_run("Encode/json/1", &runs[0], 64);
        assert!(line.allocs_per_op >= 1 && line.bytes_per_op >= 64, "{line:?}");
    }

    /// Rows `row0`, `row1`, … of `batches(i)` batches each, running `op(i)`.
    fn rows<'a>(n: usize, batches: impl Fn(usize) -> usize, op: &'a impl Fn(usize)) -> Vec<Case<'a>> {
        (0..n)
            .map(|i| Case::new(format!("row{i}"), 8, batches(i), move || op(i)))
            .collect()
    }

    /// Rows run interleaved: every row gets its batches, no row runs two
    /// batches back to back while another row still has batches to run in
    /// that round, and each round starts one row later.
    #[test]
    fn interleave_spreads_each_rows_batches_over_the_rounds() {
        let log = std::cell::RefCell::new(Vec::new());
        let op = |i: usize| log.borrow_mut().push(std::hint::black_box(i));
        let mut cases = rows(3, |i| if i == 2 { 2 } else { 4 }, &op);
        let mut rounds_seen = Vec::new();
        let runs = interleave(Duration::from_micros(50), &mut cases, |r, of| rounds_seen.push((r, of)));
        assert_eq!(runs.iter().map(Vec::len).collect::<Vec<_>>(), [4, 4, 2]);
        assert_eq!(rounds_seen, [(1, 4), (2, 4), (3, 4), (4, 4)]);
        // The order of batches: collapse each row's consecutive calls (one
        // warm-up call and one batch) into one entry per batch, after calibration.
        drop(cases);
        let mut order = log.into_inner();
        order.dedup();
        // Calibration (0 1 2), the rounds rotated (0 1 2, 1 2 0, then row 2
        // has its two: 0 1, 0 1; the first 0 joins the 0 before it), then the
        // counting runs (0 1 2).
        assert_eq!(order, [0, 1, 2, 0, 1, 2, 1, 2, 0, 1, 0, 1, 0, 1, 2], "{order:?}");
        assert!(runs.iter().flatten().all(|r| r.iters >= 1 && r.alloc_iters >= 1));
    }

    /// The calibration hook runs before the first batch of every round and
    /// before every `every`-th batch after it, never inside a batch.
    #[test]
    fn interleave_with_calls_between_at_round_starts_and_every_k_batches() {
        let log = std::cell::RefCell::new(Vec::<String>::new());
        let op = |i: usize| {
            let mut l = log.borrow_mut();
            if l.last().map(String::as_str) != Some(&*format!("row{i}")) {
                l.push(format!("row{i}"));
            }
        };
        let mut cases = rows(5, |_| 2, &op);
        let runs = interleave_with(
            Duration::from_micros(20),
            &mut cases,
            2,
            |round| log.borrow_mut().push(format!("cal{round}")),
            |_, _| {},
        );
        assert_eq!(runs.iter().map(Vec::len).collect::<Vec<_>>(), [2; 5]);
        drop(cases);
        let log = log.into_inner();
        // After calibration (row0..row4) and before the counting runs.
        let first = log.iter().position(|e| e == "cal1").expect("a sample in round 1");
        let measured: Vec<&str> = log[first..first + 16].iter().map(String::as_str).collect();
        assert_eq!(
            measured,
            [
                "cal1", "row0", "row1", "cal1", "row2", "row3", "cal1", "row4", "cal2", "row1", "row2", "cal2", "row3",
                "row4", "cal2", "row0"
            ]
        );
    }

    /// The test hook: a slowed row runs `n + extra` operations in each
    /// measured batch and reports `n`; the other rows run `n`.
    #[test]
    fn a_slowed_case_runs_its_extra_iterations_inside_the_batch() {
        let calls = std::cell::Cell::new([0u64; 2]);
        let op = |i: usize| {
            let mut c = calls.get();
            c[std::hint::black_box(i)] += 1;
            calls.set(c);
        };
        let mut cases = rows(2, |_| 3, &op);
        cases[1].slow = Some(hooks::SlowRow::parse("row1=50").unwrap());
        // `between` runs before every batch (every = 1): the calls between
        // two snapshots are one batch's warm-up call and its timed calls.
        let mut snaps = Vec::new();
        let runs = interleave_with(
            Duration::from_micros(200),
            &mut cases,
            1,
            |_| snaps.push(calls.get()),
            |_, _| {},
        );
        drop(cases);
        let n = [runs[0][0].iters, runs[1][0].iters];
        let extra = hooks::SlowRow::parse("row1=50").unwrap().extra(n[1]);
        assert!(extra >= 1 && extra * 2 >= n[1], "n = {n:?}, extra = {extra}");
        assert!(runs.iter().all(|r| r.len() == 3));
        assert!(runs[0].iter().all(|r| r.iters == n[0]) && runs[1].iter().all(|r| r.iters == n[1]));
        // Batches between consecutive snapshots (the last batch is cut off
        // by the counting runs, so 5 of the 6 are seen).
        let mut seen = 0;
        for w in snaps.windows(2) {
            let d = [w[1][0] - w[0][0], w[1][1] - w[0][1]];
            match d {
                [x, 0] => assert_eq!(x, 1 + n[0], "row0's batch"),
                [0, x] => assert_eq!(x, 1 + n[1] + extra, "row1's batch"),
                _ => panic!("two rows in one batch: {d:?}"),
            }
            seen += 1;
        }
        assert_eq!(seen, 5);
    }

    /// Wall and CPU time are per operation of the timed batch; bytes and
    /// allocations per operation of the (shorter) counting run.
    #[test]
    fn from_run_divides_each_figure_by_its_own_iterations() {
        let run = Run {
            iters: 10_000,
            elapsed: Duration::from_millis(50),
            allocs: alloc::Counts {
                allocs: 3_000,
                bytes: 64_000,
                ..Default::default()
            },
            alloc_iters: 1_000,
            cpu: Some(Duration::from_millis(40)),
        };
        let line = Line::from_run("Encode/json/1", &run, 100);
        assert_eq!(line.ns_per_op, 5_000.0);
        assert_eq!(line.cpu_ns_per_op, Some(4_000.0));
        assert_eq!((line.allocs_per_op, line.bytes_per_op), (3, 64));
    }

    #[test]
    fn line_matches_go_layout() {
        let line = Line {
            name: "Encode/json/1000".into(),
            procs: 2,
            iters: 5000,
            ns_per_op: 237010.4,
            mb_per_s: Some(714.05),
            bytes_per_op: 169241,
            allocs_per_op: 3,
            cpu_ns_per_op: None,
        };
        assert_eq!(
            line.to_string(),
            "BenchmarkEncode/json/1000-2             \t    5000\t    237010 ns/op\t  714.05 MB/s\t  169241 B/op\t       3 allocs/op"
        );
        let line = Line {
            cpu_ns_per_op: Some(236001.2),
            ..line
        };
        assert!(
            line.to_string().ends_with("3 allocs/op\t    236001 cpu-ns/op"),
            "{line}"
        );
    }
}
