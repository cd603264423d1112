//! Errors of the schema-driven codecs: what was expected, what was found,
//! where in the bytes (offset) and where in the data (a JSON Pointer into
//! the document, RFC 6901, e.g. `/statuses/3/user/id`).
//!
//! Every schema-driven decoder and encoder of [`crate::generic`] reports a
//! [`GenericError`]; `Display` reads like
//! `/items/2/price: expected double, found string at byte 118`.
//!
//! Errors are built innermost first with an empty pointer; [`nest`] prepends
//! a reference token on the way out of each nested value, so a pointer costs
//! nothing until something fails. [`from_decode`] turns an error of
//! [`crate::codec`]'s cursor and varint readers into a [`GenericError`].

use super::datum::Datum;
use super::schema::{EnumType, NodeId, Schema};
use crate::codec::{DecodeError, ErrorKind};
use std::fmt;

/// Why a value could not be encoded or decoded with a schema, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct GenericError {
    /// JSON Pointer of the value in the document ("" is the root).
    pub pointer: String,
    /// Byte offset into the input, where there is one (decoding, JSON text).
    pub offset: Option<usize>,
    pub kind: GenericErrorKind,
}

/// The kinds of schema-driven failure shared by every format.
#[derive(Clone, Debug, PartialEq)]
pub enum GenericErrorKind {
    /// The input ended while `expected` was being read.
    Eof { expected: String },
    /// A byte, token or value other than the one the schema allows.
    Unexpected { expected: String, found: String },
    /// A length or count prefix larger than the input that is left: refused
    /// before anything is allocated.
    LengthExceedsInput { what: String, len: u64, remaining: usize },
    /// A string is not valid UTF-8.
    InvalidUtf8,
    /// Nesting deeper than the codec allows.
    DepthLimit { limit: usize },
    /// A number that does not fit its type (beyond `long`/`double`, ...).
    OutOfRange { what: String, value: String },
    /// A record field the schema requires never appeared.
    MissingField { field: String },
    /// A field or map key appeared twice.
    DuplicateField { field: String },
    /// Bytes left over after the root value.
    TrailingBytes { count: usize },
    /// A schema the codec cannot express (say which construct and why).
    Unsupported { what: String },
    /// An error reported by a library (prost, flatbuffers' verifier).
    Library { library: &'static str, message: String },
}

impl GenericError {
    /// A record field the datum lacks (its key as the schema spells it).
    #[cold]
    pub fn missing_field(field: impl Into<String>, offset: Option<usize>) -> GenericError {
        GenericError::new("", offset, GenericErrorKind::MissingField { field: field.into() })
    }

    /// A union `ty` without a null branch that has no member set.
    #[cold]
    pub fn no_member(schema: &Schema, ty: NodeId) -> GenericError {
        GenericError::missing_field(format!("a member of {}", schema.describe(ty)), None)
    }

    #[cold]
    pub fn out_of_range(offset: Option<usize>, what: impl Into<String>, value: impl Into<String>) -> GenericError {
        let (what, value) = (what.into(), value.into());
        GenericError::new("", offset, GenericErrorKind::OutOfRange { what, value })
    }

    #[cold]
    pub fn duplicate(field: impl Into<String>, offset: usize) -> GenericError {
        GenericError::at("", offset, GenericErrorKind::DuplicateField { field: field.into() })
    }

    #[cold]
    pub fn trailing(offset: usize, count: usize) -> GenericError {
        GenericError::at("", offset, GenericErrorKind::TrailingBytes { count })
    }

    #[cold]
    pub fn library(offset: usize, library: &'static str, e: impl fmt::Display) -> GenericError {
        let message = e.to_string();
        GenericError::at("", offset, GenericErrorKind::Library { library, message })
    }

    #[cold]
    pub fn invalid_utf8(offset: usize) -> GenericError {
        GenericError::at("", offset, GenericErrorKind::InvalidUtf8)
    }

    #[cold]
    pub fn new(pointer: impl Into<String>, offset: Option<usize>, kind: GenericErrorKind) -> GenericError {
        GenericError {
            pointer: pointer.into(),
            offset,
            kind,
        }
    }

    /// Nesting deeper than `limit`, at `offset` where there is one.
    #[cold]
    pub fn depth_limit(limit: usize, offset: Option<usize>) -> GenericError {
        GenericError::new("", offset, GenericErrorKind::DepthLimit { limit })
    }

    #[cold]
    pub fn at(pointer: impl Into<String>, offset: usize, kind: GenericErrorKind) -> GenericError {
        GenericError::new(pointer, Some(offset), kind)
    }

    #[cold]
    pub fn unexpected(
        pointer: impl Into<String>,
        offset: Option<usize>,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> GenericError {
        GenericError::new(
            pointer,
            offset,
            GenericErrorKind::Unexpected {
                expected: expected.into(),
                found: found.into(),
            },
        )
    }
}

impl fmt::Display for GenericErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenericErrorKind::Eof { expected } => write!(f, "input ended, expected {expected}"),
            GenericErrorKind::Unexpected { expected, found } => write!(f, "expected {expected}, found {found}"),
            GenericErrorKind::LengthExceedsInput { what, len, remaining } => {
                write!(f, "{what} of {len} exceeds the {remaining} bytes left")
            }
            GenericErrorKind::InvalidUtf8 => write!(f, "string is not valid UTF-8"),
            GenericErrorKind::DepthLimit { limit } => write!(f, "nesting deeper than {limit}"),
            GenericErrorKind::OutOfRange { what, value } => write!(f, "{what} out of range: {value}"),
            GenericErrorKind::MissingField { field } => write!(f, "missing field `{field}`"),
            GenericErrorKind::DuplicateField { field } => write!(f, "duplicate field `{field}`"),
            GenericErrorKind::TrailingBytes { count } => write!(f, "{count} trailing bytes after the value"),
            GenericErrorKind::Unsupported { what } => write!(f, "unsupported: {what}"),
            GenericErrorKind::Library { library, message } => write!(f, "{library}: {message}"),
        }
    }
}

impl fmt::Display for GenericError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{pointer}: {}", self.kind)?;
        if let Some(offset) = self.offset {
            write!(f, " at byte {offset}")?;
        }
        Ok(())
    }
}

impl std::error::Error for GenericError {}

/// Appends one reference token to a JSON Pointer, escaping `~` and `/`
/// as RFC 6901 §3 says (`~0`, `~1`).
pub fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Prepends a reference token to an error's pointer on its way out of a
/// nested value.
#[cold]
pub fn nest(mut e: GenericError, token: &str) -> GenericError {
    let mut p = String::with_capacity(token.len() + 1 + e.pointer.len());
    push_token(&mut p, token);
    p.push_str(&e.pointer);
    e.pointer = p;
    e
}

/// [`nest`] with an array index as the token.
#[cold]
pub fn nest_index(e: GenericError, i: usize) -> GenericError {
    nest(e, &i.to_string())
}

/// `Err(TrailingBytes)` when bytes are left in `c` past the root value.
pub fn finished(c: &crate::codec::cursor::Cursor<'_>) -> Result<(), GenericError> {
    if c.is_empty() {
        return Ok(());
    }
    Err(GenericError::trailing(c.pos(), c.remaining()))
}

/// A result of [`crate::codec`]'s readers (cursor, varints, the JSON lexer)
/// with its error as a [`GenericError`] at the root pointer.
pub fn decoded<T>(r: Result<T, DecodeError>) -> Result<T, GenericError> {
    r.map_err(|e| from_decode("", e))
}

/// A decode error of [`crate::codec`]'s readers at `pointer`.
#[cold]
pub fn from_decode(pointer: &str, e: DecodeError) -> GenericError {
    let kind = match e.kind {
        ErrorKind::Eof { expected } => GenericErrorKind::Eof {
            expected: expected.to_string(),
        },
        ErrorKind::Unexpected { expected, found } => GenericErrorKind::Unexpected {
            expected: expected.to_string(),
            found,
        },
        ErrorKind::LengthExceedsInput { what, len, remaining } => GenericErrorKind::LengthExceedsInput {
            what: what.to_string(),
            len,
            remaining,
        },
        ErrorKind::InvalidUtf8 => GenericErrorKind::InvalidUtf8,
        ErrorKind::DepthLimit { limit } => GenericErrorKind::DepthLimit { limit },
        ErrorKind::OutOfRange { what, value } => GenericErrorKind::OutOfRange {
            what: what.to_string(),
            value,
        },
        ErrorKind::TrailingBytes { count } => GenericErrorKind::TrailingBytes { count },
        ErrorKind::MissingField { field } => GenericErrorKind::MissingField {
            field: field.to_string(),
        },
        ErrorKind::DuplicateField { field } => GenericErrorKind::DuplicateField {
            field: field.to_string(),
        },
        other => GenericErrorKind::Unexpected {
            expected: "valid input".to_string(),
            found: other.to_string(),
        },
    };
    GenericError::new(pointer, Some(e.offset), kind)
}

/// The error for a datum that does not fit `node` (encoding).
#[cold]
pub fn mismatch(schema: &Schema, node: NodeId, datum: &Datum) -> GenericError {
    GenericError::unexpected("", None, schema.describe(node), datum.kind())
}

/// The error for an enum datum whose index or symbol is not the schema's.
#[cold]
pub fn bad_symbol(e: &EnumType, i: u32, symbol: &str) -> GenericError {
    GenericError::unexpected(
        "",
        None,
        format!("a symbol of {}", e.name.fullname),
        format!("symbol {i} {symbol:?}"),
    )
}

/// The error for a symbol read at `at` that is not one of `e`'s.
#[cold]
pub fn unknown_symbol(e: &EnumType, at: usize, found: String) -> GenericError {
    let expected = format!("a symbol of {} ({})", e.name.fullname, e.symbols.join(", "));
    GenericError::unexpected("", Some(at), expected, found)
}

/// The error for an enum index `i` read at `at` beyond the `n` symbols of
/// `ty` (`what`: how the format calls the index).
#[cold]
pub fn symbol_out_of_range(s: &Schema, ty: NodeId, what: &str, n: usize, at: usize, i: String) -> GenericError {
    let expected = format!("a symbol {what} of {} (0..{n})", s.describe(ty));
    GenericError::unexpected("", Some(at), expected, i)
}

/// `Ok` when symbol index `i` is below `n` (encoding).
#[inline]
pub fn check_symbol(n: usize, i: u32) -> Result<(), GenericError> {
    if (i as usize) < n {
        return Ok(());
    }
    let expected = format!("a symbol index below {n}");
    Err(GenericError::unexpected("", None, expected, i.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_pointer_kind_and_offset() {
        let e = GenericError::unexpected("/items/2/price", Some(118), "double", "string");
        assert_eq!(
            e.to_string(),
            "/items/2/price: expected double, found string at byte 118"
        );
        let root = GenericError::new("", None, GenericErrorKind::TrailingBytes { count: 3 });
        assert_eq!(root.to_string(), "(root): 3 trailing bytes after the value");
    }

    #[test]
    fn pointer_tokens_escape_tilde_and_slash() {
        let mut p = String::new();
        push_token(&mut p, "a/b");
        push_token(&mut p, "m~n");
        push_token(&mut p, "0");
        assert_eq!(p, "/a~1b/m~0n/0");
    }
}
