//! The calibration workload: two fixed, deterministic loops that are no
//! codec, timed between benchmark batches and between HTTP runs, so every
//! run records the state of the machine beside the code it measures.
//!
//! | loop | what it does | what slows it |
//! |---|---|---|
//! | CPU ([`cpu_loop`]) | [`CPU_STEPS`] steps of a dependent multiply–rotate–xor chain on one register | a lower clock, a busy sibling hyperthread, another tenant on the core |
//! | memory ([`mem_loop`]) | [`MEM_STEPS`] dependent loads through a random cyclic permutation of [`MEM_WORDS`] `u32`s (4 MiB, a fixed full-period linear congruential map) | the shared cache and memory taken by others, page placement |
//!
//! Both loops run the same instructions on the same data in every process
//! (the permutation is a fixed function of [`MEM_SEED`], written in full
//! before the first sample), so a change of their time is a change of the
//! machine or of the process's placement on it. A sample is a few ms of work.
//!
//! One sample is one line of a raw file ([`Sample::line`], [`parse_line`]):
//!
//! ```text
//! calibration: round=3 at=12.345 cpu_us=1503.2 mem_us=812.7
//! # calibration: round=3 case=json/1000 at=12.345 cpu_us=1503.2 mem_us=812.7
//! ```
//!
//! `codec.txt` carries the first form after its result lines (a Go
//! configuration line, which benchstat reads as configuration after the last
//! result); `http*.csv` the second, a comment before the round's row. `round`
//! is the round (1-based) the sample was taken in, `case` the HTTP case it
//! preceded, `at` the seconds since the writer started.
//!
//! [`assess`] summarises one file's samples: the medians with their 95%
//! intervals, and the samples slower than their file's median by more than
//! the loop's limit ([`DISTURBED_SLOWER`], or [`SPREADS`] robust standard
//! deviations where the loop spreads wider: the memory loop deviates 6–20%
//! on a quiet host), whose rounds count as **disturbed**. `wirebench compare`
//! tests two runs' samples against each other. Nothing divides a benchmark
//! figure by a calibration time.

use super::significance::{self as sig, MedianCi};
use std::hint::black_box;
use std::time::{Duration, Instant};

pub const CPU_STEPS: u64 = 1 << 20;
/// Words of the memory loop's permutation (4 MiB of `u32`: past the
/// private caches, within the reach of the second-level TLB with 4 KiB
/// pages, so the loop sees the shared cache and memory rather than whether
/// the process got huge pages).
pub const MEM_WORDS: usize = 1 << 20;
/// Dependent loads of the memory loop per sample.
pub const MEM_STEPS: u64 = 1 << 14;
pub const MEM_SEED: u64 = 0x5EED_CA11_B4A7_E000;
/// A sample more than this fraction slower than its file's median (either
/// loop) is disturbed, and so is its round, unless the loop's own spread
/// sets a wider limit ([`SPREADS`]).
pub const DISTURBED_SLOWER: f64 = 0.05;
/// A loop's limit is at least this many robust standard deviations
/// (1.4826 × the median absolute deviation) of its samples in the file,
/// as a fraction of their median.
pub const SPREADS: f64 = 3.0;

/// The CPU loop: `steps` dependent multiply–rotate–xor steps.
#[inline(never)]
pub fn cpu_loop(steps: u64) -> u64 {
    let mut x = black_box(0x9E37_79B9_7F4A_7C15u64);
    for i in 0..steps {
        x = (x.wrapping_mul(0xBF58_476D_1CE4_E5B9).rotate_left(17)) ^ i;
    }
    x
}

/// The memory loop: `steps` loads, each address the value of the last.
#[inline(never)]
pub fn mem_loop(table: &[u32], steps: u64) -> u32 {
    let mut i = 0u32;
    for _ in 0..steps {
        i = table[i as usize];
    }
    i
}

/// A cyclic permutation of `0..n` (`n` a power of two): `t[i] = (a·i + c) mod n`
/// with `c` odd and `a ≡ 1 (mod 4)`, a full-period linear congruential map
/// (Hull–Dobell), so following `t[i]` from any start visits every index once
/// before it returns, in jumps no prefetcher follows; `seed` picks `a` and `c`.
pub fn cycle(n: usize, seed: u64) -> Vec<u32> {
    assert!(n.is_power_of_two() && n <= 1 << 32, "cycle: n = {n}");
    let mask = n as u64 - 1;
    // Knuth's MMIX multiplier (≡ 1 mod 4); the seed changes bits above the lowest two.
    let a = 6_364_136_223_846_793_005u64 ^ (seed << 2);
    let c = (seed >> 1) | 1;
    (0..n as u64)
        .map(|i| (a.wrapping_mul(i).wrapping_add(c) & mask) as u32)
        .collect()
}

/// The workload, ready to sample: the permutation built.
pub struct Probe {
    table: Vec<u32>,
    start: Instant,
}

impl Default for Probe {
    fn default() -> Probe {
        Probe::new()
    }
}

impl Probe {
    /// Builds the permutation and runs both loops once; `at` of
    /// later samples counts from here.
    pub fn new() -> Probe {
        // Building the table writes every page, so no sample pays a page fault.
        let table = cycle(MEM_WORDS, MEM_SEED);
        black_box(mem_loop(&table, MEM_STEPS));
        black_box(cpu_loop(CPU_STEPS));
        Probe {
            table,
            start: Instant::now(),
        }
    }

    pub fn sample(&mut self, round: usize, case: Option<&str>) -> Sample {
        let t0 = Instant::now();
        black_box(cpu_loop(black_box(CPU_STEPS)));
        let t1 = Instant::now();
        black_box(mem_loop(black_box(&self.table), black_box(MEM_STEPS)));
        let t2 = Instant::now();
        Sample {
            round,
            case: case.map(str::to_string),
            at_s: t0.duration_since(self.start).as_secs_f64(),
            cpu_us: us(t1 - t0),
            mem_us: us(t2 - t1),
        }
    }
}

fn us(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e3
}

/// One timing of both loops.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The round it was taken in (1-based).
    pub round: usize,
    /// The HTTP case it preceded (`format/count`), if any.
    pub case: Option<String>,
    /// Seconds since the writer started sampling.
    pub at_s: f64,
    pub cpu_us: f64,
    pub mem_us: f64,
}

pub const KEY: &str = "calibration";

impl Sample {
    /// The raw-file line, after `prefix` (`""` in `codec.txt`, `"# "` in CSV files), with a newline.
    pub fn line(&self, prefix: &str) -> String {
        let case = self.case.as_ref().map(|c| format!(" case={c}")).unwrap_or_default();
        format!(
            "{prefix}{KEY}: round={}{case} at={:.3} cpu_us={:.1} mem_us={:.1}\n",
            self.round, self.at_s, self.cpu_us, self.mem_us
        )
    }
}

/// Parses a calibration line (with or without the `# ` of CSV comments);
/// `None` when the line is not one, `Some(Err)` when it is one but malformed.
pub fn parse_line(line: &str) -> Option<Result<Sample, String>> {
    let body = line.trim().trim_start_matches('#').trim_start();
    let rest = body.strip_prefix(KEY)?.strip_prefix(':')?;
    Some(parse_fields(rest))
}

fn parse_fields(rest: &str) -> Result<Sample, String> {
    let (mut round, mut case, mut at, mut cpu, mut mem) = (None, None, None, None, None);
    for field in rest.split_whitespace() {
        let Some((k, v)) = field.split_once('=') else {
            return Err(format!("calibration: expected key=value, found {field:?}"));
        };
        let num = |v: &str| {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| format!("calibration: {k}: expected a number ≥ 0, found {v:?}"))
        };
        match k {
            "round" => {
                round = Some(
                    v.parse::<usize>()
                        .map_err(|_| format!("calibration: round: expected a whole number, found {v:?}"))?,
                )
            }
            "case" => case = Some(v.to_string()),
            "at" => at = Some(num(v)?),
            "cpu_us" => cpu = Some(num(v)?),
            "mem_us" => mem = Some(num(v)?),
            _ => return Err(format!("calibration: unknown key {k:?}")),
        }
    }
    let need = |x: Option<f64>, k: &str| x.ok_or_else(|| format!("calibration: missing {k}="));
    Ok(Sample {
        round: round.ok_or("calibration: missing round=")?,
        case,
        at_s: need(at, "at")?,
        cpu_us: need(cpu, "cpu_us")?,
        mem_us: need(mem, "mem_us")?,
    })
}

/// Every calibration line of a raw file's text; errors name the line (1-based).
pub fn read_all(text: &str) -> Result<Vec<Sample>, (usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| Some(parse_line(line)?.map_err(|e| (i + 1, e))))
        .collect()
}

/// One file's calibration, summarised.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    pub samples: usize,
    pub cpu: MedianCi,
    pub mem: MedianCi,
    /// Each loop's limit: the larger of [`DISTURBED_SLOWER`] and
    /// [`SPREADS`] robust standard deviations of its samples (a fraction).
    pub cpu_limit: f64,
    pub mem_limit: f64,
    /// Samples slower than the median by more than the loop's limit on
    /// either loop.
    pub slow_samples: usize,
    /// Their rounds, ascending, each once.
    pub disturbed_rounds: Vec<usize>,
    /// The slowest sample's excess over the median, as a fraction (either loop).
    pub worst: f64,
}

/// Summarises `samples` (None when there are none).
pub fn assess(samples: &[Sample]) -> Option<Assessment> {
    let cpu_v: Vec<f64> = samples.iter().map(|s| s.cpu_us).collect();
    let mem_v: Vec<f64> = samples.iter().map(|s| s.mem_us).collect();
    let cpu = sig::median_ci(&cpu_v, sig::CONFIDENCE)?;
    let mem = sig::median_ci(&mem_v, sig::CONFIDENCE)?;
    let cpu_limit = limit(&cpu_v, cpu.median);
    let mem_limit = limit(&mem_v, mem.median);
    let excess = |v: f64, median: f64| if median > 0.0 { v / median - 1.0 } else { 0.0 };
    let slow: Vec<&Sample> = samples
        .iter()
        .filter(|s| excess(s.cpu_us, cpu.median) > cpu_limit || excess(s.mem_us, mem.median) > mem_limit)
        .collect();
    let mut rounds: Vec<usize> = slow.iter().map(|s| s.round).collect();
    rounds.sort_unstable();
    rounds.dedup();
    Some(Assessment {
        samples: samples.len(),
        cpu,
        mem,
        cpu_limit,
        mem_limit,
        slow_samples: slow.len(),
        disturbed_rounds: rounds,
        worst: samples
            .iter()
            .map(|s| excess(s.cpu_us, cpu.median).max(excess(s.mem_us, mem.median)))
            .fold(0.0, f64::max),
    })
}

/// A loop's limit: [`DISTURBED_SLOWER`], or [`SPREADS`] robust standard
/// deviations of `values` as a fraction of `median`, whichever is larger.
fn limit(values: &[f64], median: f64) -> f64 {
    if median <= 0.0 {
        return DISTURBED_SLOWER;
    }
    let deviations: Vec<f64> = values.iter().map(|v| (v - median).abs()).collect();
    let mad = crate::measure::stats::median(&deviations).unwrap_or(0.0);
    DISTURBED_SLOWER.max(SPREADS * 1.4826 * mad / median)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(round: usize, cpu: f64, mem: f64) -> Sample {
        Sample {
            round,
            case: None,
            at_s: round as f64,
            cpu_us: cpu,
            mem_us: mem,
        }
    }

    #[test]
    fn lines_round_trip_in_both_forms() {
        let a = Sample {
            round: 3,
            case: Some("json/1000".into()),
            at_s: 12.345,
            cpu_us: 1503.2,
            mem_us: 812.7,
        };
        assert_eq!(
            a.line("# "),
            "# calibration: round=3 case=json/1000 at=12.345 cpu_us=1503.2 mem_us=812.7\n"
        );
        assert_eq!(parse_line(&a.line("# ")), Some(Ok(a.clone())));
        let b = Sample { case: None, ..a };
        assert_eq!(
            b.line(""),
            "calibration: round=3 at=12.345 cpu_us=1503.2 mem_us=812.7\n"
        );
        assert_eq!(parse_line(&b.line("")), Some(Ok(b)));
    }

    #[test]
    fn other_lines_are_not_calibration_and_bad_ones_say_why() {
        for line in [
            "# run: x",
            "benchtime: 100ms",
            "BenchmarkEncode/json/1-2 1 2 ns/op",
            "calibrationx: 1",
        ] {
            assert_eq!(parse_line(line), None, "{line}");
        }
        for (line, want) in [
            ("calibration: round=1 at=1 cpu_us=2", "missing mem_us="),
            (
                "calibration: round=x at=1 cpu_us=2 mem_us=3",
                "round: expected a whole number",
            ),
            (
                "calibration: round=1 at=1 cpu_us=-2 mem_us=3",
                "cpu_us: expected a number",
            ),
            (
                "calibration: round=1 at=1 cpu_us=2 mem_us=3 speed=4",
                "unknown key \"speed\"",
            ),
            ("# calibration: round=1 at", "expected key=value"),
        ] {
            let e = parse_line(line).expect("a calibration line").unwrap_err();
            assert!(e.contains(want), "{line}: {e}");
        }
        let text = "goos: linux\ncalibration: round=1 at=0 cpu_us=1 mem_us=1\ncalibration: round=2\n";
        assert_eq!(read_all(text).unwrap_err().0, 3);
        assert_eq!(
            read_all(&text[..text.rfind("calibration: round=2").unwrap()])
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn the_memory_permutation_is_one_cycle_and_fixed() {
        let t = cycle(1024, MEM_SEED);
        let (mut i, mut seen) = (0u32, vec![false; 1024]);
        for _ in 0..1024 {
            assert!(!seen[i as usize], "index {i} visited twice");
            seen[i as usize] = true;
            i = t[i as usize];
        }
        assert_eq!(i, 0);
        assert_eq!(cycle(1024, MEM_SEED), t);
        assert_ne!(cycle(1024, MEM_SEED + 1), t);
        assert_eq!(mem_loop(&t, 1024), 0);
        assert_ne!(mem_loop(&t, 1023), 0);
        // The CPU loop is a fixed function of its step count.
        assert_eq!(cpu_loop(1000), cpu_loop(1000));
        assert_ne!(cpu_loop(1000), cpu_loop(1001));
    }

    #[test]
    fn a_real_probe_times_both_loops() {
        let mut p = Probe::new();
        let a = p.sample(1, Some("json/1"));
        let b = p.sample(2, None);
        assert!(a.cpu_us > 0.0 && a.mem_us > 0.0, "{a:?}");
        assert!(b.at_s >= a.at_s);
        assert_eq!((a.round, a.case.as_deref()), (1, Some("json/1")));
    }

    #[test]
    fn assess_marks_the_slow_rounds_only() {
        let mut v: Vec<Sample> = (1..=20).map(|r| s(r, 1000.0 + r as f64, 500.0)).collect();
        let quiet = assess(&v).unwrap();
        assert_eq!((quiet.slow_samples, quiet.disturbed_rounds.len()), (0, 0));
        assert!(quiet.worst < DISTURBED_SLOWER);
        // Round 7 ran the CPU loop 10% slow, round 12 the memory loop 8%.
        v[6].cpu_us *= 1.10;
        v[11].mem_us *= 1.08;
        v.push(s(12, 1000.0, 540.0));
        let a = assess(&v).unwrap();
        assert_eq!(a.slow_samples, 3);
        assert_eq!(a.disturbed_rounds, [7, 12]);
        assert!((a.worst - 0.10).abs() < 0.01, "{}", a.worst);
        assert_eq!((a.cpu_limit, a.mem_limit), (DISTURBED_SLOWER, DISTURBED_SLOWER));
        assert!(assess(&[]).is_none());
    }

    /// A loop that spreads widely on its own (here ±12% around 3,000 µs)
    /// gets a limit of three robust standard deviations: only the sample far
    /// beyond that spread marks its round, the ordinary ones do not.
    #[test]
    fn a_widely_spread_loop_flags_only_its_outliers() {
        let spread = [0.88, 0.94, 1.0, 1.06, 1.12];
        let mut v: Vec<Sample> = (1..=20).map(|r| s(r, 1000.0, 3000.0 * spread[r % 5])).collect();
        let a = assess(&v).unwrap();
        assert!(a.mem_limit > 0.15 && a.mem_limit < 0.30, "{}", a.mem_limit);
        assert_eq!(a.cpu_limit, DISTURBED_SLOWER);
        assert_eq!(a.slow_samples, 0, "the spread alone disturbs nothing");
        v[8].mem_us = 3000.0 * 1.6;
        let b = assess(&v).unwrap();
        assert_eq!(b.disturbed_rounds, [9]);
        // The same 12% swings judged by the fixed 5% alone would mark rounds:
        // the self-test that the limit is what keeps them quiet.
        let fixed = v
            .iter()
            .filter(|x| x.mem_us / b.mem.median - 1.0 > DISTURBED_SLOWER)
            .count();
        assert!(fixed >= 4, "{fixed}");
    }
}
