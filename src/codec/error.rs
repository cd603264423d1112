//! Typed codec errors: what was expected, what was found, and at which byte.
//!
//! Every decoder reports a [`DecodeError`]: a byte offset into the payload plus
//! a small [`ErrorKind`]. `Display` reads like
//! `expected ':' after object key, found 'x' at byte 17`. Constructors are
//! `#[cold]` so the happy path stays small.

use crate::model::ValidationError;
use std::fmt;

/// Why a payload could not be decoded, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeError {
    /// Byte offset into the payload where the problem was detected.
    pub offset: usize,
    pub kind: ErrorKind,
}

/// The kinds of decode failure shared by every format.
#[derive(Clone, Debug, PartialEq)]
pub enum ErrorKind {
    /// The input ended while `expected` was being read.
    Eof { expected: &'static str },
    /// A byte or token other than the one the grammar allows.
    Unexpected { expected: &'static str, found: String },
    /// A length or count prefix larger than the input that is left: refused
    /// before anything is allocated.
    LengthExceedsInput {
        what: &'static str,
        len: u64,
        remaining: usize,
    },
    /// A string is not valid UTF-8.
    InvalidUtf8,
    /// A JSON `\uD800`-style escape without its pair.
    LoneSurrogate { unit: u16 },
    /// Nesting deeper than the decoder allows (skipping unknown values included).
    DepthLimit { limit: usize },
    /// A number that does not fit the field (or is NaN/infinite where not allowed).
    OutOfRange { what: &'static str, value: String },
    /// An enum value the schema does not define.
    UnknownEnum { what: &'static str, value: String },
    /// A required field never appeared.
    MissingField { field: &'static str },
    /// A field appeared twice in one record.
    DuplicateField { field: &'static str },
    /// Bytes left over after the root value.
    TrailingBytes { count: usize },
    /// The value decoded but breaks a rule of the data model.
    Invalid(ValidationError),
    /// An error reported by a generated-code library (prost, flatbuffers).
    Library { library: &'static str, message: String },
}

impl DecodeError {
    #[cold]
    pub fn new(offset: usize, kind: ErrorKind) -> DecodeError {
        DecodeError { offset, kind }
    }

    #[cold]
    pub fn eof(offset: usize, expected: &'static str) -> DecodeError {
        DecodeError::new(offset, ErrorKind::Eof { expected })
    }

    #[cold]
    pub fn unexpected(offset: usize, expected: &'static str, found: impl Into<String>) -> DecodeError {
        let found = found.into();
        DecodeError::new(offset, ErrorKind::Unexpected { expected, found })
    }

    #[cold]
    pub fn invalid(offset: usize, e: ValidationError) -> DecodeError {
        DecodeError::new(offset, ErrorKind::Invalid(e))
    }

    /// `what` out of range: `value`.
    #[cold]
    pub fn out_of_range(offset: usize, what: &'static str, value: impl ToString) -> DecodeError {
        let value = value.to_string();
        DecodeError::new(offset, ErrorKind::OutOfRange { what, value })
    }

    /// An unknown value of the enum `what`.
    #[cold]
    pub fn unknown_enum(offset: usize, what: &'static str, value: impl ToString) -> DecodeError {
        let value = value.to_string();
        DecodeError::new(offset, ErrorKind::UnknownEnum { what, value })
    }

    /// An error from the generated-code `library`, or from our reader of
    /// its format.
    #[cold]
    pub fn library(offset: usize, library: &'static str, message: impl Into<String>) -> DecodeError {
        let message = message.into();
        DecodeError::new(offset, ErrorKind::Library { library, message })
    }

    /// A `what` of `len` beyond the `remaining` bytes.
    #[cold]
    pub fn length_exceeds(offset: usize, what: &'static str, len: u64, remaining: usize) -> DecodeError {
        DecodeError::new(offset, ErrorKind::LengthExceedsInput { what, len, remaining })
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Eof { expected } => write!(f, "unexpected end of input, expected {expected}"),
            ErrorKind::Unexpected { expected, found } => write!(f, "expected {expected}, found {found}"),
            ErrorKind::LengthExceedsInput { what, len, remaining } => {
                write!(f, "{what} of {len} exceeds the {remaining} bytes remaining")
            }
            ErrorKind::InvalidUtf8 => write!(f, "invalid UTF-8 in string"),
            ErrorKind::LoneSurrogate { unit } => write!(f, "lone UTF-16 surrogate \\u{unit:04X}"),
            ErrorKind::DepthLimit { limit } => write!(f, "nesting deeper than {limit} levels"),
            ErrorKind::OutOfRange { what, value } => write!(f, "{what} out of range: {value}"),
            ErrorKind::UnknownEnum { what, value } => write!(f, "unknown {what} value {value}"),
            ErrorKind::MissingField { field } => write!(f, "missing field `{field}`"),
            ErrorKind::DuplicateField { field } => write!(f, "duplicate field `{field}`"),
            ErrorKind::TrailingBytes { count } => write!(f, "{count} trailing bytes after the root value"),
            ErrorKind::Invalid(e) => write!(f, "invalid data: {e}"),
            ErrorKind::Library { library, message } => write!(f, "{library}: {message}"),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind, self.offset)
    }
}

impl std::error::Error for DecodeError {}

/// Why a catalog could not be encoded. Valid catalogs always encode; these are
/// the limits of the wire formats themselves.
#[derive(Clone, Debug, PartialEq)]
pub enum EncodeError {
    /// A string or list longer than the format can express (e.g. > u32::MAX).
    TooLong { what: &'static str, len: usize },
    /// A value the format cannot represent (e.g. NaN in JSON).
    Unrepresentable { what: &'static str, value: String },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::TooLong { what, len } => write!(f, "{what} of length {len} is too long for the format"),
            EncodeError::Unrepresentable { what, value } => write!(f, "{what} {value} cannot be represented"),
        }
    }
}

impl std::error::Error for EncodeError {}

/// How a byte is shown in an error: `'x'` for printable ASCII, else hex.
#[cold]
pub fn describe(b: u8) -> String {
    if b.is_ascii_graphic() || b == b' ' {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_says_what_and_where() {
        let e = DecodeError::unexpected(17, "':' after object key", "'x'");
        assert_eq!(e.to_string(), "expected ':' after object key, found 'x' at byte 17");
        let e = DecodeError::length_exceeds(3, "string length", 1 << 31, 5);
        assert_eq!(
            e.to_string(),
            "string length of 2147483648 exceeds the 5 bytes remaining at byte 3"
        );
    }
}
