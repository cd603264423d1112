//! gzip (RFC 1952) framing written by us around miniz_oxide's raw deflate.
//!
//! # Wire format
//!
//! A gzip member is a 10-byte header, optional header fields, a raw deflate
//! stream (RFC 1951) and an 8-byte trailer. Multi-byte integers are little-endian.
//!
//! ```text
//! offset  bytes        field
//! 0       1f 8b        ID1 ID2: magic
//! 2       08           CM: 8 = deflate (the only method defined)
//! 3       00           FLG: FTEXT=0x01 FHCRC=0x02 FEXTRA=0x04 FNAME=0x08 FCOMMENT=0x10; 0xE0 reserved, must be 0
//! 4       00 00 00 00  MTIME: 0 = no time stamp (keeps our output reproducible)
//! 8       00           XFL: 2 = slowest/best compression, 4 = fastest, else 0
//! 9       ff           OS: 255 = unknown
//! [FEXTRA]  XLEN (2 bytes) then XLEN bytes
//! [FNAME]   zero-terminated file name
//! [FCOMMENT] zero-terminated comment
//! [FHCRC]   2 bytes: low 16 bits of the CRC-32 of the header bytes before it
//! 10…     raw deflate stream
//! n-8     CRC32        CRC-32/IEEE of the uncompressed data (see [`crate::crc32`])
//! n-4     ISIZE        uncompressed length modulo 2^32
//! ```
//!
//! Our writer always emits the bare 10-byte header (`FLG` = 0, `MTIME` = 0,
//! `OS` = 255 "unknown": the bytes do not depend on the machine that wrote
//! them, so golden sizes are stable). For example the empty input at level 6
//! is 20 bytes: `1f 8b 08 00 00 00 00 00 00 ff`, the deflate stream `03 00`
//! (one empty final fixed-Huffman block), CRC32 `00 00 00 00`, ISIZE `00 00 00 00`.
//!
//! The reader ([`decompress`]) accepts every header field a conforming writer
//! may set, bounds-checks each of them, checks FHCRC when present, inflates
//! knowing exactly where the deflate stream ends, and checks CRC32 and ISIZE.
//! **Concatenated members** are accepted as RFC 1952 §2.2 allows ("a gzip file
//! consists of a series of members"), each fully checked, their outputs
//! concatenated (as `gunzip` does). Any other byte after a member — one that
//! does not start a new `1f 8b` member — is an error, as is an empty input.
//! Output is capped by `max_output` over all members together, so a gzip bomb
//! is an error, never an unbounded allocation.

use crate::crc32::{self, Crc32};
use miniz_oxide::deflate::core::{
    CompressorOxide, TDEFLFlush, TDEFLStatus, compress_to_output, create_comp_flags_from_zip_params,
};
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress as inflate, inflate_flags};
use std::fmt;

/// Default compression level (what docs/SPEC.md, "Sizes", and the server's `compression=gzip` use).
pub const DEFAULT_LEVEL: u8 = 6;
/// Highest miniz_oxide level (10 = "uber", slower than zlib's 9); higher values are treated as 10.
pub const MAX_LEVEL: u8 = 10;

const ID1: u8 = 0x1f;
const ID2: u8 = 0x8b;
const CM_DEFLATE: u8 = 8;
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
const FLG_RESERVED: u8 = 0xE0;
const XFL_BEST: u8 = 2;
const XFL_FASTEST: u8 = 4;
const OS_UNKNOWN: u8 = 255;
const HEADER_LEN: usize = 10;
const TRAILER_LEN: usize = 8;
/// Deflate cannot expand more than 1032:1 (a 258-byte match coded in 2 bits),
/// which bounds how far a claimed ISIZE may be trusted as a size hint.
const MAX_DEFLATE_RATIO: usize = 1032;

/// Appends one gzip member holding `data`, compressed at `level` (0 = stored
/// blocks, 1 = fastest … 9 = best, 10 = miniz's slowest), to `out`.
/// For many members in a row, reuse a [`Compressor`] instead.
pub fn compress(data: &[u8], level: u8, out: &mut Vec<u8>) {
    Compressor::new(level).compress(data, out);
}

/// A gzip writer whose deflate state is allocated once and reset per member.
///
/// miniz_oxide's `CompressorOxide` is large (a 64 KiB LZ buffer inline plus
/// boxed hash chains and Huffman tables, ~300 KiB in all): creating one costs
/// more than compressing a small body, and it does not belong on a small
/// worker stack. So it is boxed on first use and reset for every later member;
/// the output is byte-identical to a fresh one (tested).
pub struct Compressor {
    level: u8,
    deflate: Option<Box<CompressorOxide>>,
}

/// A writer at [`DEFAULT_LEVEL`].
impl Default for Compressor {
    fn default() -> Compressor {
        Compressor::new(DEFAULT_LEVEL)
    }
}

impl fmt::Debug for Compressor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Compressor")
            .field("level", &self.level)
            .field("allocated", &self.deflate.is_some())
            .finish()
    }
}

impl Compressor {
    /// A writer at `level` (clamped to [`MAX_LEVEL`]); nothing is allocated yet.
    pub fn new(level: u8) -> Compressor {
        Compressor {
            level: level.min(MAX_LEVEL),
            deflate: None,
        }
    }

    /// Changes the level (clamped to [`MAX_LEVEL`]) of the members written
    /// from now on; the allocated state is kept.
    pub fn set_level(&mut self, level: u8) {
        let level = level.min(MAX_LEVEL);
        if level != self.level {
            self.level = level;
            if let Some(d) = &mut self.deflate {
                d.set_compression_level_raw(level);
            }
        }
    }

    /// Appends one gzip member holding `data` to `out`.
    pub fn compress(&mut self, data: &[u8], out: &mut Vec<u8>) {
        let level = self.level;
        let deflate = match &mut self.deflate {
            Some(d) => {
                d.reset();
                d
            }
            None => {
                // window_bits 0 = raw deflate (no zlib header); strategy 0 = default.
                let flags = create_comp_flags_from_zip_params(i32::from(level), 0, 0);
                self.deflate.insert(Box::new(CompressorOxide::new(flags)))
            }
        };
        let xfl = match level {
            1 => XFL_FASTEST,
            9.. => XFL_BEST,
            _ => 0,
        };
        out.reserve(HEADER_LEN + data.len() / 4 + TRAILER_LEN + 64);
        out.extend_from_slice(&[ID1, ID2, CM_DEFLATE, 0, 0, 0, 0, 0, xfl, OS_UNKNOWN]);
        let (status, _) = compress_to_output(deflate, data, TDEFLFlush::Finish, |chunk| {
            out.extend_from_slice(chunk);
            true
        });
        // With all input given and a sink that never refuses, miniz always finishes.
        assert_eq!(status, TDEFLStatus::Done, "miniz_oxide deflate did not finish");
        out.extend_from_slice(&crc32::crc32(data).to_le_bytes());
        // ISIZE is the length modulo 2^32 by definition (RFC 1952 §2.3.1).
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    }
}

/// Decompresses `data` (one or more gzip members) into a new vector of at most
/// `max_output` bytes. See the module doc for what is checked.
pub fn decompress(data: &[u8], max_output: usize) -> Result<Vec<u8>, GzipError> {
    let mut out = Vec::new();
    decompress_into(data, max_output, &mut out)?;
    Ok(out)
}

/// Like [`decompress`] but appends to `out` (clear it to reuse its allocation).
/// `max_output` caps the bytes appended. On error `out` is restored to its
/// original length.
pub fn decompress_into(data: &[u8], max_output: usize, out: &mut Vec<u8>) -> Result<(), GzipError> {
    let start = out.len();
    let result = decompress_members(data, max_output, out, start);
    if result.is_err() {
        out.truncate(start);
    }
    result
}

fn decompress_members(data: &[u8], max_output: usize, out: &mut Vec<u8>, start: usize) -> Result<(), GzipError> {
    if data.is_empty() {
        return Err(GzipError::new(
            0,
            GzipErrorKind::Truncated {
                expected: "gzip header",
            },
        ));
    }
    // The last 4 bytes claim the size of the (last) member: a size hint only,
    // bounded by what deflate can produce and by max_output.
    let isize_hint = match data.len().checked_sub(4) {
        Some(at) => u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]) as usize,
        None => 0,
    };
    let mut pos = 0;
    while pos < data.len() {
        if pos > 0 && !data[pos..].starts_with(&[ID1, ID2]) {
            return Err(GzipError::new(
                pos,
                GzipErrorKind::TrailingBytes {
                    count: data.len() - pos,
                },
            ));
        }
        let produced = out.len() - start;
        pos = member(data, pos, max_output - produced, max_output, isize_hint, out)?;
    }
    Ok(())
}

/// Reads the member at `data[pos..]`, appends at most `limit` bytes to `out`,
/// returns the offset just after the member's trailer.
fn member(
    data: &[u8],
    mut pos: usize,
    limit: usize,
    max_output: usize,
    isize_hint: usize,
    out: &mut Vec<u8>,
) -> Result<usize, GzipError> {
    let member_start = pos;
    let header = take(data, &mut pos, HEADER_LEN, "10-byte gzip header")?;
    if header[..2] != [ID1, ID2] {
        return Err(GzipError::new(
            member_start,
            GzipErrorKind::BadMagic {
                found: [header[0], header[1]],
            },
        ));
    }
    if header[2] != CM_DEFLATE {
        return Err(GzipError::new(
            member_start + 2,
            GzipErrorKind::UnsupportedMethod { cm: header[2] },
        ));
    }
    let flg = header[3];
    if flg & FLG_RESERVED != 0 {
        return Err(GzipError::new(member_start + 3, GzipErrorKind::ReservedFlags { flg }));
    }
    if flg & FEXTRA != 0 {
        let xlen = take(data, &mut pos, 2, "FEXTRA length XLEN")?;
        let xlen = u16::from_le_bytes([xlen[0], xlen[1]]);
        take(data, &mut pos, usize::from(xlen), "FEXTRA field (XLEN bytes)")?;
    }
    if flg & FNAME != 0 {
        skip_zero_terminated(data, &mut pos, "zero byte ending FNAME")?;
    }
    if flg & FCOMMENT != 0 {
        skip_zero_terminated(data, &mut pos, "zero byte ending FCOMMENT")?;
    }
    if flg & FHCRC != 0 {
        let computed = crc32::crc32(&data[member_start..pos]) as u16;
        let at = pos;
        let stored = take(data, &mut pos, 2, "FHCRC header CRC-16")?;
        let stored = u16::from_le_bytes([stored[0], stored[1]]);
        if stored != computed {
            return Err(GzipError::new(
                at,
                GzipErrorKind::HeaderCrcMismatch { stored, computed },
            ));
        }
    }

    let deflate_start = pos;
    let out_start = out.len();
    let bound = (data.len() - deflate_start).saturating_mul(MAX_DEFLATE_RATIO);
    let hint = if isize_hint <= bound { isize_hint } else { 0 };
    let consumed = inflate_raw(&data[deflate_start..], deflate_start, limit, max_output, hint, out)?;
    pos = deflate_start + consumed;

    let trailer_at = pos;
    let trailer = take(data, &mut pos, TRAILER_LEN, "8-byte gzip trailer (CRC32, ISIZE)")?;
    let stored_crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let stored_size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
    let mut h = Crc32::new();
    h.update(&out[out_start..]);
    let computed = h.finish();
    if stored_crc != computed {
        return Err(GzipError::new(
            trailer_at,
            GzipErrorKind::CrcMismatch {
                stored: stored_crc,
                computed,
            },
        ));
    }
    let actual = (out.len() - out_start) as u32; // modulo 2^32, like ISIZE
    if stored_size != actual {
        return Err(GzipError::new(
            trailer_at + 4,
            GzipErrorKind::SizeMismatch {
                stored: stored_size,
                actual,
            },
        ));
    }
    Ok(pos)
}

/// Inflates the raw deflate stream at the start of `input` (which sits at
/// `base` in the whole payload), appending at most `limit` bytes to `out`.
/// Returns how many input bytes the stream occupied: miniz_oxide gives back
/// whole bytes it read ahead into its bit buffer, so this is exact.
fn inflate_raw(
    input: &[u8],
    base: usize,
    limit: usize,
    max_output: usize,
    hint: usize,
    out: &mut Vec<u8>,
) -> Result<usize, GzipError> {
    // The whole member's output stays in one slice so back-references (up to
    // 32 KiB) can reach it; it never reaches a previous member's output.
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let out_start = out.len();
    // One byte beyond the limit lets us tell "exactly limit bytes" from "more".
    let cap = limit.saturating_add(1);
    let mut size = hint.saturating_add(1).max(input.len().saturating_mul(4)).clamp(1, cap);
    out.resize(out_start + size, 0);
    let mut state = Box::<DecompressorOxide>::default();
    let (mut in_pos, mut out_pos) = (0usize, 0usize);
    loop {
        let rest = input.get(in_pos..).unwrap_or_default();
        let (status, read, written) = inflate(&mut state, rest, &mut out[out_start..], out_pos, flags);
        in_pos += read;
        out_pos += written;
        match status {
            TINFLStatus::Done => break,
            TINFLStatus::HasMoreOutput if size < cap => {
                size = size.saturating_mul(2).min(cap);
                out.resize(out_start + size, 0);
            }
            TINFLStatus::HasMoreOutput => {
                return Err(GzipError::new(base + in_pos, GzipErrorKind::TooLarge { max_output }));
            }
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
                return Err(GzipError::new(
                    base + in_pos,
                    GzipErrorKind::Truncated {
                        expected: "more deflate data (the stream ends before its final block)",
                    },
                ));
            }
            _ => return Err(GzipError::new(base + in_pos, GzipErrorKind::Deflate)),
        }
    }
    if out_pos > limit {
        return Err(GzipError::new(base + in_pos, GzipErrorKind::TooLarge { max_output }));
    }
    out.truncate(out_start + out_pos);
    Ok(in_pos)
}

/// Takes `n` bytes at `*pos` or reports what was being read.
fn take<'a>(data: &'a [u8], pos: &mut usize, n: usize, expected: &'static str) -> Result<&'a [u8], GzipError> {
    match data.get(*pos..).and_then(|rest| rest.get(..n)) {
        Some(s) => {
            *pos += n;
            Ok(s)
        }
        None => Err(GzipError::new(data.len(), GzipErrorKind::Truncated { expected })),
    }
}

fn skip_zero_terminated(data: &[u8], pos: &mut usize, expected: &'static str) -> Result<(), GzipError> {
    match data[*pos..].iter().position(|&b| b == 0) {
        Some(i) => {
            *pos += i + 1;
            Ok(())
        }
        None => Err(GzipError::new(data.len(), GzipErrorKind::Truncated { expected })),
    }
}

/// Why a gzip payload was rejected, and at which byte of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GzipError {
    /// Offset into the gzip payload where the problem was detected.
    pub offset: usize,
    pub kind: GzipErrorKind,
}

/// The ways a gzip payload can be wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GzipErrorKind {
    /// The input ended while `expected` was being read.
    Truncated { expected: &'static str },
    /// The first two bytes of a member are not `1f 8b`.
    BadMagic { found: [u8; 2] },
    /// CM is not 8 (deflate).
    UnsupportedMethod { cm: u8 },
    /// One of FLG's reserved bits (0xE0) is set (RFC 1952 §2.3.1.2 says: error).
    ReservedFlags { flg: u8 },
    /// FHCRC does not match the header.
    HeaderCrcMismatch { stored: u16, computed: u16 },
    /// The deflate stream is malformed (bad block type, code lengths, distance…).
    Deflate,
    /// The output would exceed the caller's limit.
    TooLarge { max_output: usize },
    /// The trailer's CRC32 is not the CRC-32 of the inflated data.
    CrcMismatch { stored: u32, computed: u32 },
    /// The trailer's ISIZE is not the inflated length (mod 2^32).
    SizeMismatch { stored: u32, actual: u32 },
    /// Bytes after the last member that do not start another member.
    TrailingBytes { count: usize },
}

impl GzipError {
    #[cold]
    fn new(offset: usize, kind: GzipErrorKind) -> GzipError {
        GzipError { offset, kind }
    }
}

impl fmt::Display for GzipErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GzipErrorKind::Truncated { expected } => write!(f, "unexpected end of input, expected {expected}"),
            GzipErrorKind::BadMagic { found } => {
                write!(f, "expected gzip magic 1f 8b, found {:02x} {:02x}", found[0], found[1])
            }
            GzipErrorKind::UnsupportedMethod { cm } => {
                write!(f, "unsupported compression method {cm} (only 8 = deflate exists)")
            }
            GzipErrorKind::ReservedFlags { flg } => write!(f, "reserved FLG bits set in {flg:#04x}"),
            GzipErrorKind::HeaderCrcMismatch { stored, computed } => {
                write!(
                    f,
                    "header CRC-16 mismatch: stored {stored:#06x}, computed {computed:#06x}"
                )
            }
            GzipErrorKind::Deflate => write!(f, "corrupt deflate data"),
            GzipErrorKind::TooLarge { max_output } => {
                write!(f, "decompressed data exceeds the limit of {max_output} bytes")
            }
            GzipErrorKind::CrcMismatch { stored, computed } => {
                write!(
                    f,
                    "CRC-32 mismatch: trailer says {stored:#010x}, data has {computed:#010x}"
                )
            }
            GzipErrorKind::SizeMismatch { stored, actual } => {
                write!(f, "ISIZE mismatch: trailer says {stored} bytes, data has {actual}")
            }
            GzipErrorKind::TrailingBytes { count } => {
                write!(f, "{count} trailing bytes after the last gzip member")
            }
        }
    }
}

impl fmt::Display for GzipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "gzip: {} at byte {}", self.kind, self.offset)
    }
}

impl std::error::Error for GzipError {}

/// Lets the CLI's `Result<_, String>` functions use `?` on gzip calls.
impl From<GzipError> for String {
    fn from(e: GzipError) -> String {
        e.to_string()
    }
}
