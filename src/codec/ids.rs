//! The duplicate-id check every decoder runs, without hashing in the common
//! case: while product ids come in strictly increasing order (as every
//! catalog this crate writes has them) no id can repeat, so a comparison with
//! the previous id is the whole check. The first id out of order builds a
//! hash set of the ids accepted so far and every later id is checked
//! against it, so any order is still checked exactly.
//!
//! Hashing every id with std's SipHash is a visible share of a decode's
//! instructions under callgrind; the comparison is not.

use std::collections::HashSet;

/// Ids seen so far; see the module docs.
#[derive(Debug, Default)]
pub struct UniqueIds {
    last: Option<i64>,
    seen: Option<HashSet<i64>>,
}

impl UniqueIds {
    /// An empty check; allocates nothing until the order first breaks.
    pub fn new() -> UniqueIds {
        UniqueIds::default()
    }

    /// Records `id`; false if it was seen before. `earlier` yields the ids
    /// accepted so far (all distinct): it is read once, the first time an id
    /// is not above the previous one, and its length bounds the set's
    /// allocation. The set also has room for `room()` more ids, so a caller
    /// that bounds how many can still come (the rest of the payload over
    /// the smallest product) never grows it.
    #[inline]
    pub fn insert<I: ExactSizeIterator<Item = i64>>(
        &mut self,
        id: i64,
        earlier: impl FnOnce() -> I,
        room: impl FnOnce() -> usize,
    ) -> bool {
        match (&mut self.seen, self.last) {
            (None, None) => {
                self.last = Some(id);
                true
            }
            (None, Some(last)) if id > last => {
                self.last = Some(id);
                true
            }
            (None, Some(_)) => self.out_of_order(id, earlier(), room()),
            (Some(seen), _) => seen.insert(id),
        }
    }

    #[cold]
    fn out_of_order(&mut self, id: i64, earlier: impl ExactSizeIterator<Item = i64>, room: usize) -> bool {
        let mut seen = HashSet::with_capacity(earlier.len().saturating_add(room).saturating_add(1));
        seen.extend(earlier);
        let fresh = seen.insert(id);
        self.seen = Some(seen);
        fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same verdicts as a plain hash set, for every order.
    fn check(ids: &[i64]) {
        let mut fast = UniqueIds::new();
        let mut plain = HashSet::new();
        let mut accepted: Vec<i64> = Vec::new();
        for &id in ids {
            let want = plain.insert(id);
            let got = fast.insert(id, || accepted.iter().copied(), || 0);
            assert_eq!(got, want, "{ids:?} at {id}");
            if !want {
                return; // a decoder stops at the first duplicate
            }
            accepted.push(id);
        }
    }

    #[test]
    fn agrees_with_a_hash_set() {
        check(&[]);
        check(&[1, 2, 3, 4]);
        check(&[1, 2, 2]);
        check(&[5, 3, 5]);
        check(&[5, 3, 4, 9, 1]);
        check(&[1, 2, 3, 1]);
        check(&[i64::MIN, -1, 0, i64::MAX, i64::MIN]);
        check(&[3, 3]);
        let mut rng = crate::prng::Rng::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..200 {
            check(&(0..20).map(|_| rng.below(30) as i64).collect::<Vec<_>>());
        }
    }

    #[test]
    fn sorted_ids_allocate_no_set() {
        let mut ids = UniqueIds::new();
        for id in 1..=1000 {
            assert!(ids.insert(id, std::iter::empty, || 0));
        }
        assert!(ids.seen.is_none());
    }
}
