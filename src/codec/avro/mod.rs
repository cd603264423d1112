//! avro codec (placeholder until its implementation lands).
//!
//! # Wire format
//!
//! To be written.

use crate::codec::{DecodeError, EncodeError, ErrorKind};
use crate::model::{Catalog, Product};

/// Appends the avro encoding of `Catalog { products }` to `out`.
pub fn encode(_products: &[Product], _out: &mut Vec<u8>) -> Result<(), EncodeError> {
    Err(EncodeError::Unrepresentable {
        what: "avro codec",
        value: "not implemented yet".into(),
    })
}

/// Decodes a whole avro payload into a validated catalog.
pub fn decode(_bytes: &[u8]) -> Result<Catalog, DecodeError> {
    Err(DecodeError::new(
        0,
        ErrorKind::Library {
            library: "avro",
            message: "not implemented yet".into(),
        },
    ))
}
