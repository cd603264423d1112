//! Schema-driven data, for any schema: the Avro schema as the one type
//! system, a generic value ([`datum::Datum`]) of any such schema, the Avro
//! binary writer for it ([`avro_write`]) and Avro schema resolution
//! ([`resolve`]), which reads a datum written with one schema as another.
//!
//! The catalog's own codecs in [`crate::codec`] are specialised and do not
//! use this module; the evolution lab ([`crate::evolve`]) and
//! `wirebench decode` do.
//!
//! The schema-driven codecs for all five formats are built here, one module
//! per format, each with the same two entry points:
//!
//! ```text
//! pub fn encode(schema: &Schema, value: &Datum, out: &mut Vec<u8>) -> Result<(), GenericError>
//! pub fn decode(schema: &Schema, bytes: &[u8]) -> Result<Datum, GenericError>
//! ```
//!
//! **Architecture Invariant:** `generic` imports `codec`'s shared helpers
//! (cursor, varint, JSON text) and never a format's catalog codec.

pub mod avro_write;
pub mod datum;
pub mod derive;
pub mod error;
pub mod flatbuffers;
pub mod protobuf;
pub mod resolve;
pub mod schema;
