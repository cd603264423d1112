//! Which fields of a record (a JSON object, a MessagePack map) have been
//! read: the bookkeeping every keyed record loop shares.
//!
//! A record's fields are numbered by their position in its field table (the
//! order of docs/SPEC.md, "Field order"), so a set of them is a `u32` bit mask. A key read twice is a
//! `DuplicateField` at the second key; after the last key, the first
//! required field (in table order) never read is a `MissingField` at the
//! offset the format chooses (the map's marker, the object's `}`).

use super::{DecodeError, ErrorKind};

/// The fields of one record read so far (bit `i` = field `i` of its table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen(u32);

impl Seen {
    /// The first `n` fields (read in table order before any key was out of place).
    #[inline(always)]
    pub fn first(n: usize) -> Seen {
        Seen(all(n))
    }

    /// Marks field `i`, whose key starts at `key_at`; reading it a second
    /// time is `DuplicateField` named `name()`.
    #[inline(always)]
    pub fn mark(&mut self, i: usize, key_at: usize, name: impl FnOnce() -> &'static str) -> Result<(), DecodeError> {
        let bit = 1u32 << i;
        if self.0 & bit != 0 {
            return Err(duplicate(key_at, name()));
        }
        self.0 |= bit;
        Ok(())
    }

    /// Checks that every field in `required` was read; otherwise
    /// `MissingField` at `at` for the first one missing, named by `name(i)`.
    #[inline(always)]
    pub fn check(self, required: u32, at: usize, name: impl FnOnce(usize) -> &'static str) -> Result<(), DecodeError> {
        let missing = required & !self.0;
        if missing == 0 {
            return Ok(());
        }
        let field = name(missing.trailing_zeros() as usize);
        Err(DecodeError::new(at, ErrorKind::MissingField { field }))
    }
}

/// The mask of fields `0..n` (`n` ≤ 32).
#[inline(always)]
pub const fn all(n: usize) -> u32 {
    if n >= 32 { u32::MAX } else { (1u32 << n) - 1 }
}

#[cold]
fn duplicate(at: usize, field: &'static str) -> DecodeError {
    DecodeError::new(at, ErrorKind::DuplicateField { field })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 4] = ["a", "b", "c", "d"];

    #[test]
    fn duplicates_are_errors_at_the_second_key() {
        let mut seen = Seen::first(1);
        seen.mark(2, 5, || NAMES[2]).unwrap();
        let e = seen.mark(2, 9, || NAMES[2]).unwrap_err();
        assert_eq!(e, DecodeError::new(9, ErrorKind::DuplicateField { field: "c" }));
        let e = seen.mark(0, 11, || NAMES[0]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::DuplicateField { field: "a" });
    }

    #[test]
    fn the_first_missing_required_field_is_named() {
        let mut seen = Seen::default();
        seen.mark(0, 0, || "a").unwrap();
        seen.mark(3, 0, || "d").unwrap();
        let e = seen.check(all(4), 7, |i| NAMES[i]).unwrap_err();
        assert_eq!(e, DecodeError::new(7, ErrorKind::MissingField { field: "b" }));
        // Fields 1 and 2 optional: nothing missing.
        assert!(seen.check(all(4) & !0b0110, 7, |i| NAMES[i]).is_ok());
        assert!(Seen::first(4).check(all(4), 0, |i| NAMES[i]).is_ok());
        assert_eq!(all(0), 0);
        assert_eq!(all(32), u32::MAX);
    }
}
