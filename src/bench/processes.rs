//! `codec-bench --processes P`: one codec run's rounds spread over `P`
//! processes, run one after another, so that a state a process keeps for its
//! whole life (where the kernel placed its pages and its code, what the
//! allocator and the branch predictors settled into) is sampled `P` times
//! instead of once.
//!
//! Such a state can shift a group of rows for a whole process, which no
//! number of rounds inside it sees (docs/MEASUREMENT.md, "Several processes
//! per codec run"); across processes it becomes part of each row's spread.
//!
//! The parent starts each child as `codec-bench … --count c --scale-count s
//! --out - --env none --processes 1` with the same rows, benchtime and run
//! id ([`split`] shares the batches out), reads its standard output, and
//! [`merge`]s the children's result lines row by row in process order, so a
//! row's batch `j` is still the one measured in round `j` of the run; the
//! children's `calibration:` lines get the run's round numbers.

use crate::measure::calibration::{self, Sample};
use std::process::{Command, Stdio};

/// One child's share of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    /// Batches per row (`--count`) and per scaling row (`--scale-count`).
    pub count: usize,
    pub scale_count: usize,
    /// Rounds run by the children before this one.
    pub rounds_before: usize,
}

/// `count` and `scale_count` batches per row shared out over `processes`
/// (the first ones get one more when they do not divide); a process with no
/// batch of the full rows is left out, and every process runs at least one
/// batch of the scaling rows (`codec-bench` needs `--scale-count` ≥ 1).
pub fn split(count: usize, scale_count: usize, processes: usize) -> Vec<Share> {
    let p = processes.max(1);
    let share = |n: usize, i: usize| n / p + usize::from(i < n % p);
    let mut out = Vec::new();
    let mut before = 0;
    for i in 0..p {
        let (c, s) = (share(count, i), share(scale_count, i));
        if c == 0 && s == 0 {
            continue;
        }
        out.push(Share {
            count: c.max(1),
            scale_count: s.max(1).min(c.max(1)),
            rounds_before: before,
        });
        before += c.max(s);
    }
    out
}

/// The children's outputs, joined by [`merge`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Merged {
    /// Each row's name (`BenchmarkOp/format/count-P`) and result lines.
    pub rows: Vec<(String, Vec<String>)>,
    pub calibration: Vec<Sample>,
}

/// One child's output: its [`Share::rounds_before`], the seconds from the
/// parent's start to the child's, and its standard output.
pub type Output = (usize, f64, String);

/// The children's outputs joined: every result line grouped by its row (the
/// first token, `BenchmarkOp/format/count-P`), rows in first-seen order and
/// each row's lines in process order, and the calibration samples with
/// their rounds and seconds counted over the run.
pub fn merge(outputs: &[Output]) -> Result<Merged, String> {
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let mut samples = Vec::new();
    for (child, (before, offset, text)) in outputs.iter().enumerate() {
        for (i, line) in text.lines().enumerate() {
            if line.starts_with("Benchmark") {
                let name = line.split_whitespace().next().unwrap_or("").to_string();
                match rows.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, v)) => v.push(line.to_string()),
                    None => rows.push((name, vec![line.to_string()])),
                }
            } else if let Some(s) = calibration::parse_line(line) {
                let mut s = s.map_err(|e| format!("process {} line {}: {e}", child + 1, i + 1))?;
                s.round += before;
                s.at_s += offset;
                samples.push(s);
            }
        }
    }
    Ok(Merged {
        rows,
        calibration: samples,
    })
}

/// Runs `exe codec-bench ARGS` once per share, one after another, stderr
/// passed through; returns each child's [`Output`]. Each child continues
/// the stage's progress count (`crate::measure::progress::STAGE_ENV`), so its
/// estimate of what is left covers the children after it.
pub fn run_children(exe: &std::path::Path, args: &[String], shares: &[Share]) -> Result<Vec<Output>, String> {
    use crate::measure::progress;
    let start = std::time::Instant::now();
    let total_rounds = shares
        .last()
        .map_or(0, |s| s.rounds_before + s.count.max(s.scale_count));
    let mut out = Vec::new();
    for (i, s) in shares.iter().enumerate() {
        eprintln!(
            "codec-bench: process {} of {}: {} rounds",
            i + 1,
            shares.len(),
            s.count.max(s.scale_count)
        );
        let offset = start.elapsed().as_secs_f64();
        let child = Command::new(exe)
            .arg("codec-bench")
            .args(args)
            .args([
                "--count",
                &s.count.to_string(),
                "--scale-count",
                &s.scale_count.to_string(),
            ])
            .args(["--out", "-", "--env", "none", "--processes", "1"])
            .env(
                progress::STAGE_ENV,
                progress::stage_value(s.rounds_before, total_rounds, start.elapsed()),
            )
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| format!("codec-bench: starting {}: {e}", exe.display()))?;
        if !child.status.success() {
            return Err(format!(
                "codec-bench: process {} of {} failed: {}",
                i + 1,
                shares.len(),
                child.status
            ));
        }
        let text = String::from_utf8(child.stdout)
            .map_err(|_| format!("codec-bench: process {}: output is not UTF-8", i + 1))?;
        out.push((s.rounds_before, offset, text));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_shares_every_batch_once_and_counts_rounds() {
        let s = split(20, 20, 4);
        assert_eq!(s.iter().map(|x| x.count).sum::<usize>(), 20);
        assert_eq!(s.iter().map(|x| x.rounds_before).collect::<Vec<_>>(), [0, 5, 10, 15]);
        let s = split(10, 3, 4);
        assert_eq!(s.iter().map(|x| x.count).collect::<Vec<_>>(), [3, 3, 2, 2]);
        assert_eq!(s.iter().map(|x| x.scale_count).collect::<Vec<_>>(), [1, 1, 1, 1]);
        assert_eq!(s.iter().map(|x| x.rounds_before).collect::<Vec<_>>(), [0, 3, 6, 8]);
        // More processes than batches: the empty ones are left out.
        assert_eq!(split(2, 2, 5).len(), 2);
        assert_eq!(
            split(5, 3, 1),
            [Share {
                count: 5,
                scale_count: 3,
                rounds_before: 0
            }]
        );
    }

    #[test]
    fn merge_groups_rows_in_process_order_and_renumbers_rounds() {
        let a = "goos: linux\nBenchmarkEncode/json/1-2\t10\t5 ns/op\nBenchmarkDecode/json/1-2\t10\t7 ns/op\n\
                 calibration: round=1 at=0.1 cpu_us=10.0 mem_us=5.0\nend: x\n";
        let b = "goos: linux\nBenchmarkEncode/json/1-2\t12\t6 ns/op\nBenchmarkDecode/json/1-2\t12\t8 ns/op\n\
                 calibration: round=2 at=0.2 cpu_us=11.0 mem_us=5.5\n";
        let Merged { rows, calibration: cal } = merge(&[(0, 0.0, a.into()), (3, 10.0, b.into())]).unwrap();
        let names: Vec<&str> = rows.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["BenchmarkEncode/json/1-2", "BenchmarkDecode/json/1-2"]);
        assert_eq!(
            rows[0].1,
            [
                "BenchmarkEncode/json/1-2\t10\t5 ns/op",
                "BenchmarkEncode/json/1-2\t12\t6 ns/op"
            ]
        );
        assert_eq!(cal.iter().map(|s| s.round).collect::<Vec<_>>(), [1, 5]);
        assert_eq!(cal.iter().map(|s| s.at_s).collect::<Vec<_>>(), [0.1, 10.2]);
        let bad = merge(&[(0, 0.0, "calibration: round=1\n".into())]).unwrap_err();
        assert!(bad.starts_with("process 1 line 1: calibration: missing"), "{bad}");
    }
}
