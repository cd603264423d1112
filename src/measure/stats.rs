//! Summary statistics with one definition for the whole crate: the codec
//! benchmarks, the load generator and the report all call these.
//!
//! - **Median**: the middle value of the sorted runs; for an even number of
//!   runs, the mean of the two middle values.
//! - **Spread**: the median with the smallest and largest value beside it
//!   (never a standard deviation: a handful of rounds on a shared machine is
//!   not a normal sample, and min–max hides nothing).
//! - Percentiles of latency are not here: they come from the histogram
//!   ([`super::histogram`]), nearest rank, never interpolated.

/// Median of a slice (mean of the two middle values for an even length);
/// `None` when empty. NaN sorts last (`f64::total_cmp`).
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    })
}

/// Median of some runs with their min and max.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub n: usize,
}

impl Spread {
    /// `None` for an empty slice.
    pub fn of(values: &[f64]) -> Option<Spread> {
        Some(Spread {
            median: median(values)?,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            n: values.len(),
        })
    }
}

/// Available parallelism: the `-P` suffix of benchmark names and the core
/// count in `environment.json`.
pub fn procs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_spread() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        let s = Spread::of(&[5.0, 1.0, 9.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.n), (3.5, 1.0, 9.0, 4));
        assert_eq!(Spread::of(&[]), None);
    }
}
