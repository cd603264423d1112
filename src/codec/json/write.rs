//! The compact JSON writer: keys in field order (docs/SPEC.md, "Field order"), no whitespace, one `Vec`.
//!
//! Everything between two values is one constant byte string: a key with
//! its quotes, the colon, the comma before it and the quotes around the
//! string values on either side (`","name":"`, `,"in_stock":true,"stock":`).
//!
//! The catalog encoder writes straight into `out`'s spare capacity
//! ([`spare`](crate::codec::spare)) with one room check per section of a
//! product (its fields up to the tags, each tag, each variant, its last
//! three fields), each for the most bytes the section takes with its
//! strings unescaped, plus a fixed slack; every escape then claims the few
//! extra bytes it needs with a check of its own. Within a section each
//! constant, number and string is stored without a check:
//!
//! - strings are copied eight bytes at a time while the same words are
//!   tested (SWAR) for a byte that needs escaping; only a string that holds
//!   one is written again, run by run, with the escapes;
//! - integers are eight digits per `u64` store ([`digits8`]), the leading
//!   zeros shifted out;
//! - `rating` takes the same fast paths as [`write_f64`] (integers, and
//!   values with up to three decimals) and falls back to it otherwise.

use super::float::text::{ASCII_ZEROS, digits8};
use super::number::{short_decimal, write_f64};
use super::tables::{ESCAPE, HEX_DIGITS, HI, UU, find_special, marked};
use crate::codec::EncodeError;
use crate::codec::spare::{self, Stop};
use crate::model::{Product, Variant};

/// A rough per-product size (the canonical fixture averages a bit under
/// this), used once to reserve the output so it rarely has to grow.
const TYPICAL_PRODUCT_BYTES: usize = 640;

/// Appends `{"products":[…]}`; on error `out` is left as it was.
pub fn encode(products: &[Product], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let start = out.len();
    out.reserve(16 + products.len().saturating_mul(TYPICAL_PRODUCT_BYTES));
    out.extend_from_slice(br#"{"products":["#);
    if let Err(e) = spare::write_each(products, out, TYPICAL_PRODUCT_BYTES, |i, p, w| {
        write_product(p, i > 0, w)
    }) {
        out.truncate(start);
        return Err(e);
    }
    out.extend_from_slice(b"]}");
    Ok(())
}

/// Appends `s` as a JSON string: runs of plain bytes copied whole, `"` `\`
/// and control characters escaped the way serde_json does (`\n`, `\u0007`).
#[inline]
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let s = s.as_bytes();
    out.push(b'"');
    let mut run = 0;
    loop {
        let i = find_special(s, run);
        let Some(&b) = s.get(i) else { break };
        out.extend_from_slice(&s[run..i]);
        let (bytes, len) = escape(b);
        out.extend_from_slice(&bytes[..len]);
        run = i + 1;
    }
    out.extend_from_slice(&s[run..]);
    out.push(b'"');
}

/// The escape of a byte [`ESCAPE`] marks: `\` and its letter, or `\u00XX`,
/// padded to six bytes, and how many count (2 or 6).
#[inline]
fn escape(b: u8) -> ([u8; 6], usize) {
    let hex = |nibble: u8| HEX_DIGITS[usize::from(nibble)];
    match ESCAPE[b as usize] {
        UU => ([b'\\', b'u', b'0', b'0', hex(b >> 4), hex(b & 0xF)], 6),
        esc => {
            debug_assert!(esc != 0);
            ([b'\\', esc, 0, 0, 0, 0], 2)
        }
    }
}

/// Bytes a store may reach past the bytes it counts: an integer or a
/// fraction is stored as 8 bytes and counts at least 1, an `in_stock` or
/// `status` run as its longest spelling (at most 9 bytes more than it
/// counts).
const SLACK: usize = 16;

/// The JSON writer's [`spare::Spare`]: a product is written in sections,
/// each checked for its largest spelling with unescaped strings plus
/// [`SLACK`]; an escape, longer than the byte it replaces, first claims the
/// difference with [`Spare::more`].
type Spare<'a> = spare::Spare<'a, SLACK>;

/// JSON's stores: numbers as digits, strings with their escapes.
impl Spare<'_> {
    /// The decimal digits of `v`, at least one: up to 20 counted bytes.
    ///
    /// SAFETY: the caller keeps `at + 20 + 7` within the last check (every
    /// store is 8 bytes, the last one counting at least 1).
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn put_u64(&mut self, v: u64) {
        const E8: u64 = 100_000_000;
        // Each arm makes at most three 8-byte stores, counting the number's
        // digits (at most 20) and reaching at most 7 past them.
        if v < E8 {
            // SAFETY: one store, within the caller's bound (above).
            unsafe { self.put_digits_trimmed(v as u32) };
        } else if v < E8 * E8 {
            // SAFETY: two stores, within the caller's bound (above).
            unsafe {
                self.put_digits_trimmed((v / E8) as u32);
                self.put_digits8((v % E8) as u32);
            }
        } else {
            // 17 to 20 digits: the top part is below 1,845.
            let low = v % (E8 * E8);
            // SAFETY: three stores, within the caller's bound (above).
            unsafe {
                self.put_digits_trimmed((v / (E8 * E8)) as u32);
                self.put_digits8((low / E8) as u32);
                self.put_digits8((low % E8) as u32);
            }
        }
    }

    /// `v` in decimal, `-` first when negative: up to 20 counted bytes.
    ///
    /// SAFETY: the caller keeps `at + 20 + 7` within the last check.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn put_i64(&mut self, v: i64) {
        // SAFETY: the sign byte is stored at `at` and counts when the value
        // is negative; with the digits of |v| that is at most 20 bytes
        // (`-9223372036854775808`), the digits' stores reaching at most 7
        // past them: the caller's bound.
        unsafe {
            self.put_prefix(b"-", usize::from(v < 0));
            self.put_u64(v.unsigned_abs());
        }
    }

    /// `v` (below 10^8) with no leading zeros, at least one digit: up to 8
    /// counted bytes, 8 stored.
    ///
    /// SAFETY: the caller keeps `at + 8` within the last check.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn put_digits_trimmed(&mut self, v: u32) {
        let d = digits8(v);
        // Leading zero digits are the low zero bytes; the top bit keeps at
        // least the last digit.
        let zeros = ((d | (1 << 63)).trailing_zeros() / 8) as usize;
        // SAFETY: 8 bytes at `at`, the caller's bound.
        unsafe { self.put_prefix(&((d + ASCII_ZEROS) >> (8 * zeros)).to_le_bytes(), 8 - zeros) };
    }

    /// `v` (below 10^8) as exactly eight digits, leading zeros included.
    ///
    /// SAFETY: the caller keeps `at + 8` within the last check.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn put_digits8(&mut self, v: u32) {
        // SAFETY: 8 bytes at `at`, the caller's bound.
        unsafe { self.put(&(digits8(v) + ASCII_ZEROS).to_le_bytes()) };
    }

    /// `rating` as [`write_f64`] spells it; a non-finite value is refused.
    /// Up to [`RATING_MAX`] counted bytes on the fast paths; the general
    /// case claims its own room.
    ///
    /// SAFETY: the caller keeps `at + RATING_MAX + 7` within the last check.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn put_rating(&mut self, v: f64) -> Result<(), Stop> {
        if !v.is_finite() {
            return Err(Stop::Fail(not_finite(v)));
        }
        let Some((int, frac, decimals)) = short_decimal(v.abs()) else {
            return self.put_general_f64(v);
        };
        // SAFETY: a sign byte (counting when negative), the integer part
        // (at most 16 digits: it is below 2^53) and `.0` or `.` and at
        // most 3 decimals: at most 19 = RATING_MAX counted bytes, the
        // 8-byte stores of the digits reaching at most 7 past them.
        unsafe {
            self.put_prefix(b"-", usize::from(v.is_sign_negative()));
            self.put_u64(int);
            if decimals == 0 {
                self.put(b".0");
            } else {
                self.put(b".");
                // The last `decimals` of the eight digits of `frac`
                // (which is below 10^decimals): the top bytes.
                let d = (digits8(frac) + ASCII_ZEROS) >> (8 * (8 - decimals));
                self.put_prefix(&d.to_le_bytes(), decimals);
            }
        }
        Ok(())
    }

    /// A float off the fast paths, through [`write_f64`] into a scratch
    /// vector, then claimed and copied.
    #[cold]
    #[inline(never)]
    #[allow(unsafe_code)]
    fn put_general_f64(&mut self, v: f64) -> Result<(), Stop> {
        let mut text = Vec::with_capacity(32);
        write_f64(&mut text, v);
        self.more(text.len())?;
        // SAFETY: `more` just vouched for `text.len()` bytes past the
        // limit, which is at or past `at`: `at + text.len()` is within it.
        unsafe { self.put_bytes(&text) };
        Ok(())
    }

    /// The bytes of `s` as the inside of a JSON string (no quotes):
    /// `s.len()` counted bytes, more (claimed here) for each escape.
    ///
    /// SAFETY: the caller keeps `at + s.len()` within the last check.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn put_str(&mut self, s: &str) -> Result<(), Stop> {
        let s = s.as_bytes();
        // SAFETY: `copy_and_scan` stores exactly `s.len()` bytes from the
        // pointer it is given (the position), the caller's bound.
        let hits = unsafe { self.put_with(s.len(), |dst| copy_and_scan(dst, s)) };
        if hits == 0 {
            Ok(())
        } else {
            // Write the string again over its copy, with the escapes.
            self.back(s.len());
            // SAFETY: the caller's precondition is `put_escaped`'s.
            unsafe { self.put_escaped(s) }
        }
    }

    /// `s` with its escapes, run by run (the copy `put_str` made is
    /// overwritten). Each escape first claims the bytes it adds.
    ///
    /// SAFETY: the caller keeps `at + s.len()` within the last check.
    #[cold]
    #[inline(never)]
    #[allow(unsafe_code)]
    unsafe fn put_escaped(&mut self, s: &[u8]) -> Result<(), Stop> {
        let mut run = 0;
        loop {
            let i = find_special(s, run);
            // SAFETY: the run's bytes were counted in `s.len()`, and every
            // escape before it claimed what it added: the copy ends within
            // the limit.
            unsafe { self.put_bytes(&s[run..i]) };
            let Some(&b) = s.get(i) else { break };
            let (bytes, len) = escape(b);
            // The byte itself was counted; the rest of its escape is claimed.
            self.more(len - 1)?;
            // SAFETY: 6 bytes at `at`: the escape's `len` counted ones are
            // within the limit just raised; the padding reaches at most 4
            // further, within SLACK.
            unsafe { self.put_prefix(&bytes, len) };
            run = i + 1;
        }
        Ok(())
    }
}

/// Most bytes [`Spare::put_rating`] counts on its fast paths: a sign, 16
/// digits and `.0`.
const RATING_MAX: usize = 19;

/// Most bytes an integer counts: `-9223372036854775808`.
const INT_MAX: usize = 20;

#[cold]
fn not_finite(v: f64) -> EncodeError {
    EncodeError::Unrepresentable {
        what: "rating",
        value: format!("{v} (JSON numbers are finite)"),
    }
}

#[inline(always)]
fn word(s: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"))
}

/// Copies `src` to `dst` (exactly `src.len()` bytes, whole words where it
/// can, the last one overlapping the one before) and tests the same words
/// for bytes [`ESCAPE`] marks: non-zero when there is one.
///
/// SAFETY: the caller keeps `dst` valid for `src.len()` bytes of writes,
/// apart from `src`.
#[inline(always)]
#[allow(unsafe_code)]
unsafe fn copy_and_scan(dst: *mut u8, src: &[u8]) -> u64 {
    let n = src.len();
    // Every write below is of bytes at offsets below `n` from `dst`, which
    // the caller vouches for; every read is a bounds-checked slice of `src`.
    if n >= 8 {
        let mut hits = 0;
        let mut i = 0;
        while i + 16 < n {
            let (a, b) = (word(src, i), word(src, i + 8));
            // SAFETY: offsets `i..i + 16`, below `n`.
            unsafe {
                dst.add(i).cast::<u64>().write_unaligned(a.to_le());
                dst.add(i + 8).cast::<u64>().write_unaligned(b.to_le());
            }
            hits |= marked(a) | marked(b);
            i += 16;
        }
        if i + 8 < n {
            let a = word(src, i);
            // SAFETY: offsets `i..i + 8`, below `n`.
            unsafe { dst.add(i).cast::<u64>().write_unaligned(a.to_le()) };
            hits |= marked(a);
        }
        let a = word(src, n - 8);
        // SAFETY: offsets `n - 8..n`.
        unsafe { dst.add(n - 8).cast::<u64>().write_unaligned(a.to_le()) };
        (hits | marked(a)) & HI
    } else if n >= 4 {
        let a = u32::from_le_bytes(src[..4].try_into().expect("4 bytes"));
        let b = u32::from_le_bytes(src[n - 4..].try_into().expect("4 bytes"));
        // SAFETY: offsets `0..4` and `n - 4..n`, with `n >= 4`.
        unsafe {
            dst.cast::<u32>().write_unaligned(a.to_le());
            dst.add(n - 4).cast::<u32>().write_unaligned(b.to_le());
        }
        marked(u64::from(a) | u64::from(b) << 32) & HI
    } else if n > 0 {
        // Bytes 0, n / 2 and n - 1 cover all of 1 to 3; the word's other
        // bytes are spaces, which are not marked.
        let (a, b, c) = (src[0], src[n / 2], src[n - 1]);
        // SAFETY: offsets 0, `n / 2` and `n - 1`, all below `n`.
        unsafe {
            *dst = a;
            *dst.add(n / 2) = b;
            *dst.add(n - 1) = c;
        }
        marked(u64::from_le_bytes([a, b, c, b' ', b' ', b' ', b' ', b' '])) & HI
    } else {
        0
    }
}

/// `bytes` in a `[u8; N]` padded with zeros, and its length.
const fn padded<const N: usize>(bytes: &[u8]) -> ([u8; N], usize) {
    assert!(bytes.len() <= N, "the run must fit the padded width");
    let mut out = [0u8; N];
    let mut i = 0;
    while i < bytes.len() {
        out[i] = bytes[i];
        i += 1;
    }
    (out, bytes.len())
}

/// `in_stock` with its value and the next key, for `false` and `true`,
/// padded to one width.
const IN_STOCK: [([u8; 26], usize); 2] = [
    padded(br#","in_stock":false,"stock":"#),
    padded(br#","in_stock":true,"stock":"#),
];

/// `status` with its value and the opening of `tags`, for each status in
/// [`Status::ALL`](crate::model::Status::ALL) order, padded to one width.
const STATUS: [([u8; 36], usize); 3] = [
    padded(br#","status":"active","tags":["#),
    padded(br#","status":"draft","tags":["#),
    padded(br#","status":"discontinued","tags":["#),
];

// No padding reaches past the slack (the spellings themselves are checked
// by the tests against the field-by-field spelling).
const _: () = assert!(IN_STOCK[1].0.len() - IN_STOCK[1].1 <= SLACK && STATUS[1].0.len() - STATUS[1].1 <= SLACK);

/// Most bytes counted by a product's fields from the comma before it to the
/// `tags` bracket, but for the bytes of its four strings: its constants
/// (the longest `in_stock` and `status` runs), five integers and a rating.
const HEAD_MAX: usize =
    r#",{"id":,"sku":"","name":"","description":"","price_cents":,"currency":"","rating":,"review_count":"#.len()
        + IN_STOCK[0].1
        + STATUS[2].1
        + 4 * INT_MAX
        + RATING_MAX;
/// Most bytes counted by a tag but for its own.
const TAG_MAX: usize = br#"",""#.len();
/// Most bytes counted by the last tag's closing quote, the dimensions and
/// the `variants` bracket.
const DIMENSIONS_MAX: usize =
    r#""],"dimensions":{"width_mm":,"height_mm":,"depth_mm":,"weight_g":},"variants":["#.len() + 4 * INT_MAX;
/// Most bytes counted by a variant but for the bytes of its three strings.
const VARIANT_MAX: usize = r#",{"sku":"","color":"","size":"","price_cents":,"stock":}"#.len() + 2 * INT_MAX;
/// Most bytes counted by the last three fields but for the bytes of the image URL.
const TAIL_MAX: usize = r#"],"discount_percent":,"created_at_ms":,"image_url":""}"#.len() + 2 * INT_MAX;

/// Appends one product (after a comma if `comma`): an object of the 17
/// fields in field order (docs/SPEC.md, "Field order"). Room is checked
/// once per section: the fields up to the `tags` bracket, each tag, each
/// variant, and the last three fields; the dimensions and the `variants`
/// bracket are taken by the check before them.
#[inline(always)]
#[allow(unsafe_code)]
fn write_product(p: &Product, comma: bool, w: &mut Spare<'_>) -> Result<(), Stop> {
    // This check and each tag's also cover the dimensions and the
    // `variants` bracket (DIMENSIONS_MAX), which follow the last of them.
    w.check(&[
        HEAD_MAX + DIMENSIONS_MAX,
        p.sku.len(),
        p.name.len(),
        p.description.len(),
        p.currency.len(),
    ])?;
    let (in_stock, in_stock_len) = &IN_STOCK[usize::from(p.in_stock)];
    let (status, status_len) = &STATUS[p.status.index() as usize];
    // SAFETY: each store's counted bytes are at most what HEAD_MAX allows
    // for its constant or number plus its string's bytes (escapes claim
    // their own), and none reaches more than SLACK past them, so all are
    // within the check above.
    unsafe {
        w.put_prefix(b",", usize::from(comma));
        w.put(br#"{"id":"#);
        w.put_i64(p.id);
        w.put(br#","sku":""#);
        w.put_str(&p.sku)?;
        w.put(br#"","name":""#);
        w.put_str(&p.name)?;
        w.put(br#"","description":""#);
        w.put_str(&p.description)?;
        w.put(br#"","price_cents":"#);
        w.put_i64(p.price_cents);
        w.put(br#","currency":""#);
        w.put_str(&p.currency)?;
        w.put(br#"","rating":"#);
        w.put_rating(p.rating)?;
        w.put(br#","review_count":"#);
        w.put_i64(i64::from(p.review_count));
        w.put_prefix(in_stock, *in_stock_len);
        w.put_i64(i64::from(p.stock));
        w.put_prefix(status, *status_len);
    }
    for (i, t) in p.tags.iter().enumerate() {
        w.check(&[TAG_MAX + DIMENSIONS_MAX, t.len()])?;
        // SAFETY: the opening quote (after the last tag's closing quote
        // and a comma) and the tag's bytes, within TAG_MAX + its length.
        unsafe {
            w.put_prefix(br#"",""#, if i == 0 { 1 } else { 3 });
            w.put_str(t)?;
        }
    }
    let d = &p.dimensions;
    // SAFETY: the last tag's closing quote, four constants and numbers and
    // the `variants` bracket, counting at most DIMENSIONS_MAX bytes and
    // reaching at most 7 past them; the last check (the head's or the last
    // tag's) took DIMENSIONS_MAX beyond the bytes of its own section, all
    // written since.
    unsafe {
        w.put_prefix(b"\"", usize::from(!p.tags.is_empty()));
        w.put(br#"],"dimensions":{"width_mm":"#);
        w.put_i64(i64::from(d.width_mm));
        w.put(br#","height_mm":"#);
        w.put_i64(i64::from(d.height_mm));
        w.put(br#","depth_mm":"#);
        w.put_i64(i64::from(d.depth_mm));
        w.put(br#","weight_g":"#);
        w.put_i64(i64::from(d.weight_g));
        w.put(br#"},"variants":["#);
    }
    for (i, v) in p.variants.iter().enumerate() {
        write_variant(v, i > 0, w)?;
    }
    w.check(&[TAIL_MAX, p.image_url.len()])?;
    // SAFETY: three constants and numbers (or `null`), a constant, the
    // URL and the closing run, counting at most TAIL_MAX and the URL's
    // bytes and reaching at most 7 past them.
    unsafe {
        w.put(br#"],"discount_percent":"#);
        match p.discount_percent {
            Some(d) => w.put_i64(i64::from(d)),
            None => w.put(b"null"),
        }
        w.put(br#","created_at_ms":"#);
        w.put_i64(p.created_at_ms);
        w.put(br#","image_url":""#);
        w.put_str(&p.image_url)?;
        w.put(br#""}"#);
    }
    Ok(())
}

#[inline(always)]
#[allow(unsafe_code)]
fn write_variant(v: &Variant, comma: bool, w: &mut Spare<'_>) -> Result<(), Stop> {
    w.check(&[VARIANT_MAX, v.sku.len(), v.color.len(), v.size.len()])?;
    // SAFETY: constants, three strings and two numbers, counting at most
    // VARIANT_MAX and the strings' bytes and reaching at most 7 past.
    unsafe {
        w.put_prefix(b",", usize::from(comma));
        w.put(br#"{"sku":""#);
        w.put_str(&v.sku)?;
        w.put(br#"","color":""#);
        w.put_str(&v.color)?;
        w.put(br#"","size":""#);
        w.put_str(&v.size)?;
        w.put(br#"","price_cents":"#);
        w.put_i64(v.price_cents);
        w.put(br#","stock":"#);
        w.put_i64(i64::from(v.stock));
        w.put(b"}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::number::write_i64;
    use super::*;
    use crate::codec::spare::with_spare;

    #[test]
    fn strings_escape_exactly_rfc_8259_section_7() {
        #[rustfmt::skip]
        let cases = [
            ("", r#""""#), ("plain", r#""plain""#), ("a\"b\\c", r#""a\"b\\c""#),
            ("\n\r\t\u{8}\u{c}", r#""\n\r\t\b\f""#), ("\u{0}\u{7}\u{1f}", r#""\u0000\u0007\u001f""#),
            ("/\u{7f}é😀", "\"/\u{7f}é😀\""), ("0123456789abcdef\"", r#""0123456789abcdef\"""#),
        ];
        for (s, want) in cases {
            let mut out = Vec::new();
            write_str(&mut out, s);
            assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }

    #[test]
    fn non_finite_rating_is_refused_and_out_untouched() {
        for (bad, text) in [(f64::INFINITY, "inf"), (f64::NEG_INFINITY, "-inf"), (f64::NAN, "NaN")] {
            let mut products = crate::fixtures::catalog(3).products;
            products[2].rating = bad;
            let mut out = b"keep".to_vec();
            let err = encode(&products, &mut out).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("rating {text} (JSON numbers are finite) cannot be represented")
            );
            assert_eq!(out, b"keep");
        }
    }

    /// Runs `f` on a [`Spare`] over a fresh buffer after a check for
    /// `room` bytes (with 64 more behind them for what `f` may claim), and
    /// returns what it wrote.
    fn spare_bytes(room: usize, f: impl FnOnce(&mut Spare<'_>) -> Result<(), Stop>) -> Vec<u8> {
        let mut out = Vec::with_capacity(room + SLACK + 64);
        with_spare(&mut out, |w| {
            if w.check(&[room]).is_err() {
                panic!("room");
            }
            if f(w).is_err() {
                panic!("stopped");
            }
            w.keep();
        });
        out
    }

    /// Integers, by the catalog writer and by [`write_i64`]: every value
    /// below 100,000, both signs, every power of ten and its neighbours, the
    /// boundaries, and seeded random bit patterns, against std's formatting.
    #[test]
    #[allow(unsafe_code)]
    fn integers_are_plain_decimal() {
        let mut values: Vec<i64> = (0..100_000).flat_map(|v| [v, -v]).collect();
        values.extend(crate::fixtures::boundary_i64s());
        let mut p = 1i64;
        for _ in 0..19 {
            values.extend([p - 1, p, p + 1, -p, 1 - p]);
            p = p.saturating_mul(10);
        }
        let mut r = crate::prng::Rng::new(0x01D1_6175);
        for _ in 0..100_000 {
            let v = r.next_u64();
            values.extend([v as i64, (v >> (v % 64)) as i64]);
        }
        for v in values {
            // SAFETY: INT_MAX counted bytes, 7 more stored, within the
            // check for INT_MAX plus SLACK.
            let got = spare_bytes(INT_MAX, |w| {
                unsafe { w.put_i64(v) };
                Ok(())
            });
            assert_eq!(String::from_utf8(got).unwrap(), v.to_string());
            let mut plain = Vec::new();
            write_i64(&mut plain, v);
            assert_eq!(String::from_utf8(plain).unwrap(), v.to_string());
            if let Ok(u) = u64::try_from(v) {
                let u = u.wrapping_mul(3) | (1 << 63);
                // SAFETY: as above, 20 digits at most.
                let got = spare_bytes(INT_MAX, |w| {
                    unsafe { w.put_u64(u) };
                    Ok(())
                });
                assert_eq!(String::from_utf8(got).unwrap(), u.to_string());
            }
        }
    }

    /// Ratings: the writer's fast paths and its fallback give exactly
    /// [`write_f64`]'s bytes, over the values its fast paths decide (0,
    /// integers, up to three decimals, either side of 2^53 and 10^9) and
    /// seeded random bit patterns.
    #[test]
    #[allow(unsafe_code)]
    fn ratings_are_spelled_like_write_f64() {
        #[rustfmt::skip]
        let mut values = vec![
            0.0, -0.0, f64::MIN_POSITIVE, f64::MAX, f64::MIN, f64::from_bits(1), 0.1 + 0.2, 1.0 / 3.0,
            9_007_199_254_740_991.0, 9_007_199_254_740_992.0, 9_007_199_254_740_994.0, 999_999_999.999,
            999_999_999.5, 1e9, 1e9 + 0.5, 0.0005, 0.001, 0.0015, 2.675, 1.005,
        ];
        for k in 0..=100_000 {
            values.push(f64::from(k) / 1000.0);
        }
        for k in 0..=2_000 {
            values.push(f64::from(k) / 100.0 + 0.000_1);
        }
        let mut r = crate::prng::Rng::new(0x0AA7_1496);
        for k in 0..100_000 {
            // The general case is slow in debug builds: fewer of those.
            if k % 50 == 0 {
                values.push(f64::from_bits(r.next_u64()));
            }
            values.push(r.unit_f64() * 5.0);
            values.push((r.unit_f64() * 1e9).round() / [10.0, 100.0, 1000.0][r.below(3) as usize]);
        }
        for v in values.into_iter().filter(|v| v.is_finite()) {
            for v in [v, -v] {
                let mut want = Vec::new();
                write_f64(&mut want, v);
                // SAFETY: RATING_MAX counted bytes and 7 more on the fast
                // paths, within the check; the fallback claims its own.
                let got = spare_bytes(RATING_MAX, |w| unsafe { w.put_rating(v) });
                assert_eq!(got, want, "f64 bits {:#018x}", v.to_bits());
            }
        }
    }

    /// `copy_and_scan` copies exactly the source bytes at every length
    /// (each of its paths and their edges), nothing either side, and flags
    /// a marked byte at every position, never a clean string.
    #[test]
    #[allow(unsafe_code)]
    fn copy_and_scan_copies_exactly_and_finds_every_marked_byte() {
        let clean: Vec<u8> = "a/\u{7f}é€😀 #]x".bytes().cycle().take(90).collect();
        for n in 0..=clean.len() {
            let mut strings = vec![clean[..n].to_vec()];
            for at in 0..n {
                for special in [0x00, 0x1f, b'"', b'\\'] {
                    let mut s = clean[..n].to_vec();
                    s[at] = special;
                    strings.push(s);
                }
            }
            for (k, src) in strings.iter().enumerate() {
                let mut dst = [0u8; 100];
                // SAFETY: `dst[2..]` holds 98 >= n bytes and is apart from `src`.
                let hits = unsafe { copy_and_scan(dst.as_mut_ptr().add(2), src) };
                assert_eq!(&dst[2..2 + n], &src[..], "length {n}, string {k}");
                assert!(dst[..2].iter().chain(&dst[2 + n..]).all(|&b| b == 0), "length {n}");
                assert_eq!(hits != 0, k > 0, "length {n}, string {k}");
            }
        }
    }

    /// A product written into spare capacities of every size around its
    /// length and its most-room bound: too small is `Full` (never a panic,
    /// never a partial commit), the bound plus what its escapes add always
    /// fits, and whatever fits is the right bytes. In debug builds every
    /// store also asserts that it stays within the room its section and
    /// escapes claimed.
    #[test]
    fn spare_writer_stops_when_full_and_is_exact_when_not() {
        // The room the product's section checks ask for at most.
        let product_max = |p| spare::product_max(p, [HEAD_MAX, TAG_MAX, DIMENSIONS_MAX, VARIANT_MAX, TAIL_MAX], SLACK);
        // Every capacity near each bound.
        for (i, p) in spare::test_products().iter().enumerate() {
            // What `encode` writes for the product alone, with room to grow
            // (tests/reference_json.rs holds that equal to serde_json's).
            let mut whole = Vec::new();
            encode(std::slice::from_ref(p), &mut whole).unwrap();
            let body = &whole[br#"{"products":["#.len()..whole.len() - 2];
            for comma in [false, true] {
                let want = [&b","[..usize::from(comma)], body].concat();
                let mut general = Vec::new();
                write_f64(&mut general, p.rating);
                // What escapes add (each counted once already) and what
                // the general float path claims on top of its budget.
                let unescaped = [&p.sku, &p.name, &p.description, &p.currency, &p.image_url]
                    .into_iter()
                    .chain(&p.tags)
                    .chain(p.variants.iter().flat_map(|v| [&v.sku, &v.color, &v.size]))
                    .map(|s| s.len() + 2)
                    .sum::<usize>();
                let max = product_max(p) + 6 * unescaped + general.len();
                assert!(max >= want.len() + SLACK);
                let near = |c: usize, x: usize| c.abs_diff(x) < 40;
                // Dense near each bound; between them, about a hundred
                // capacities (every 29th for products up to ~3 KiB of budget).
                let stride = (max / 100).max(29);
                let caps = (0..max + 2).filter(|&c| {
                    c < 64 || near(c, want.len()) || near(c, product_max(p)) || near(c, max) || c % stride == 0
                });
                for cap in caps {
                    let what = format!("product {i}");
                    spare::check_capacity(cap, max, &want, &what, |w| write_product(p, comma, w));
                }
            }
        }
    }
}
