//! Progress of long measurement runs: one line per case on stderr, with the
//! time elapsed and an estimate of what is left, so `make bench` can be
//! watched while its data goes to stdout and files.
//!
//! The estimate assumes the cases left take as long on average as the cases
//! done; the tools order their cases so that this holds roughly (every case
//! is time-boxed by `--duration` or `--benchtime`).

use std::time::{Duration, Instant};

/// Cases done out of a known total, with the time they took: the progress
/// prefix `[3/45 0:12 elapsed, ~2:48 left]`. The estimate assumes the cases
/// left take as long on average as the cases done.
pub struct Progress {
    total: usize,
    done: usize,
    start: Instant,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        Progress {
            total,
            done: 0,
            start: Instant::now(),
        }
    }

    /// Counts one case done and returns the prefix.
    pub fn step(&mut self) -> String {
        self.done += 1;
        let elapsed = self.start.elapsed();
        let left = elapsed.mul_f64(self.total.saturating_sub(self.done) as f64 / self.done as f64);
        progress_text(self.done, self.total, elapsed, left)
    }
}

/// `[done/total m:ss elapsed, ~m:ss left]`.
pub fn progress_text(done: usize, total: usize, elapsed: Duration, left: Duration) -> String {
    let mmss = |d: Duration| {
        let s = d.as_secs_f64().round() as u64;
        format!("{}:{:02}", s / 60, s % 60)
    };
    format!("[{done}/{total} {} elapsed, ~{} left]", mmss(elapsed), mmss(left))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_estimates_from_the_average_case() {
        assert_eq!(
            progress_text(3, 45, Duration::from_secs(12), Duration::from_secs(168)),
            "[3/45 0:12 elapsed, ~2:48 left]"
        );
        let mut p = Progress::new(2);
        assert!(p.step().starts_with("[1/2 0:00 elapsed"));
        assert!(p.step().ends_with("~0:00 left]"));
    }
}
