//! HdrHistogram interval logs (`HistogramLogWriter`'s text, each interval a
//! base64 V2 compressed histogram), readable by the HdrHistogram tools.
//!
//! # Wire format
//!
//! ```text
//! #[Histogram log format version 1.3]                     comment lines start with '#'
//! #[StartTime: 1764571200.125 (seconds since epoch)]
//! #[BaseTime: 1764571200.125 (seconds since epoch)]
//! #[MaxValueDivisor: 1000000.000]                           values are ns, Interval_Max is ms
//! "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//! Tag=latency,0.000,5.013,12.582,HISTFAAAAZx4nFVSQU7DQAxs...
//! ```
//!
//! An interval is `[Tag=name,]start,length,max,payload`: start (s after the
//! base time), length (s), max / divisor, and padded base64 (RFC 4648 §4) of:
//!
//! ```text
//! compressed   u32 BE cookie 0x1c849314 | u32 BE n | n bytes: zlib (RFC 1950) of ↓
//! uncompressed u32 BE cookie 0x1c849313 | u32 BE payload length
//!              u32 BE normalizing index offset (0) | u32 BE significant digits
//!              u64 BE lowest discernible value | u64 BE highest trackable value
//!              f64 BE integer-to-double ratio (1.0)                     = 40 bytes
//!              payload: a ZigZag varint per slot up to the last non-zero one;
//!              k ≥ 2 zero slots in a row are the single value -k
//! varint       LEB128, low group first, at most 9 bytes (the 9th holds 8 bits)
//! ```
//!
//! The counts array is HdrHistogram's ([`Layout`]): with `s =
//! 2^ceil(log2(2·10^digits))` sub-buckets, values below `s` (in units of the
//! lowest value) have slots of width 1; above, each power of two holds `s/2`.
//!
//! # Error added, and hostile input
//!
//! [`to_hdr`] records each of our buckets (≤ 1/128 of the value wide) at its
//! midpoint, clamped to the exact min and max, into 1 ns … 2^40 ns at 3 digits
//! (slots ≤ 1/1024): a value read back is within 0.5 % of the one measured;
//! [`Hdr::to_histogram`] adds at most half of our bucket again. Reading checks
//! every length against what remains, caps inflating at what the header's
//! layout allows (and [`MAX_INFLATED`]), and keeps counts sparse.

use super::histogram::{Histogram, MAX_TRACKABLE};
use std::fmt::{self, Write as _};

/// Cookie of a V2 histogram (HdrHistogram `V2EncodingCookieBase` | 0x10).
pub const V2_COOKIE: u32 = 0x1c84_9313;
/// Cookie of a V2 compressed histogram (`V2CompressedEncodingCookieBase` | 0x10).
pub const V2_COMPRESSED_COOKIE: u32 = 0x1c84_9314;
/// Bytes of the uncompressed header.
pub const V2_HEADER_LEN: usize = 40;
/// Most bytes one interval may inflate to (the cap of the hostile-input
/// rule). Our logs need at most 40 + 9 × 32,768 bytes (3 digits, 1 ns … 2^40 ns);
/// 16 MiB also holds 5-digit histograms of wide ranges.
pub const MAX_INFLATED: usize = 16 << 20;
/// Significant digits of the logs we write.
pub const SIGNIFICANT_DIGITS: u8 = 3;
/// Values in our logs are ns; `Interval_Max` is written in ms, as Java's
/// `HistogramLogWriter` does by default.
pub const MAX_VALUE_DIVISOR: f64 = 1e6;
/// The column legend line.
pub const LEGEND: &str = "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"";

/// What went wrong reading a log or a histogram: the line (1-based; 0 for a
/// bare payload), what was expected and what was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HlogError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for HlogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

fn bad(message: impl Into<String>) -> HlogError {
    HlogError {
        line: 0,
        message: message.into(),
    }
}

/// HdrHistogram's counts-array layout for (lowest, highest, significant digits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub lowest: u64,
    pub highest: u64,
    pub digits: u8,
    unit_magnitude: u32,
    sub_bucket_half_count_magnitude: u32,
    sub_bucket_half_count: u64,
    sub_bucket_mask: u64,
    leading_zero_count_base: u32,
    /// Slots in the counts array.
    pub len: usize,
}

impl Layout {
    /// The layout HdrHistogram builds for these bounds, or why there is none
    /// (the same rules as its constructor).
    pub fn new(lowest: u64, highest: u64, digits: u8) -> Result<Layout, HlogError> {
        if lowest == 0 || lowest > u64::MAX / 2 || highest < 2 * lowest || digits > 5 {
            return Err(bad(format!(
                "expected lowest ≥ 1, highest ≥ 2·lowest and 0..=5 significant digits, \
                 found lowest {lowest}, highest {highest}, digits {digits}"
            )));
        }
        let largest_exact = 2 * 10u64.pow(u32::from(digits));
        let sub_bucket_count_magnitude = 64 - (largest_exact - 1).leading_zeros(); // ceil(log2)
        let unit_magnitude = 63 - lowest.leading_zeros(); // floor(log2)
        if unit_magnitude + sub_bucket_count_magnitude > 63 {
            return Err(bad(format!(
                "{digits} significant digits above a lowest value of {lowest} do not fit 64 bits"
            )));
        }
        let sub_bucket_count = 1u64 << sub_bucket_count_magnitude;
        // Buckets needed so that `highest` is below the last one's top.
        let mut untrackable = sub_bucket_count << unit_magnitude;
        let mut buckets = 1u64;
        while untrackable <= highest {
            if untrackable > u64::MAX / 2 {
                buckets += 1;
                break;
            }
            untrackable <<= 1;
            buckets += 1;
        }
        let len = usize::try_from((buckets + 1) * (sub_bucket_count / 2)).map_err(|_| bad("counts array too large"))?;
        Ok(Layout {
            lowest,
            highest,
            digits,
            unit_magnitude,
            sub_bucket_half_count_magnitude: sub_bucket_count_magnitude - 1,
            sub_bucket_half_count: sub_bucket_count / 2,
            sub_bucket_mask: (sub_bucket_count - 1) << unit_magnitude,
            leading_zero_count_base: 64 - unit_magnitude - sub_bucket_count_magnitude,
            len,
        })
    }

    /// The layout of the logs we write: 1 ns … 2^40 ns, 3 digits.
    pub fn ours() -> Layout {
        Layout::new(1, MAX_TRACKABLE, SIGNIFICANT_DIGITS).expect("valid constant bounds")
    }

    fn bucket_of(&self, v: u64) -> u32 {
        self.leading_zero_count_base - (v | self.sub_bucket_mask).leading_zeros()
    }

    /// The slot of value `v` (values above `highest` land past `len`).
    pub fn index_of(&self, v: u64) -> usize {
        let bucket = self.bucket_of(v);
        let sub = v >> (bucket + self.unit_magnitude);
        let base = (u64::from(bucket) + 1) << self.sub_bucket_half_count_magnitude;
        (base + sub - self.sub_bucket_half_count) as usize
    }

    /// `(lowest value, width)` of slot `i`; `None` past the array.
    pub fn slot(&self, i: usize) -> Option<(u64, u64)> {
        if i >= self.len {
            return None;
        }
        let i = i as u64;
        let mut bucket = (i >> self.sub_bucket_half_count_magnitude) as i64 - 1;
        let mut sub = (i & (self.sub_bucket_half_count - 1)) + self.sub_bucket_half_count;
        if bucket < 0 {
            sub -= self.sub_bucket_half_count;
            bucket = 0;
        }
        let shift = bucket as u32 + self.unit_magnitude;
        let low = sub.checked_shl(shift).filter(|l| l >> shift == sub)?;
        Some((low, 1u64 << shift))
    }
}

/// One decoded histogram: its layout and its non-zero slots, ascending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hdr {
    pub layout: Layout,
    /// `(slot index, count)`, ascending by index, counts > 0.
    pub counts: Vec<(usize, u64)>,
}

impl Hdr {
    /// Our histogram of the same values: each slot's count at its middle value.
    pub fn to_histogram(&self) -> Histogram {
        let mut h = Histogram::new();
        for &(i, c) in &self.counts {
            if let Some((low, width)) = self.layout.slot(i) {
                h.record_n(low.saturating_add(width / 2), c);
            }
        }
        h
    }
}

/// Our histogram in our log layout ([`Layout::ours`]), as the module doc says.
pub fn to_hdr(h: &Histogram) -> Hdr {
    let layout = Layout::ours();
    let mut counts: Vec<(usize, u64)> = Vec::new();
    for (low, high, c) in h.buckets() {
        let mid = (low + (high - low - 1) / 2).clamp(h.min(), h.max()).min(layout.highest);
        let i = layout.index_of(mid);
        match counts.last_mut() {
            Some((last, n)) if *last == i => *n += c,
            _ => counts.push((i, c)),
        }
    }
    Hdr { layout, counts }
}

/// ZigZag (`0, -1, 1, -2, …` → `0, 1, 2, 3, …`).
fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

fn unzigzag(z: u64) -> i64 {
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

/// HdrHistogram's varint: 7 bits a byte, low first, at most 9 bytes.
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    for _ in 0..8 {
        if v < 0x80 {
            out.push(v as u8);
            return;
        }
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8); // the 9th byte: the top 8 bits whole
}

fn get_varint(bytes: &[u8], pos: &mut usize) -> Result<u64, HlogError> {
    let mut v = 0u64;
    for k in 0..9 {
        let Some(&b) = bytes.get(*pos) else {
            return Err(bad(format!(
                "expected a varint byte at payload byte {pos}, found the end"
            )));
        };
        *pos += 1;
        if k == 8 {
            return Ok(v | (u64::from(b) << 56));
        }
        v |= u64::from(b & 0x7f) << (7 * k);
        if b < 0x80 {
            return Ok(v);
        }
    }
    Ok(v)
}

/// The uncompressed V2 encoding of `hdr`.
pub fn encode_v2(hdr: &Hdr) -> Vec<u8> {
    let mut payload = Vec::new();
    let mut next = 0usize; // the next slot index to write
    for &(i, c) in &hdr.counts {
        match i - next {
            0 => {}
            1 => payload.push(0), // a single zero is written as itself
            k => put_varint(&mut payload, zigzag(-(k as i64))),
        }
        put_varint(&mut payload, zigzag(i64::try_from(c).unwrap_or(i64::MAX)));
        next = i + 1;
    }
    let l = &hdr.layout;
    let mut out = Vec::with_capacity(V2_HEADER_LEN + payload.len());
    out.extend_from_slice(&V2_COOKIE.to_be_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(&0u32.to_be_bytes()); // normalizing index offset
    out.extend_from_slice(&u32::from(l.digits).to_be_bytes());
    out.extend_from_slice(&l.lowest.to_be_bytes());
    out.extend_from_slice(&l.highest.to_be_bytes());
    out.extend_from_slice(&1.0f64.to_bits().to_be_bytes()); // integer-to-double ratio
    out.extend_from_slice(&payload);
    out
}

/// The V2 compressed encoding of `hdr` (zlib at level 6).
pub fn encode_v2_compressed(hdr: &Hdr) -> Vec<u8> {
    let zlib = miniz_oxide::deflate::compress_to_vec_zlib(&encode_v2(hdr), 6);
    let mut out = Vec::with_capacity(8 + zlib.len());
    out.extend_from_slice(&V2_COMPRESSED_COOKIE.to_be_bytes());
    out.extend_from_slice(&(zlib.len() as u32).to_be_bytes());
    out.extend_from_slice(&zlib);
    out
}

/// The `N`-byte big-endian integer at `at`.
fn be<const N: usize>(b: &[u8], at: usize) -> Result<u64, HlogError> {
    let s: [u8; N] = b.get(at..at + N).and_then(|s| s.try_into().ok()).ok_or_else(|| {
        bad(format!(
            "expected {N} bytes at byte {at}, found {}",
            b.len().saturating_sub(at)
        ))
    })?;
    Ok(s.iter().fold(0, |v, &x| v << 8 | u64::from(x)))
}

fn be_u32(b: &[u8], at: usize) -> Result<u32, HlogError> {
    be::<4>(b, at).map(|v| v as u32)
}

/// Decodes a V2 or V2 compressed histogram.
pub fn decode(bytes: &[u8]) -> Result<Hdr, HlogError> {
    match be_u32(bytes, 0)? {
        V2_COOKIE => decode_v2(bytes),
        V2_COMPRESSED_COOKIE => {
            let n = be_u32(bytes, 4)? as usize;
            let zlib = bytes
                .get(8..)
                .filter(|z| z.len() >= n)
                .map(|z| &z[..n])
                .ok_or_else(|| {
                    bad(format!(
                        "compressed length {n} exceeds the {} bytes present",
                        bytes.len() - 8
                    ))
                })?;
            // Inflate only the header first, to learn the largest payload its layout allows.
            let head = inflate(zlib, V2_HEADER_LEN)?;
            let layout = header_layout(&head)?;
            let cap = (V2_HEADER_LEN + 9 * layout.len).min(MAX_INFLATED);
            let inner = inflate(zlib, cap)?;
            match be_u32(&inner, 0)? {
                V2_COOKIE => decode_v2(&inner),
                other => Err(bad(format!(
                    "expected the V2 cookie 0x{V2_COOKIE:08x} inside the compressed histogram, found 0x{other:08x}"
                ))),
            }
        }
        other => Err(bad(format!(
            "expected cookie 0x{V2_COOKIE:08x} (V2) or 0x{V2_COMPRESSED_COOKIE:08x} (V2 compressed), found 0x{other:08x}"
        ))),
    }
}

/// Inflates a zlib stream, keeping at most `limit` bytes (a prefix when it is longer).
fn inflate(zlib: &[u8], limit: usize) -> Result<Vec<u8>, HlogError> {
    use miniz_oxide::inflate::{TINFLStatus, decompress_to_vec_zlib_with_limit};
    match decompress_to_vec_zlib_with_limit(zlib, limit) {
        Ok(v) => Ok(v),
        Err(e) if e.status == TINFLStatus::HasMoreOutput => Ok(e.output),
        Err(e) => Err(bad(format!(
            "the histogram's zlib stream does not inflate: {:?}",
            e.status
        ))),
    }
}

fn header_layout(b: &[u8]) -> Result<Layout, HlogError> {
    let offset = be_u32(b, 8)?;
    if offset != 0 {
        return Err(bad(format!("expected normalizing index offset 0, found {offset}")));
    }
    let digits = u8::try_from(be_u32(b, 12)?).unwrap_or(u8::MAX);
    Layout::new(be::<8>(b, 16)?, be::<8>(b, 24)?, digits)
}

fn decode_v2(b: &[u8]) -> Result<Hdr, HlogError> {
    let layout = header_layout(b)?;
    let n = be_u32(b, 4)? as usize;
    let payload = b
        .get(V2_HEADER_LEN..)
        .filter(|p| p.len() >= n)
        .map(|p| &p[..n])
        .ok_or_else(|| bad(format!("payload length {n} exceeds the bytes present")))?;
    let mut counts = Vec::new();
    let (mut pos, mut index) = (0usize, 0usize);
    while pos < payload.len() {
        let at = pos;
        let v = unzigzag(get_varint(payload, &mut pos)?);
        if v < 0 {
            index = usize::try_from(v.unsigned_abs())
                .ok()
                .and_then(|k| index.checked_add(k))
                .filter(|&i| i <= layout.len)
                .ok_or_else(|| {
                    bad(format!(
                        "a run of {} zeros at payload byte {at} passes the end of the counts array ({} slots)",
                        v.unsigned_abs(),
                        layout.len
                    ))
                })?;
            continue;
        }
        if index >= layout.len {
            return Err(bad(format!(
                "count at payload byte {at} is for slot {index}, past the {} slots of the layout",
                layout.len
            )));
        }
        if v > 0 {
            counts.push((index, v as u64));
        }
        index += 1;
    }
    Ok(Hdr { layout, counts })
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Base64 with padding (RFC 4648 §4).
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes padded base64 (RFC 4648 §4); the error names the offending offset.
pub fn base64_decode(text: &str) -> Result<Vec<u8>, HlogError> {
    let t = text.as_bytes();
    if t.len() % 4 != 0 {
        return Err(bad(format!(
            "expected base64 in groups of 4 characters, found {} characters",
            t.len()
        )));
    }
    let mut out = Vec::with_capacity(t.len() / 4 * 3);
    for (g, group) in t.chunks(4).enumerate() {
        let last = g + 1 == t.len() / 4;
        let pad = if last {
            group.iter().rev().take_while(|&&c| c == b'=').count()
        } else {
            0
        };
        if pad > 2 {
            return Err(bad(format!("too much '=' padding at character {}", 4 * g)));
        }
        let mut n = 0u32;
        for (k, &c) in group.iter().enumerate() {
            let v = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                b'=' if k >= 4 - pad => 0,
                _ => {
                    return Err(bad(format!(
                        "expected a base64 character at character {}, found {:?}",
                        4 * g + k,
                        c as char
                    )));
                }
            };
            n = (n << 6) | u32::from(v);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Ok(out)
}

/// One interval of a log.
#[derive(Debug, Clone, PartialEq)]
pub struct Interval {
    pub tag: Option<String>,
    /// Seconds after the base time.
    pub start_s: f64,
    pub length_s: f64,
    /// The `Interval_Max` column (the max divided by the log's divisor).
    pub max: f64,
    pub hdr: Hdr,
}

/// A whole log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Log {
    /// `#[StartTime: …]`, seconds since the epoch.
    pub start_time: Option<f64>,
    /// `#[BaseTime: …]`, seconds since the epoch.
    pub base_time: Option<f64>,
    pub intervals: Vec<Interval>,
}

/// One interval to write: tag, times (s), our histogram.
#[derive(Debug, Clone, Copy)]
pub struct WriteInterval<'a> {
    pub tag: &'a str,
    pub start_s: f64,
    pub length_s: f64,
    pub histogram: &'a Histogram,
}

/// The log text: `comments` (one `#` line each), the version, start and
/// base time (both `start_time`, seconds since the epoch), the divisor, the
/// legend, then one line per interval.
pub fn write_log(comments: &[String], start_time: f64, intervals: &[WriteInterval<'_>]) -> String {
    let mut s = String::new();
    for c in comments {
        for line in c.lines() {
            let _ = writeln!(s, "#{line}");
        }
    }
    let _ = writeln!(s, "#[Histogram log format version 1.3]");
    let _ = writeln!(s, "#[StartTime: {start_time:.3} (seconds since epoch)]");
    let _ = writeln!(s, "#[BaseTime: {start_time:.3} (seconds since epoch)]");
    let _ = writeln!(s, "#[MaxValueDivisor: {MAX_VALUE_DIVISOR:.3}]");
    let _ = writeln!(s, "{LEGEND}");
    for iv in intervals {
        let payload = base64_encode(&encode_v2_compressed(&to_hdr(iv.histogram)));
        let _ = writeln!(
            s,
            "Tag={},{:.3},{:.3},{:.3},{payload}",
            iv.tag,
            iv.start_s,
            iv.length_s,
            iv.histogram.max() as f64 / MAX_VALUE_DIVISOR
        );
    }
    s
}

/// Reads a log: comments and the legend are skipped, `#[StartTime: ` and
/// `#[BaseTime: ` read, every other line must be an interval.
pub fn read_log(text: &str) -> Result<Log, HlogError> {
    let mut log = Log::default();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        let at = |e: HlogError| HlogError {
            line: n + 1,
            message: e.message,
        };
        let seconds = |rest: &str, what: &str| -> Result<f64, HlogError> {
            let num = rest.split_whitespace().next().unwrap_or("");
            num.parse::<f64>()
                .map_err(|_| at(bad(format!("{what}: expected seconds since the epoch, found {num:?}"))))
        };
        if let Some(rest) = line.strip_prefix("#[StartTime: ") {
            log.start_time = Some(seconds(rest, "StartTime")?);
        } else if let Some(rest) = line.strip_prefix("#[BaseTime: ") {
            log.base_time = Some(seconds(rest, "BaseTime")?);
        } else if line.starts_with('#') || line.starts_with("\"StartTimestamp\"") || line.trim().is_empty() {
            continue;
        } else {
            log.intervals.push(interval(line).map_err(at)?);
        }
    }
    Ok(log)
}

fn interval(line: &str) -> Result<Interval, HlogError> {
    let (tag, rest) = match line.strip_prefix("Tag=") {
        Some(r) => {
            let (t, rest) = r.split_once(',').ok_or_else(|| bad("expected ',' after the tag"))?;
            (Some(t.to_string()), rest)
        }
        None => (None, line),
    };
    let fields: Vec<&str> = rest.splitn(4, ',').collect();
    let [start, length, max, payload] = fields[..] else {
        return Err(bad(format!(
            "expected start,length,max,histogram after the tag, found {} fields",
            fields.len()
        )));
    };
    let num = |s: &str, what: &str| {
        s.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| bad(format!("{what}: expected a number, found {s:?}")))
    };
    Ok(Interval {
        tag,
        start_s: num(start, "start")?,
        length_s: num(length, "length")?,
        max: num(max, "max")?,
        hdr: decode(&base64_decode(payload.trim())?)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_zigzag() {
        for v in [0u64, 1, 127, 128, 300, 1 << 56, u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert!(out.len() <= 9);
            let mut pos = 0;
            assert_eq!(get_varint(&out, &mut pos).unwrap(), v);
            assert_eq!(pos, out.len());
        }
        let mut out = Vec::new();
        put_varint(&mut out, 300);
        assert_eq!(out, [0xac, 0x02]);
        for n in [0i64, -1, 1, -2, i64::MAX, i64::MIN] {
            assert_eq!(unzigzag(zigzag(n)), n);
        }
        assert_eq!(zigzag(-3), 5);
    }

    #[test]
    fn base64_round_trip() {
        for s in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let e = base64_encode(s.as_bytes());
            assert_eq!(base64_decode(&e).unwrap(), s.as_bytes());
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert!(base64_decode("Zm9v!mFy").unwrap_err().message.contains("character 4"));
        assert!(base64_decode("Zm=v").is_err());
    }

    #[test]
    fn our_histogram_survives_within_half_a_percent() {
        let mut h = Histogram::new();
        for v in (1..=20_000u64).map(|i| i * 7_919 % 5_000_000 + 100) {
            h.record(v);
        }
        let text = write_log(
            &["wirebench test".to_string()],
            1_764_571_200.125,
            &[WriteInterval {
                tag: "latency",
                start_s: 0.0,
                length_s: 1.0,
                histogram: &h,
            }],
        );
        let log = read_log(&text).unwrap();
        assert_eq!(log.start_time, Some(1_764_571_200.125));
        assert_eq!(log.intervals.len(), 1);
        let back = log.intervals[0].hdr.to_histogram();
        assert_eq!(back.count(), h.count());
        for q in [0.01, 0.5, 0.9, 0.99, 0.999, 1.0] {
            let (a, b) = (h.value_at_quantile(q) as f64, back.value_at_quantile(q) as f64);
            assert!((a - b).abs() <= a * 0.005 + 1.0, "q {q}: {a} vs {b}");
        }
    }

    #[test]
    fn hostile_payloads_are_errors() {
        let mut h = Histogram::new();
        h.record(1000);
        let good = encode_v2_compressed(&to_hdr(&h));
        for cut in 0..good.len() {
            assert!(decode(&good[..cut]).is_err(), "truncated at {cut}");
        }
        let mut big_run = encode_v2(&to_hdr(&h));
        big_run.truncate(V2_HEADER_LEN);
        let mut payload = Vec::new();
        put_varint(&mut payload, zigzag(-(1i64 << 40)));
        put_varint(&mut payload, 2);
        big_run[4..8].copy_from_slice(&(payload.len() as u32).to_be_bytes());
        big_run.extend_from_slice(&payload);
        assert!(decode(&big_run).unwrap_err().message.contains("passes the end"));
        assert!(
            decode(&[0xde, 0xad, 0xbe, 0xef])
                .unwrap_err()
                .message
                .contains("found 0xdeadbeef")
        );
    }

    #[test]
    fn every_byte_flip_decodes_or_errs() {
        let mut h = Histogram::new();
        for v in [5u64, 300, 2_500, 70_000, 1_000_000, 3_000_000_000] {
            h.record_n(v, v % 7 + 1);
        }
        let hdr = to_hdr(&h);
        for good in [encode_v2(&hdr), encode_v2_compressed(&hdr)] {
            for i in 0..good.len() {
                for flip in [0x01u8, 0x80, 0xff] {
                    let mut bad = good.clone();
                    bad[i] ^= flip;
                    if let Ok(d) = decode(&bad) {
                        assert!(d.counts.iter().all(|&(i, c)| i < d.layout.len && c > 0));
                    }
                }
            }
        }
    }
}
