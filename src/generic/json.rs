//! The schema-driven JSON codec: a datum of any Avro schema as compact
//! RFC 8259 text, by the rules of [`super::document`] (record fields in
//! schema order as object members, unions as their bare value, maps as
//! objects, bytes as strings of code points 0–255, enums as the symbol).
//!
//! `{"id":7,"note":null}` is the record `{id: long, note: ["null","string"]}`
//! with `note` null: 20 bytes, no whitespace. With `schemas/catalog.avsc`
//! the bytes equal the catalog's JSON codec's bytes for the same catalog
//! (`tests/generic.rs`).

use super::datum::Datum;
use super::document;
use super::error::GenericError;
use super::schema::Schema;

/// Appends the JSON text of `value`, an instance of `schema`.
pub fn encode(schema: &Schema, value: &Datum, out: &mut Vec<u8>) -> Result<(), GenericError> {
    document::write(schema, value, out)
}

/// Reads one whole JSON text as an instance of `schema`.
pub fn decode(schema: &Schema, bytes: &[u8]) -> Result<Datum, GenericError> {
    document::read(schema, bytes)
}
