//! The `Date` header value: IMF-fixdate (RFC 9110 §5.6.7), e.g.
//! `Sun, 06 Nov 1994 08:49:37 GMT`, always 29 bytes.
//!
//! [`DateCache`] is owned by one worker (no lock) and formats at most once per
//! wall-clock second. [`DateCache::at`] takes a monotonic [`Instant`] the
//! caller already read: the cache knows when its second ends and reads the
//! wall clock only then, so a request costs no clock read of its own; a wall
//! clock set backwards or forwards shows within a second. The calendar is H.
//! Hinnant's proleptic-Gregorian "civil from days", integer arithmetic only.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Length of an IMF-fixdate.
pub const LEN: usize = 29;

const DAYS: [&[u8; 3]; 7] = [b"Thu", b"Fri", b"Sat", b"Sun", b"Mon", b"Tue", b"Wed"];
const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// A per-worker cache of the formatted current second.
#[derive(Debug, Clone)]
pub struct DateCache {
    secs: u64,
    bytes: [u8; LEN],
    /// When (on the monotonic clock) the cached second ends.
    until: Instant,
}

impl Default for DateCache {
    fn default() -> Self {
        DateCache::new()
    }
}

impl DateCache {
    pub fn new() -> DateCache {
        let mut cache = DateCache {
            secs: u64::MAX, // no second yet: the refresh formats
            bytes: [0; LEN],
            until: Instant::now(),
        };
        cache.refresh();
        cache
    }

    /// The IMF-fixdate of the current second (reads the clock).
    pub fn get(&mut self) -> &[u8; LEN] {
        self.at(Instant::now())
    }

    /// The IMF-fixdate of the second `now` falls in, `now` being a recent
    /// reading of the monotonic clock: the wall clock is read and the date
    /// reformatted only once the cached second has ended.
    pub fn at(&mut self, now: Instant) -> &[u8; LEN] {
        if now >= self.until {
            self.refresh();
        }
        &self.bytes
    }

    fn refresh(&mut self) {
        let mono = Instant::now();
        let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let secs = wall.as_secs();
        if secs != self.secs {
            self.secs = secs;
            self.bytes = format(secs);
        }
        self.until = mono + (Duration::from_secs(1) - Duration::from_nanos(u64::from(wall.subsec_nanos())));
    }
}

#[cfg(test)]
fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Formats seconds since the Unix epoch as an IMF-fixdate.
pub fn format(secs: u64) -> [u8; LEN] {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (hour, min, sec) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let (year, month, day) = civil_from_days(days);
    let mut out = [0u8; LEN];
    out[0..3].copy_from_slice(DAYS[(days % 7) as usize]); // 1970-01-01 was a Thursday
    out[3..5].copy_from_slice(b", ");
    two(&mut out[5..7], day);
    out[7] = b' ';
    out[8..11].copy_from_slice(MONTHS[(month - 1) as usize]);
    out[11] = b' ';
    let y = year % 10_000; // four digits until the year 9999
    two(&mut out[12..14], y / 100);
    two(&mut out[14..16], y % 100);
    out[16] = b' ';
    two(&mut out[17..19], hour);
    out[19] = b':';
    two(&mut out[20..22], min);
    out[22] = b':';
    two(&mut out[23..25], sec);
    out[25..29].copy_from_slice(b" GMT");
    out
}

fn two(out: &mut [u8], v: u64) {
    out[0] = b'0' + (v / 10 % 10) as u8;
    out[1] = b'0' + (v % 10) as u8;
}

/// (year, month 1..=12, day 1..=31) of a day count since 1970-01-01.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z / 146_097;
    let doe = z - era * 146_097; // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March = 0
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(secs: u64, expected: &str) {
        assert_eq!(std::str::from_utf8(&format(secs)).unwrap(), expected, "secs {secs}");
    }

    #[test]
    fn known_dates() {
        check(0, "Thu, 01 Jan 1970 00:00:00 GMT");
        check(784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"); // RFC 9110's example
        check(951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"); // leap day of a /400 year
        check(1_709_251_199, "Thu, 29 Feb 2024 23:59:59 GMT");
        check(4_102_444_800, "Fri, 01 Jan 2100 00:00:00 GMT"); // 2100 is not a leap year
        check(4_107_542_399, "Sun, 28 Feb 2100 23:59:59 GMT");
    }

    #[test]
    fn cache_ends_its_second_within_a_second() {
        // Bracketed by clock reads on both sides, so a thread descheduled
        // anywhere in between still holds every bound.
        let (before, t0) = (now_secs(), Instant::now());
        let mut c = DateCache::new();
        let (t1, after) = (Instant::now(), now_secs());
        assert!(c.until > t0, "the cached second ends after the cache was made");
        assert!(
            c.until <= t1 + Duration::from_secs(1),
            "the cached second ends within a second"
        );
        assert!((before..=after).contains(&c.secs), "{before} <= {} <= {after}", c.secs);
        // An instant inside the cached second keeps the cached date.
        let secs = c.secs;
        assert_eq!(*c.at(t0.min(c.until)), format(secs));
        assert_eq!(c.secs, secs);
        // An instant past it refreshes from the real clocks: the poisoned
        // second is replaced by one the wall clock showed around the call.
        c.secs = 0;
        c.bytes = [0; LEN];
        let late = c.until + Duration::from_secs(2);
        let (before, t2) = (now_secs(), Instant::now());
        let bytes = *c.at(late);
        let (t3, after) = (Instant::now(), now_secs());
        assert!(
            (before..=after).contains(&c.secs),
            "refreshed: {before} <= {} <= {after}",
            c.secs
        );
        assert_eq!(bytes, format(c.secs));
        assert!(c.until > t2 && c.until <= t3 + Duration::from_secs(1));
        assert!(c.secs >= secs);
    }

    #[test]
    fn cache_keeps_its_second_until_it_ends() {
        // Self-test of the refresh check above: an instant before the end
        // leaves a poisoned cache as it is, so that check can fail.
        let mut c = DateCache::new();
        c.secs = 0;
        c.bytes = [0; LEN];
        let early = c.until - Duration::from_nanos(1);
        assert_eq!(*c.at(early), [0; LEN]);
        assert_eq!(c.secs, 0);
    }

    #[test]
    fn cache_matches_fresh_format() {
        let before = now_secs();
        let mut c = DateCache::new();
        let a = *c.get();
        let after = now_secs();
        // Some second the wall clock showed between the two reads.
        assert!(
            (before..=after).any(|s| a == format(s)),
            "{:?}",
            std::str::from_utf8(&a)
        );
    }
}
