//! Schema-driven data, for any schema: the Avro schema as the one type
//! system, a generic value ([`datum::Datum`]) of any such schema, and codecs
//! for all five formats driven by that schema, beside the catalog's
//! specialised codecs in [`crate::codec`].
//!
//! - [`schema`]: `.avsc` parsing; [`datum`]: the generic value;
//!   [`infer`]: an Avro schema inferred from a JSON document;
//! - [`json`] (JSON text ↔ datum: how the user's document is read),
//!   [`msgpack`], [`avro`]: the handwritten schema-driven codecs;
//!   [`protobuf`] (through prost's `encoding` module) and [`flatbuffers`]
//!   (through the official crate's builder and verifier), with the message
//!   and table layout [`derive`] writes as `.proto` and `.fbs`;
//!   [`resolve`]: Avro schema resolution, which reads a datum written with
//!   one schema as another (the evolution lab writes its v2 data with
//!   [`avro::encode`], the one Avro datum writer);
//! - [`value`]: JSON and MessagePack value trees of no schema (`.avsc`
//!   text, the evolution lab's reads);
//! - [`sink`]: the output buffer the MessagePack and JSON encoders write
//!   into, one room check per value;
//! - [`walk`]: the schema-walk helpers every codec shares (nesting limit,
//!   absent fields and zero values, union branches, record fields, enum
//!   symbols, map keys); [`error`]: the error type, its JSON Pointer and
//!   conversions; [`random`]: seeded random schemas and datums for tests,
//!   fuzzing and benches.
//!
//! Every schema-driven codec has the same two entry points:
//!
//! ```text
//! pub fn encode(schema: &Schema, value: &Datum, out: &mut Vec<u8>) -> Result<(), GenericError>
//! pub fn decode(schema: &Schema, bytes: &[u8]) -> Result<Datum, GenericError>
//! ```
//!
//! and [`encode`] / [`decode`] here dispatch on [`Format`].
//!
//! **Architecture Invariant:** `generic` imports `codec`'s shared helpers
//! (cursor, varint, JSON text, the MessagePack marker table and
//! header writers) and never a format's catalog reader or product writer.

pub mod avro;
pub mod cli;
pub mod datum;
pub mod derive;
pub mod error;
pub mod flatbuffers;
pub mod infer;
pub mod input;
pub mod json;
pub mod msgpack;
pub mod protobuf;
pub mod random;
pub mod resolve;
pub mod schema;
pub mod sink;
pub mod value;
pub mod walk;

use crate::codec::Format;
use datum::Datum;
use error::GenericError;
use schema::Schema;

/// Appends `value`, an instance of `schema`, to `out` in `format`.
pub fn encode(format: Format, schema: &Schema, value: &Datum, out: &mut Vec<u8>) -> Result<(), GenericError> {
    match format {
        Format::Json => json::encode(schema, value, out),
        Format::Msgpack => msgpack::encode(schema, value, out),
        Format::Avro => avro::encode(schema, value, out),
        Format::Protobuf => protobuf::encode(schema, value, out),
        Format::Flatbuffers => flatbuffers::encode(schema, value, out),
    }
}

/// Reads one whole instance of `schema` from `bytes` in `format`.
pub fn decode(format: Format, schema: &Schema, bytes: &[u8]) -> Result<Datum, GenericError> {
    match format {
        Format::Json => json::decode(schema, bytes),
        Format::Msgpack => msgpack::decode(schema, bytes),
        Format::Avro => avro::decode(schema, bytes),
        Format::Protobuf => protobuf::decode(schema, bytes),
        Format::Flatbuffers => flatbuffers::decode(schema, bytes),
    }
}
