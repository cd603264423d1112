//! The crate's verifier, with limits from the buffer's size, and the
//! wording of its errors.
//!
//! FlatBuffers has no parse step: the generated accessors read fields in
//! place by following offsets. On untrusted bytes that is only sound after the
//! crate's verifier has walked the whole buffer once: every offset in bounds,
//! every scalar aligned, every string UTF-8 and NUL-terminated, every
//! `(required)` field present. [`verified_root`] checks the file identifier
//! and runs it with [`verifier_options`]. The zero-copy rows
//! (`direct.rs`) read through the accessors after it; the reader
//! (`view.rs`) makes the same checks itself as it reads, and asks
//! [`verified_root`] for the error when it refuses a buffer.
//!
//! Errors keep what the verifier knows: its `ErrorTrace` becomes a path such
//! as `products[2].variants[0].sku`, and its position becomes the byte offset.

use super::generated::wirebench as fb;
use crate::codec::{DecodeError, ErrorKind};
use flatbuffers::{ErrorTraceDetail, InvalidFlatbuffer, VerifierOptions};

/// The 4-byte file identifier at bytes 4..8 (schema `file_identifier`).
pub const IDENTIFIER: &[u8; 4] = b"WBCT";

/// Deepest table nesting in our schema: Catalog → Product → Variant. The
/// verifier walks the schema's types and ours has no recursive type, so no
/// buffer can reach a deeper table; the limit states the bound anyway (and
/// would catch a schema change that adds recursion).
pub const MAX_DEPTH: usize = 3;

/// How much larger than the buffer its "apparent size" (every object counted
/// each time it is reached, so a string shared by a thousand offsets counts a
/// thousand times) may be. Our builder shares only vtables (each table visit
/// re-counts its vtable), so real buffers stay well below: measured 1.21× for
/// `fixtures::catalog(1000)`, 1.15× at worst over the 300 round-trip seeds,
/// 1.36× for products whose strings and lists are all empty (the worst case:
/// the vtable is large next to the data). The cap stops a small buffer from
/// decoding into gigabytes of copied strings.
pub const APPARENT_SIZE_FACTOR: usize = 2;

const LIBRARY: &str = "flatbuffers";

/// The verifier limits for a buffer of `len` bytes. Every table starts with a
/// 4-byte vtable offset and each of ours holds at least one 4-byte field, so
/// a well-formed buffer has at most `len / 8` tables.
pub fn verifier_options(len: usize) -> VerifierOptions {
    VerifierOptions {
        max_depth: MAX_DEPTH,
        max_tables: len / 8 + 1,
        max_apparent_size: len.saturating_mul(APPARENT_SIZE_FACTOR),
        ignore_missing_null_terminator: false,
    }
}

/// Checks the file identifier and runs the verifier; returns the root table.
pub fn verified_root(bytes: &[u8]) -> Result<fb::Catalog<'_>, DecodeError> {
    let Some(ident) = bytes.get(4..8) else {
        return Err(DecodeError::eof(
            bytes.len(),
            "4-byte root offset and 4-byte file identifier",
        ));
    };
    if ident != IDENTIFIER {
        return Err(DecodeError::unexpected(
            4,
            "file identifier \"WBCT\"",
            format!("{:?}", String::from_utf8_lossy(ident)),
        ));
    }
    let opts = verifier_options(bytes.len());
    fb::root_as_catalog_with_opts(&opts, bytes).map_err(|e| verifier_error(&e, &opts, bytes.len()))
}

/// Turns the verifier's trace (innermost first) into a path like
/// `products[2].variants[0].sku`, and returns the innermost position.
fn trace_path(trace: &[ErrorTraceDetail]) -> (String, Option<usize>) {
    let mut path = String::new();
    for d in trace.iter().rev() {
        match d {
            ErrorTraceDetail::VectorElement { index, .. } => {
                path.push('[');
                path.push_str(&index.to_string());
                path.push(']');
            }
            ErrorTraceDetail::TableField { field_name, .. }
            | ErrorTraceDetail::UnionVariant {
                variant: field_name, ..
            } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(field_name);
            }
        }
    }
    let position = trace.first().map(|d| match d {
        ErrorTraceDetail::VectorElement { position, .. }
        | ErrorTraceDetail::TableField { position, .. }
        | ErrorTraceDetail::UnionVariant { position, .. } => *position,
    });
    (path, position)
}

/// "in products[0].tags" or "in the root table".
fn place(path: &str) -> String {
    if path.is_empty() {
        "in the root table".to_string()
    } else {
        format!("in {path}")
    }
}

/// Maps a verifier error to a [`DecodeError`] at the position it names.
#[cold]
fn verifier_error(e: &InvalidFlatbuffer, opts: &VerifierOptions, len: usize) -> DecodeError {
    // Offsets the verifier reports may lie past the buffer (that is often the
    // error); an error's offset never does, so those point at the end.
    let library = |at: usize, message: String| DecodeError::library(at.min(len), LIBRARY, message);
    match e {
        InvalidFlatbuffer::Utf8Error { error, range, .. } => {
            DecodeError::new(range.start + error.valid_up_to(), ErrorKind::InvalidUtf8)
        }
        InvalidFlatbuffer::DepthLimitReached => DecodeError::new(0, ErrorKind::DepthLimit { limit: opts.max_depth }),
        InvalidFlatbuffer::TooManyTables => library(
            0,
            format!("more than {} tables in a {len}-byte buffer", opts.max_tables),
        ),
        InvalidFlatbuffer::ApparentSizeTooLarge => library(
            0,
            format!(
                "objects reached through shared offsets add up to more than {} bytes ({APPARENT_SIZE_FACTOR}× the buffer)",
                opts.max_apparent_size
            ),
        ),
        InvalidFlatbuffer::MissingRequiredField { required, error_trace } => {
            let (path, at) = trace_path(error_trace.as_ref());
            let field = if path.is_empty() {
                required.to_string()
            } else {
                format!("{path}.{required}")
            };
            library(at.unwrap_or(0), format!("missing required field {field}"))
        }
        InvalidFlatbuffer::MissingNullTerminator { range, error_trace } => {
            let (path, _) = trace_path(error_trace.as_ref());
            library(
                range.end,
                format!(
                    "string of {} bytes {} lacks its NUL terminator",
                    range.len(),
                    place(&path)
                ),
            )
        }
        InvalidFlatbuffer::Unaligned {
            position,
            unaligned_type,
            error_trace,
        } => {
            let (path, _) = trace_path(error_trace.as_ref());
            library(
                *position,
                format!("{unaligned_type} {} is not aligned to its size", place(&path)),
            )
        }
        InvalidFlatbuffer::RangeOutOfBounds { range, error_trace } => {
            // Where the range starts if that is inside the buffer; else at
            // the field or element whose offset points out; without a trace,
            // the root offset at byte 0 is the one that does.
            let (path, at) = trace_path(error_trace.as_ref());
            let inside = (range.start < len).then_some(range.start);
            library(
                inside.or(at).unwrap_or(0),
                format!(
                    "bytes {}..{} {} lie outside the {len}-byte buffer",
                    range.start,
                    range.end,
                    place(&path)
                ),
            )
        }
        InvalidFlatbuffer::SignedOffsetOutOfBounds {
            soffset,
            position,
            error_trace,
        } => {
            let (path, _) = trace_path(error_trace.as_ref());
            library(
                *position,
                format!("vtable offset {soffset} {} points outside the buffer", place(&path)),
            )
        }
        InvalidFlatbuffer::InconsistentUnion { field, error_trace, .. } => {
            let (path, at) = trace_path(error_trace.as_ref());
            library(
                at.unwrap_or(0),
                format!(
                    "union {field} {} has a type without a value or the reverse",
                    place(&path)
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_becomes_a_path() {
        use std::borrow::Cow;
        let field = |name, position| ErrorTraceDetail::TableField {
            field_name: Cow::Borrowed(name),
            position,
        };
        let element = |index, position| ErrorTraceDetail::VectorElement { index, position };
        let trace = [
            field("sku", 120),
            element(1, 80),
            field("variants", 60),
            element(2, 20),
            field("products", 12),
        ];
        assert_eq!(
            trace_path(&trace),
            ("products[2].variants[1].sku".to_string(), Some(120))
        );
        assert_eq!(trace_path(&[]), (String::new(), None));
    }
}
