//! Progress of long measurement runs: one line per case on stderr, with the
//! time elapsed and an estimate of what is left — for this stage, and, under
//! `make bench`, for the whole run — so `make bench` can be watched while its
//! data goes to stdout and files.
//!
//! The stage estimate assumes the cases left take as long on average as the
//! cases done; the tools order their cases so that this holds roughly (every
//! case is time-boxed by `--duration` or `--benchtime`). The run estimate
//! adds the planned time of the stages after this one, which the Makefile
//! passes in [`RUN_AFTER_ENV`] (seconds) beside the run's start time in
//! [`RUN_START_ENV`] (Unix seconds); without both, only the stage is shown.
//! A child process that measures part of its parent's stage (`codec-bench
//! --processes`) continues the parent's count through [`STAGE_ENV`].

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Unix seconds when the run (`make bench`) started.
pub const RUN_START_ENV: &str = "WB_RUN_START";
/// Planned seconds of the run's stages after the current one.
pub const RUN_AFTER_ENV: &str = "WB_RUN_AFTER";
/// `DONE/TOTAL/SECONDS`: the parent's cases done before this process, the
/// stage's total, and the stage's seconds elapsed so far.
pub const STAGE_ENV: &str = "WB_PROGRESS_STAGE";

/// The whole run's clock: when it started, and what is planned after this stage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunClock {
    pub start_unix: u64,
    pub after: Duration,
}

impl RunClock {
    /// From `WB_RUN_START` and `WB_RUN_AFTER`; None unless both parse.
    pub fn from_env() -> Option<RunClock> {
        let get = |k: &str| std::env::var(k).ok()?.trim().parse::<u64>().ok();
        Some(RunClock {
            start_unix: get(RUN_START_ENV)?,
            after: Duration::from_secs(get(RUN_AFTER_ENV)?),
        })
    }
}

/// Where a child's count starts: `(done, total, elapsed)` of its parent's stage.
pub fn parse_stage(v: &str) -> Option<(usize, usize, Duration)> {
    let mut it = v.trim().split('/');
    let done = it.next()?.parse().ok()?;
    let total: usize = it.next()?.parse().ok()?;
    let secs: f64 = it.next()?.parse().ok()?;
    (it.next().is_none() && done <= total && secs.is_finite() && secs >= 0.0)
        .then(|| (done, total, Duration::from_secs_f64(secs)))
}

/// The [`STAGE_ENV`] value for a child that starts after `done` of `total`
/// cases, `elapsed` into the stage.
pub fn stage_value(done: usize, total: usize, elapsed: Duration) -> String {
    format!("{done}/{total}/{:.3}", elapsed.as_secs_f64())
}

/// Cases done out of a known total, with the time they took: the progress
/// prefix `[3/45 0:12 elapsed, ~2:48 left]`, and with a [`RunClock`]
/// `[3/45 0:12 elapsed, ~2:48 left; run 4:01 elapsed, ~7:30 left]`.
pub struct Progress {
    total: usize,
    done: usize,
    start: Instant,
    /// The stage's time before this process started (a child's parent).
    before: Duration,
    run: Option<RunClock>,
}

impl Progress {
    /// `total` cases, continuing a parent's stage from [`STAGE_ENV`] when it
    /// is set, with the run's clock from the environment ([`RunClock::from_env`]).
    pub fn new(total: usize) -> Progress {
        let stage = std::env::var(STAGE_ENV).ok().and_then(|v| parse_stage(&v));
        Progress::with(total, stage, RunClock::from_env())
    }

    /// As [`Progress::new`], with the parent's stage and the run's clock given.
    pub fn with(total: usize, stage: Option<(usize, usize, Duration)>, run: Option<RunClock>) -> Progress {
        let (done, total, before) = match stage {
            Some((done, parent_total, before)) => (done, parent_total.max(done + total), before),
            None => (0, total, Duration::ZERO),
        };
        Progress {
            total,
            done,
            start: Instant::now(),
            before,
            run,
        }
    }

    /// Counts one case done and returns the prefix.
    pub fn step(&mut self) -> String {
        self.done += 1;
        let elapsed = self.before + self.start.elapsed();
        let left = elapsed.mul_f64(self.total.saturating_sub(self.done) as f64 / self.done as f64);
        let run = self.run.map(|run| {
            let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
            (
                Duration::from_secs(now.saturating_sub(run.start_unix)),
                left + run.after,
            )
        });
        progress_text(self.done, self.total, elapsed, left, run)
    }
}

fn mmss(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

/// `[done/total m:ss elapsed, ~m:ss left]`, with the run's `(elapsed, left)`
/// as `[…; run m:ss elapsed, ~m:ss left]`.
pub fn progress_text(
    done: usize,
    total: usize,
    elapsed: Duration,
    left: Duration,
    run: Option<(Duration, Duration)>,
) -> String {
    let run = run.map_or(String::new(), |(e, l)| {
        format!("; run {} elapsed, ~{} left", mmss(e), mmss(l))
    });
    format!("[{done}/{total} {} elapsed, ~{} left{run}]", mmss(elapsed), mmss(left))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_estimates_from_the_average_case() {
        assert_eq!(
            progress_text(3, 45, Duration::from_secs(12), Duration::from_secs(168), None),
            "[3/45 0:12 elapsed, ~2:48 left]"
        );
        let mut p = Progress::with(2, None, None);
        assert!(p.step().starts_with("[1/2 0:00 elapsed"));
        assert!(p.step().ends_with("~0:00 left]"));
    }

    /// The run's part adds the planned stages after this one to the stage's
    /// own estimate; a child continues its parent's count and time.
    #[test]
    fn run_clock_and_parent_stage() {
        let s = |secs| Duration::from_secs(secs);
        assert_eq!(
            progress_text(3, 45, s(12), s(168), Some((s(70), s(468)))),
            "[3/45 0:12 elapsed, ~2:48 left; run 1:10 elapsed, ~7:48 left]"
        );
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
        let run = RunClock {
            start_unix: now - 60,
            after: Duration::from_secs(300),
        };
        // 5 of 20 done in 50 s by the parent: this child's first case is
        // 6/20 at 0:50, 14 left at 50/6 s each (1:57), 6:57 for the run.
        let mut p = Progress::with(5, Some((5, 20, Duration::from_secs(50))), Some(run));
        let s = p.step();
        assert!(s.starts_with("[6/20 0:50 elapsed, ~1:57 left; run 1:0"), "{s}");
        assert!(s.ends_with(", ~6:57 left]"), "{s}");
        assert_eq!(
            parse_stage(&stage_value(5, 20, Duration::from_millis(1500))),
            Some((5, 20, Duration::from_millis(1500)))
        );
        for bad in ["", "5/20", "21/20/1", "5/20/x", "5/20/1/2", "5/20/-1"] {
            assert_eq!(parse_stage(bad), None, "{bad:?}");
        }
    }
}
