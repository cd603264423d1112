//! Latency histogram: fixed log-linear buckets, bounded memory, ≤ 1% value error,
//! merged exactly by adding counts, and a plain-text form that survives a round trip.
//!
//! # Bucket layout
//!
//! Values are nanoseconds (`u64`). Values below [`LINEAR_LIMIT`] (256 ns) get one
//! bucket each, so they are exact. Above that every power of two `[2^e, 2^(e+1))`
//! is cut into [`SUB_BUCKETS`] (128) equal buckets, so a bucket is at most 1/128 of
//! its lower bound wide. Values at or above [`MAX_TRACKABLE`] (2^40 ns ≈ 18 min)
//! land in the last bucket; the exact maximum is kept separately. That gives
//! [`BUCKETS`] = 256 + 32 × 128 = 4,352 counters: 34 KiB per histogram whatever the
//! load, so one histogram per connection thread is affordable even at 1,000 threads.
//!
//! ```text
//! value (ns)        bucket [low, high)   width
//! 0..=255           [v, v+1)             1        exact
//! 256..=511         [256+2k, 258+2k)     2        128 buckets
//! 512..=1023        [512+4k, 516+4k)     4        128 buckets
//! 1_000_000 (1 ms)  [999_424, 1_003_520) 4,096    error ≤ 0.2% at the midpoint
//! ```
//!
//! # Reported values
//!
//! A quantile reports the *midpoint* of its bucket (clamped to the exact min and max):
//! within half a bucket width (≤ 1/256 ≈ 0.4%) of every value that fell in it.
//!
//! # Quantile definition (nearest rank)
//!
//! For `n` recorded values and `0 < q ≤ 1`, the rank is `r = ceil(q · n)` (at least
//! 1); the `q`-quantile is the `r`-th smallest value. `q = 0` gives the minimum.
//! No interpolation: every reported percentile is (the bucket of) a value that was
//! actually observed. With values 1..=100, p50 = 50, p99 = 99, p99.9 = 100.
//!
//! # Text form
//!
//! Comment lines start with `#` (free-form `key=value` metadata; `min_ns=` and
//! `max_ns=` are read back). Then one line per non-empty bucket, ascending:
//! `low_ns high_ns count` — `low` inclusive, `high` exclusive. [`Histogram::read_text`]
//! checks that every line names a bucket of this exact layout, so merging files
//! (several rounds, several client machines) is exact: add the counts.

use std::io::{self, Write};

/// Values below this get a bucket of width 1 (exact).
pub const LINEAR_LIMIT: u64 = 256;
/// Buckets per power of two above [`LINEAR_LIMIT`].
pub const SUB_BUCKETS: u64 = 128;
/// log2 of [`LINEAR_LIMIT`].
const LINEAR_BITS: u32 = 8;
/// log2 of [`MAX_TRACKABLE`].
const MAX_BITS: u32 = 40;
/// Values at or above this (2^40 ns ≈ 18.3 minutes) are counted in the last bucket.
pub const MAX_TRACKABLE: u64 = 1 << MAX_BITS;
/// Number of counters in every histogram.
pub const BUCKETS: usize = (LINEAR_LIMIT + (MAX_BITS - LINEAR_BITS) as u64 * SUB_BUCKETS) as usize;

/// Index of the bucket holding `v`.
fn index_of(v: u64) -> usize {
    if v < LINEAR_LIMIT {
        return v as usize;
    }
    let v = v.min(MAX_TRACKABLE - 1);
    let e = 63 - v.leading_zeros(); // 2^e <= v < 2^(e+1), e in 8..40
    let shift = e - 7; // width of a sub-bucket is 2^(e-7) = 2^e / 128
    let sub = (v >> shift) - SUB_BUCKETS; // 0..128
    (LINEAR_LIMIT + u64::from(e - LINEAR_BITS) * SUB_BUCKETS + sub) as usize
}

/// `[low, high)` of bucket `i`.
fn bounds_of(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < LINEAR_LIMIT {
        return (i, i + 1);
    }
    let j = i - LINEAR_LIMIT;
    let e = (j / SUB_BUCKETS) as u32 + LINEAR_BITS;
    let sub = j % SUB_BUCKETS + SUB_BUCKETS;
    let shift = e - 7;
    (sub << shift, (sub + 1) << shift)
}

/// A log-linear latency histogram in nanoseconds. See the module doc.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    counts: Vec<u64>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

impl Histogram {
    /// An empty histogram (allocates its [`BUCKETS`] counters once).
    pub fn new() -> Histogram {
        Histogram {
            counts: vec![0; BUCKETS],
            count: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    /// Counts one value, in nanoseconds.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.counts[index_of(ns)] += 1;
        self.count += 1;
        self.sum += u128::from(ns);
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    /// Counts `n` occurrences of one value (reading other histograms' counts).
    /// Totals saturate instead of overflowing.
    pub fn record_n(&mut self, ns: u64, n: u64) {
        if n == 0 {
            return;
        }
        let c = &mut self.counts[index_of(ns)];
        *c = c.saturating_add(n);
        self.count = self.count.saturating_add(n);
        self.sum = self.sum.saturating_add(u128::from(ns) * u128::from(n));
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    /// Adds every count of `other`: the exact histogram of both sets of values.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Exact largest recorded value (0 when empty).
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Exact smallest recorded value (0 when empty).
    pub fn min(&self) -> u64 {
        if self.count == 0 { 0 } else { self.min }
    }

    /// Exact mean (0 when empty). Only exact for histograms built by `record`;
    /// one read from text uses bucket midpoints.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// Nearest-rank quantile (see the module doc), `q` in `0.0..=1.0`; 0 when empty.
    /// Reports the bucket midpoint clamped to the exact min and max.
    pub fn value_at_quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let q = if q.is_nan() { 0.0 } else { q.clamp(0.0, 1.0) };
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (low, high) = bounds_of(i);
                let mid = low + (high - low - 1) / 2;
                return mid.clamp(self.min(), self.max);
            }
        }
        self.max
    }

    /// Non-empty buckets as `(low_ns, high_ns, count)`, ascending.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.counts.iter().enumerate().filter(|(_, c)| **c > 0).map(|(i, &c)| {
            let (low, high) = bounds_of(i);
            (low, high, c)
        })
    }

    /// Writes the text form (module doc): `# samples=`, `# min_ns=`, `# max_ns=`,
    /// `# mean_ns=`, then `low_ns high_ns count` lines. Callers write their own
    /// `#` metadata lines first.
    pub fn write_text(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(out, "# buckets: low_ns (inclusive) high_ns (exclusive) count")?;
        writeln!(out, "# samples={}", self.count)?;
        writeln!(out, "# min_ns={}", self.min())?;
        writeln!(out, "# max_ns={}", self.max)?;
        writeln!(out, "# mean_ns={:.0}", self.mean())?;
        for (low, high, c) in self.buckets() {
            writeln!(out, "{low} {high} {c}")?;
        }
        Ok(())
    }

    /// Parses the text form. Every bucket line must match this layout exactly;
    /// an error names the 1-based line and what was wrong. Without
    /// `min_ns`/`max_ns` comments the min and max are taken from the outermost
    /// non-empty buckets.
    pub fn read_text(text: &str) -> Result<Histogram, TextError> {
        let mut h = Histogram::new();
        let (mut min, mut max) = (None, None);
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            let err = |message: String| TextError { line: n + 1, message };
            if line.is_empty() {
                continue;
            }
            let num = |s: &str, what: &str| {
                s.parse::<u64>()
                    .map_err(|_| err(format!("{what}: expected a number, found {s:?}")))
            };
            if let Some(comment) = line.strip_prefix('#') {
                for kv in comment.split_whitespace() {
                    if let Some(v) = kv.strip_prefix("min_ns=") {
                        min = Some(num(v, "min_ns")?);
                    } else if let Some(v) = kv.strip_prefix("max_ns=") {
                        max = Some(num(v, "max_ns")?);
                    }
                }
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [low, high, count] = fields[..] else {
                return Err(err(format!("expected `low_ns high_ns count`, found {line:?}")));
            };
            let (low, high, count) = (num(low, "low_ns")?, num(high, "high_ns")?, num(count, "count")?);
            let i = index_of(low);
            if bounds_of(i) != (low, high) || low >= MAX_TRACKABLE {
                let (l, h) = bounds_of(i);
                return Err(err(format!(
                    "[{low}, {high}) is not a bucket of this layout (expected [{l}, {h}))"
                )));
            }
            h.counts[i] = h.counts[i]
                .checked_add(count)
                .ok_or_else(|| err("count overflows".to_string()))?;
            h.count = h
                .count
                .checked_add(count)
                .ok_or_else(|| err("total count overflows".to_string()))?;
            let mid = low + (high - low - 1) / 2;
            h.sum += u128::from(mid) * u128::from(count);
        }
        let first = h.counts.iter().position(|&c| c > 0);
        let last = h.counts.iter().rposition(|&c| c > 0);
        if let (Some(f), Some(l)) = (first, last) {
            h.min = min.unwrap_or(bounds_of(f).0);
            h.max = max.unwrap_or(bounds_of(l).1 - 1);
        }
        Ok(h)
    }
}

/// Why a histogram's text form could not be read: the 1-based line and what
/// was wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for TextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_contiguous_and_consistent() {
        assert_eq!(BUCKETS, 4352);
        let mut expected_low = 0;
        for i in 0..BUCKETS {
            let (low, high) = bounds_of(i);
            assert_eq!(low, expected_low, "bucket {i}");
            assert!(high > low);
            assert_eq!(index_of(low), i);
            assert_eq!(index_of(high - 1), i);
            expected_low = high;
        }
        assert_eq!(expected_low, MAX_TRACKABLE);
        assert_eq!(index_of(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn bucket_examples_from_the_doc() {
        assert_eq!(bounds_of(index_of(255)), (255, 256));
        assert_eq!(bounds_of(index_of(257)), (256, 258));
        assert_eq!(bounds_of(index_of(1_000_000)), (999_424, 1_003_520));
    }
}
