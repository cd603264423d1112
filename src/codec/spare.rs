//! Writing straight into a vector's spare capacity (the part of a `Vec<u8>`
//! past its length), in sections with one room check each: the machinery the
//! JSON and MessagePack catalog writers share. Nothing is zero-filled first:
//! each byte is written once, and a section's stores share one check.
//!
//! A writer hands its products to [`write_each`], which writes them through
//! [`with_spare`]: a [`Spare`] over `out`'s spare capacity. The writer
//! writes a product in sections (its fields up to the tags, each tag, each
//! variant, its last fields): [`Spare::check`] checks once that the
//! section's largest spelling plus a fixed `SLACK` fits, then the section's
//! stores run without a check of their own. A store writes a fixed-width
//! byte array (a padded constant, eight digits in a word, a 16-byte scalar)
//! and moves past only the bytes that count; the rest is overwritten by the
//! next store, or lies past the end and is never appended. `SLACK` is how
//! far past its counted bytes a store of the writer may reach. When the
//! product is whole the writer calls [`Spare::keep`]; [`with_spare`] then
//! appends the bytes up to the last keep, so a product that did not fit
//! ([`Stop::Full`]) leaves nothing behind; [`write_each`] then grows `out`
//! and writes it again. Each writer adds its own stores in an `impl` block
//! in its own file.
//!
//! **Invariant:** every store stays within what the last [`Spare::check`]
//! (and the [`Spare::more`] calls since) vouched for. The stores are
//! `unsafe fn`s and that bound is their callers' precondition: each writer
//! argues it once per section in a `// SAFETY:` comment (the section's
//! stores count at most what the check took and reach at most `SLACK`
//! further), and debug builds assert it at every store. The rest of what
//! the `set_len` in [`with_spare`] relies on is kept here alone (the fields
//! are private): the vouched-for end never passes the end of the buffer, and
//! the position moves only past bytes just stored, so the bytes before it
//! are initialized.
//!
//! For the schema-driven encoders (`generic::sink`, one value at a time),
//! three safe single stores with one capacity check each: [`push_prefix`],
//! [`push_bytes`] and [`push_padded`].

use std::mem::MaybeUninit;

use crate::codec::EncodeError;

/// Why a product did not fit where a [`Spare`] writes it.
pub(crate) enum Stop {
    /// The spare capacity ran out: grow `out` and write the product again.
    Full,
    /// The product cannot be encoded at all.
    Fail(EncodeError),
}

impl From<EncodeError> for Stop {
    fn from(e: EncodeError) -> Stop {
        Stop::Fail(e)
    }
}

/// A writer over the spare capacity of a `Vec<u8>` (see the module doc);
/// `SLACK` is how far past its counted bytes one of the writer's stores may
/// reach.
pub(crate) struct Spare<'a, const SLACK: usize> {
    /// The whole spare capacity.
    buf: &'a mut [MaybeUninit<u8>],
    /// Bytes of `buf` written so far: every store is at or after it.
    at: usize,
    /// `at` at the last [`Spare::keep`]: the bytes [`with_spare`] appends.
    kept: usize,
    /// End of the bytes the last [`Spare::check`] and the [`Spare::more`]
    /// calls since vouched for: no store may reach past it (asserted in
    /// debug builds). Always `<= buf.len()`.
    limit: usize,
}

impl<const SLACK: usize> Spare<'_, SLACK> {
    /// Marks everything written so far to be appended.
    #[inline(always)]
    pub(crate) fn keep(&mut self) {
        self.kept = self.at;
    }

    /// Checks that `SLACK` and the next `counts` bytes fit, or
    /// [`Stop::Full`] (each count is the most one part of the section can
    /// take). The stores that follow may then reach up to `at + SLACK +`
    /// the counts' sum when `at` is the current position: each one's
    /// counted bytes must be within the counts' sum.
    #[inline(always)]
    pub(crate) fn check<const K: usize>(&mut self, counts: &[usize; K]) -> Result<(), Stop> {
        const { assert!(K > 0) };
        // `at <= buf.len()` always: `at` moves only past stored bytes.
        // Taking each count from what is left cannot overflow; the first
        // count is a constant at every call, so with SLACK it is one
        // subtraction.
        let mut room = (self.buf.len() - self.at)
            .checked_sub(counts[0].saturating_add(SLACK))
            .ok_or(Stop::Full)?;
        for &n in &counts[1..] {
            room = room.checked_sub(n).ok_or(Stop::Full)?;
        }
        self.limit = self.buf.len() - room;
        Ok(())
    }

    /// Vouches for `n` more bytes past the current limit, or
    /// [`Stop::Full`]: the stores of the section may reach `n` further (for
    /// what a section's check could not foresee, such as a JSON escape).
    #[inline]
    pub(crate) fn more(&mut self, n: usize) -> Result<(), Stop> {
        if self.buf.len() - self.limit < n {
            return Err(Stop::Full);
        }
        self.limit += n;
        Ok(())
    }

    /// The first `len` bytes of `bytes` (all `N` are stored).
    ///
    /// SAFETY: the caller keeps `at + N` within the last check.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn put_prefix<const N: usize>(&mut self, bytes: &[u8; N], len: usize) {
        debug_assert!(len <= N);
        debug_assert!(self.at + N <= self.limit && self.limit <= self.buf.len());
        // SAFETY: the caller keeps `at + N <= limit <= buf.len()`, so the
        // `N` bytes from `at` are inside the spare capacity; `[u8; N]` has
        // alignment 1 and any bytes are valid `MaybeUninit<u8>`. `at` moves
        // past `len <= N` of the bytes just stored.
        unsafe {
            self.buf
                .as_mut_ptr()
                .add(self.at)
                .cast::<[u8; N]>()
                .write_unaligned(*bytes)
        };
        self.at += len;
    }

    /// `bytes`, all of them counting.
    ///
    /// SAFETY: the caller keeps `at + N` within the last check.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn put<const N: usize>(&mut self, bytes: &[u8; N]) {
        // SAFETY: the caller's precondition is `put_prefix`'s.
        unsafe { self.put_prefix(bytes, N) };
    }

    /// `bytes`, all of them counting, copied a fixed width at a time: up
    /// to 64 bytes (nearly all of a catalog's strings) as at most four
    /// overlapping loads and stores instead of a call to `memcpy`.
    ///
    /// SAFETY: the caller keeps `at + bytes.len()` within the last check.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn put_bytes(&mut self, bytes: &[u8]) {
        debug_assert!(self.at + bytes.len() <= self.limit && self.limit <= self.buf.len());
        // SAFETY: the caller keeps `at + bytes.len()` within `buf`, so the
        // copies (exactly `bytes.len()` bytes from `at`) are inside the
        // spare capacity, which `bytes`, borrowed elsewhere, is apart from.
        unsafe {
            let dst = self.buf.as_mut_ptr().add(self.at).cast::<u8>();
            if bytes.len() < 16 {
                copy_short(dst, bytes);
            } else {
                copy_long(dst, bytes);
            }
        }
        self.at += bytes.len();
    }

    /// Runs `write` on a pointer to the next `n` bytes, then moves past
    /// them: for a copy fused with other work (the JSON writer copies a
    /// string and scans it for escapes at once).
    ///
    /// SAFETY: the caller keeps `at + n` within the last check, and
    /// `write` stores every one of the `n` bytes and nothing else.
    #[inline(always)]
    #[allow(unsafe_code)]
    pub(crate) unsafe fn put_with<R>(&mut self, n: usize, write: impl FnOnce(*mut u8) -> R) -> R {
        debug_assert!(self.at + n <= self.limit && self.limit <= self.buf.len());
        // SAFETY: `at <= buf.len()`, so the pointer is inside the spare
        // capacity or one past its end.
        let r = write(unsafe { self.buf.as_mut_ptr().add(self.at).cast::<u8>() });
        // `write` stored the `n` bytes (the caller's precondition).
        self.at += n;
        r
    }

    /// Moves back over the last `n` bytes written since the last
    /// [`Spare::keep`], to write them again. The bytes before the position
    /// stay initialized, so this needs no precondition.
    #[inline]
    pub(crate) fn back(&mut self, n: usize) {
        debug_assert!(n <= self.at - self.kept);
        self.at = self.at.saturating_sub(n);
    }
}

/// Runs `f` with a [`Spare`] over `out`'s spare capacity, then appends to
/// `out` the bytes written up to the last [`Spare::keep`].
#[allow(unsafe_code)]
pub(crate) fn with_spare<const SLACK: usize, R>(out: &mut Vec<u8>, f: impl FnOnce(&mut Spare<'_, SLACK>) -> R) -> R {
    let buf = out.spare_capacity_mut();
    let mut w = Spare {
        buf,
        at: 0,
        kept: 0,
        limit: 0,
    };
    let r = f(&mut w);
    let kept = w.kept;
    let len = out.len() + kept;
    // SAFETY: `len <= capacity`, since `kept` is some earlier `at` and
    // `at <= buf.len()` (it moves only past stored bytes); and the bytes
    // from the old length to `len` are initialized: they are the ones the
    // `Spare` moved past, and it moves only past bytes it has just stored
    // (every store writes at least the bytes it counts, and `back` only
    // moves back over written ones). `set_len` requires exactly these two.
    unsafe { out.set_len(len) };
    r
}

/// Writes each of `items` with `write` (given the item's index) into `out`'s
/// spare capacity, appending each one once it is whole. When one does not
/// fit, `out` grows (at least doubling the room, and by at least
/// `min_growth` bytes) and the writing goes on from that item. On
/// [`Stop::Fail`] the items before the failing one stay appended.
pub(crate) fn write_each<T, const SLACK: usize>(
    items: &[T],
    out: &mut Vec<u8>,
    min_growth: usize,
    mut write: impl FnMut(usize, &T, &mut Spare<'_, SLACK>) -> Result<(), Stop>,
) -> Result<(), EncodeError> {
    let mut done = 0;
    while done < items.len() {
        let room = out.spare_capacity_mut().len();
        let (written, stop) = with_spare(out, |w| {
            for (i, item) in items[done..].iter().enumerate() {
                if let Err(e) = write(done + i, item, w) {
                    return (i, Some(e));
                }
                w.keep();
            }
            (items.len() - done, None)
        });
        done += written;
        match stop {
            None => {}
            Some(Stop::Full) => out.reserve(room.saturating_mul(2).max(min_growth)),
            Some(Stop::Fail(e)) => return Err(e),
        }
    }
    Ok(())
}

/// Lets `write` store into the `N` bytes past `out`'s end and appends the
/// first `n` of them, `n` being what `write` returns (capped at `N`): for
/// a writer that stores its pieces at offsets of its own (a double's
/// digits, point and exponent), so they go straight to the output, with
/// no copy of a stack buffer after them (whose load would wait for the
/// pieces' stores). The `N` bytes are zeroed first by one fixed-size store,
/// so whatever `write` leaves alone is initialized. A safe function: the
/// bound is checked here.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn push_padded<const N: usize>(out: &mut Vec<u8>, write: impl FnOnce(&mut [u8; N]) -> usize) {
    out.reserve(N);
    let len = out.len();
    let Some(window) = out.spare_capacity_mut().first_chunk_mut::<N>() else {
        return; // cannot happen: `reserve(N)` made the room
    };
    *window = [std::mem::MaybeUninit::new(0); N];
    // SAFETY: all `N` bytes of `window` were initialized by the store just
    // above, and `MaybeUninit<u8>` has the layout of `u8`, so the window
    // is a valid `[u8; N]`; the borrow is the only one (it comes from
    // `out`'s exclusive borrow and ends before `set_len`).
    let bytes = unsafe { &mut *window.as_mut_ptr().cast::<[u8; N]>() };
    let n = write(bytes).min(N);
    // SAFETY: `len + n <= len + N <= capacity` (after `reserve(N)`), and
    // the bytes `len..len + N` are initialized (zeroed, then written by
    // `write` through a `[u8; N]`): what `set_len` requires.
    unsafe { out.set_len(len + n) };
}

/// Appends the first `n` bytes of `bytes` to `out` (`n` is capped at `N`)
/// with one capacity check and one `N`-byte store: a single store for a
/// writer without sections to check (the schema-driven encoders, one value
/// at a time). A safe function: the bound is checked here.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn push_prefix<const N: usize>(out: &mut Vec<u8>, bytes: &[u8; N], n: usize) {
    let n = n.min(N);
    out.reserve(N);
    let len = out.len();
    // SAFETY: after `reserve(N)` the capacity is at least `len + N`, so the
    // `N` bytes from `len` are inside the allocation (`[u8; N]` has
    // alignment 1); the store initializes `len..len + n` (`n <= N`), and
    // `len + n <= capacity`: what `set_len` requires.
    unsafe {
        out.as_mut_ptr().add(len).cast::<[u8; N]>().write_unaligned(*bytes);
        out.set_len(len + n);
    }
}

/// Appends `bytes` to `out` with one capacity check, copied as fixed-width
/// overlapping words up to 64 bytes (no `memcpy` call for a short string).
/// A safe function: the bound is checked here.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn push_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    let n = bytes.len();
    if n > 64 {
        out.extend_from_slice(bytes);
        return;
    }
    out.reserve(n);
    let len = out.len();
    // SAFETY: after `reserve(n)` the `n` bytes from `len` are inside the
    // allocation, apart from `bytes` (a shared borrow cannot point into the
    // buffer of a vector borrowed mutably); the copies store exactly those
    // `n` bytes, so `len..len + n` is initialized for `set_len`.
    unsafe {
        let dst = out.as_mut_ptr().add(len);
        if n < 16 {
            copy_short(dst, bytes);
        } else {
            copy_long(dst, bytes);
        }
        out.set_len(len + n);
    }
}

/// Copies `src` (fewer than 16 bytes) to `dst` with at most two
/// overlapping loads and stores.
///
/// SAFETY: the caller keeps `dst` valid for `src.len()` bytes of writes,
/// apart from `src`.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn copy_short(dst: *mut u8, src: &[u8]) {
    let n = src.len();
    let s = src.as_ptr();
    debug_assert!(n < 16);
    // SAFETY: every read is of bytes of `src` (offsets below `n`) and every
    // write of the same offsets of `dst`, which the caller vouches for.
    unsafe {
        if n >= 8 {
            let a = s.cast::<u64>().read_unaligned();
            let b = s.add(n - 8).cast::<u64>().read_unaligned();
            dst.cast::<u64>().write_unaligned(a);
            dst.add(n - 8).cast::<u64>().write_unaligned(b);
        } else if n >= 4 {
            let a = s.cast::<u32>().read_unaligned();
            let b = s.add(n - 4).cast::<u32>().read_unaligned();
            dst.cast::<u32>().write_unaligned(a);
            dst.add(n - 4).cast::<u32>().write_unaligned(b);
        } else if n >= 2 {
            let a = s.cast::<u16>().read_unaligned();
            let b = s.add(n - 2).cast::<u16>().read_unaligned();
            dst.cast::<u16>().write_unaligned(a);
            dst.add(n - 2).cast::<u16>().write_unaligned(b);
        } else if n == 1 {
            *dst = *s;
        }
    }
}

/// Copies `src` (16 bytes or more) to `dst`: up to 64 bytes as 16-byte
/// loads and stores, the last one overlapping the one before; longer ones
/// with `memcpy`.
///
/// SAFETY: the caller keeps `dst` valid for `src.len()` bytes of writes,
/// apart from `src`.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn copy_long(dst: *mut u8, src: &[u8]) {
    let n = src.len();
    let s = src.as_ptr();
    debug_assert!(n >= 16);
    // SAFETY: every read is of bytes of `src` (offsets below `n`) and every
    // write of the same offsets of `dst`, which the caller vouches for.
    unsafe {
        if n > 64 {
            std::ptr::copy_nonoverlapping(s, dst, n);
        } else {
            let chunk = |i: usize| {
                dst.add(i)
                    .cast::<[u8; 16]>()
                    .write_unaligned(s.add(i).cast::<[u8; 16]>().read_unaligned())
            };
            chunk(0);
            if n > 32 {
                chunk(16);
                if n > 48 {
                    chunk(32);
                }
            }
            chunk(n - 16);
        }
    }
}

/// What the writers' spare-capacity tests share (defined in `tests`).
#[cfg(test)]
pub(crate) use tests::{check_capacity, product_max, test_products};

#[cfg(test)]
mod tests {
    //! Besides its own tests, what the writers' spare-capacity tests share.

    /// The room a writer's section checks ask for at most for `p`, escapes not
    /// counted: the sum of their bounds (`[head, tag, dimensions, variant,
    /// tail]`, each tag and variant adding its own and its strings' bytes) and
    /// `slack` past the last. The writers' tests size their capacities by it.
    pub(crate) fn product_max(
        p: &crate::model::Product,
        [head, tag, dimensions, variant, tail]: [usize; 5],
        slack: usize,
    ) -> usize {
        let strs = |v: &[&String]| v.iter().map(|s| s.len()).sum::<usize>();
        head + strs(&[&p.sku, &p.name, &p.description, &p.currency])
            + p.tags.iter().map(|t| tag + t.len()).sum::<usize>()
            + dimensions
            + p.variants
                .iter()
                .map(|v| variant + strs(&[&v.sku, &v.color, &v.size]))
                .sum::<usize>()
            + tail
            + p.image_url.len()
            + slack
    }

    /// The products the writers' spare-capacity tests write: 20 of the
    /// catalog and the edge products of up to ~2 KiB (the 64 KiB names are the
    /// MessagePack widths' business).
    pub(crate) fn test_products() -> Vec<crate::model::Product> {
        let mut products = crate::fixtures::catalog(20).products;
        products.extend(
            crate::fixtures::edge_products()
                .into_iter()
                .filter(|p| p.name.len() < 1000),
        );
        products
    }

    /// One product written by `write` into a vector of capacity `cap`: the
    /// bytes `want` when it fits, else `Full` below the bound `max`, and then
    /// nothing appended (never a partial commit); `what` names the case.
    pub(crate) fn check_capacity<const SLACK: usize>(
        cap: usize,
        max: usize,
        want: &[u8],
        what: &str,
        write: impl FnOnce(&mut Spare<'_, SLACK>) -> Result<(), Stop>,
    ) {
        let mut out: Vec<u8> = Vec::with_capacity(cap);
        let r = with_spare(&mut out, |w| {
            let r = write(w);
            if r.is_ok() {
                w.keep();
            }
            r
        });
        match r {
            Ok(()) => assert_eq!(out, want, "{what}, capacity {cap}"),
            Err(Stop::Full) => {
                assert!(cap < max, "{what}: full at {cap} for {} (at most {max})", want.len());
                assert!(out.is_empty(), "a product that did not fit is not appended");
            }
            Err(Stop::Fail(e)) => panic!("{e}"),
        }
    }

    use super::*;

    /// `push_prefix` and `push_bytes` append exactly their bytes at every
    /// length and starting capacity (and cap a count beyond the store).
    #[test]
    fn single_stores_append_exactly_their_bytes() {
        let body = pattern(100);
        for cap in [0usize, 1, 5, 16, 70] {
            for n in 0..=body.len() {
                let mut out = Vec::with_capacity(cap);
                out.push(b'p');
                push_bytes(&mut out, &body[..n]);
                push_prefix(&mut out, &[b'x'; 16], n % 17);
                push_prefix(&mut out, b"ab", 99);
                let mut want = vec![b'p'];
                want.extend_from_slice(&body[..n]);
                want.extend(std::iter::repeat_n(b'x', n % 17));
                want.extend_from_slice(b"ab");
                assert_eq!(out, want, "capacity {cap}, {n} bytes");
            }
        }
    }

    /// `push_padded` appends exactly the bytes its writer counts, at every
    /// count and starting capacity, the bytes it did not store as zeros,
    /// and a count beyond the window is capped.
    #[test]
    fn padded_stores_append_exactly_the_counted_bytes() {
        for cap in [0usize, 1, 7, 8, 9, 40] {
            for n in 0..=10 {
                let mut out = Vec::with_capacity(cap);
                out.push(b'p');
                push_padded::<8>(&mut out, |b| {
                    b[0] = b'a';
                    b[7] = b'z';
                    n
                });
                let mut want = vec![b'p'];
                want.extend_from_slice(&b"a\0\0\0\0\0\0z"[..n.min(8)]);
                assert_eq!(out, want, "capacity {cap}, count {n}");
                push_prefix(&mut out, b"q", 1);
                want.push(b'q');
                assert_eq!(out, want, "capacity {cap}, count {n}, then a store");
            }
        }
    }

    /// The slack of the test writer: small, so that it matters at every
    /// capacity below.
    const SLACK: usize = 4;

    /// Bytes that differ at every position, none of them 0.
    fn pattern(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i as u8).wrapping_mul(7) | 1).collect()
    }

    /// At every starting capacity and with or without bytes already in the
    /// vector: a check passes exactly when its counts and the slack fit;
    /// stores then reach exactly the limit (the debug assertions allow
    /// it); `more` passes exactly when the rest fits; and `with_spare`
    /// appends the bytes up to the last `keep`, none written after it.
    #[test]
    #[allow(unsafe_code)]
    fn checks_fit_exactly_and_only_kept_bytes_are_appended() {
        for prefix in [0, 3] {
            for cap in 0..=80 {
                for count in 0..=cap + 1 {
                    let mut out = Vec::with_capacity(prefix + cap);
                    out.extend(std::iter::repeat_n(b'p', prefix));
                    let spare = out.capacity() - prefix;
                    let body = pattern(count);
                    let (fits, more_fits) = with_spare(&mut out, |w: &mut Spare<'_, SLACK>| {
                        if w.check(&[count]).is_err() {
                            return (false, false);
                        }
                        assert_eq!(w.limit, count + SLACK);
                        // SAFETY: `count` counted bytes, then a store of
                        // SLACK bytes counting none: it ends at the limit.
                        unsafe {
                            w.put_bytes(&body);
                            w.put_prefix(&[b'x'; SLACK], 0);
                        }
                        w.keep();
                        let more_fits = w.more(spare - w.limit).is_ok() && w.more(1).is_err();
                        // Written but not kept: not appended.
                        // SAFETY: one byte at `at`, within the check.
                        unsafe { w.put(b"y") };
                        (true, more_fits)
                    });
                    assert_eq!(fits, count + SLACK <= spare, "capacity {cap}, count {count}");
                    let mut want = vec![b'p'; prefix];
                    if fits {
                        assert!(more_fits);
                        want.extend(&body);
                    }
                    assert_eq!(out, want, "capacity {cap}, count {count}");
                }
            }
        }
    }

    /// A check over several counts takes their sum and the slack, and a
    /// later check starts from the position, not from the old limit.
    #[test]
    #[allow(unsafe_code)]
    fn checks_add_their_counts_from_the_position() {
        let mut out = Vec::with_capacity(40);
        let spare = out.capacity();
        let r = with_spare(&mut out, |w: &mut Spare<'_, SLACK>| {
            w.check(&[1, 2, 3]).ok()?;
            assert_eq!(w.limit, 6 + SLACK);
            // SAFETY: 6 counted bytes, within the check.
            unsafe { w.put(b"abcdef") };
            w.check(&[spare - 6 - SLACK]).ok()?;
            assert_eq!(w.limit, spare);
            assert!(w.check(&[spare - 6 - SLACK, 1]).is_err());
            assert!(w.check(&[usize::MAX]).is_err());
            w.keep();
            Some(())
        });
        assert_eq!(r, Some(()));
        assert_eq!(out, b"abcdef");
    }

    /// `put_with` moves past the bytes its closure stores; `back` moves
    /// back over them so they can be written again.
    #[test]
    #[allow(unsafe_code)]
    fn put_with_and_back_rewrite_in_place() {
        let mut out = b"<".to_vec();
        out.reserve(32);
        let r = with_spare(&mut out, |w: &mut Spare<'_, SLACK>| {
            w.check(&[8]).ok()?;
            // SAFETY: the closure stores exactly the 3 bytes it is given,
            // within the check.
            let r = unsafe {
                w.put_with(3, |dst| {
                    dst.copy_from_nonoverlapping(b"abc".as_ptr(), 3);
                    'r'
                })
            };
            w.back(2);
            // SAFETY: 3 + 1 counted bytes at most, within the check.
            unsafe { w.put(b"XY") };
            w.keep();
            Some(r)
        });
        assert_eq!(r, Some('r'));
        assert_eq!(out, b"<aXY");
    }

    /// A store past the limit is caught in debug builds, even where the
    /// buffer would have had the room.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic]
    #[allow(unsafe_code)]
    fn a_store_past_the_check_is_asserted() {
        let mut out = Vec::with_capacity(64);
        with_spare(&mut out, |w: &mut Spare<'_, SLACK>| {
            w.check(&[1]).ok()?;
            // SAFETY: not met on purpose; the buffer has 64 bytes of room,
            // so the debug assertion fires before anything is stored out
            // of bounds.
            unsafe { w.put(&[0u8; 1 + SLACK + 1]) };
            Some(())
        });
    }

    /// `write_each` from every small starting capacity: every item once,
    /// in order, with its index, growing as often as it must; on a failure
    /// the items before it stay and nothing of it does.
    #[test]
    #[allow(unsafe_code)]
    fn write_each_grows_and_writes_every_item_once() {
        let items: Vec<Vec<u8>> = (0..40).map(|n| pattern(n * 3 % 50)).collect();
        let write = |i: usize, item: &Vec<u8>, w: &mut Spare<'_, SLACK>| {
            if i == 30 && item.is_empty() {
                return Err(Stop::Fail(EncodeError::TooLong { what: "item", len: 30 }));
            }
            w.check(&[1, item.len()])?;
            // SAFETY: one byte and the item's, the check's counts.
            unsafe {
                w.put(&[i as u8]);
                w.put_bytes(item);
            }
            Ok(())
        };
        let want: Vec<u8> = items
            .iter()
            .enumerate()
            .flat_map(|(i, b)| [&[i as u8][..], b].concat())
            .collect();
        for cap in 0..40 {
            let mut out = Vec::with_capacity(cap);
            write_each(&items, &mut out, 1, write).ok().unwrap();
            assert_eq!(out, want, "capacity {cap}");
            let mut failing = items.clone();
            failing[30].clear();
            let mut out = Vec::with_capacity(cap);
            assert!(write_each(&failing, &mut out, 1, write).is_err());
            let cut = want.len() - items[30..].iter().map(|b| 1 + b.len()).sum::<usize>();
            assert_eq!(out, want[..cut], "capacity {cap}");
        }
    }

    /// The copies write exactly the source bytes at every length (each of
    /// their fixed-width paths and its edges) and nothing either side.
    #[test]
    #[allow(unsafe_code)]
    fn copies_write_exactly_the_bytes_at_every_length() {
        let src = pattern(150);
        for n in 0..=src.len() {
            let mut dst = [0u8; 160];
            // SAFETY: `dst[2..]` holds 158 >= n bytes and is apart from `src`.
            unsafe {
                let at = dst.as_mut_ptr().add(2);
                if n < 16 {
                    copy_short(at, &src[..n]);
                } else {
                    copy_long(at, &src[..n]);
                }
            }
            assert_eq!(&dst[2..2 + n], &src[..n], "length {n}");
            assert!(dst[..2].iter().chain(&dst[2 + n..]).all(|&b| b == 0), "length {n}");
        }
    }
}
