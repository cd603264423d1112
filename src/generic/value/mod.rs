//! Value trees of no schema: any JSON text or MessagePack object read into one
//! [`json::JsonValue`] tree (objects keep their member order), for readers whose
//! shape is not known in advance: `.avsc` schemas ([`super::schema`]) and the
//! evolution lab's reads of the catalog's text formats.
//!
//! - [`json`]: RFC 8259 text, read with the JSON codec's lexer;
//! - [`msgpack`]: a MessagePack object (maps need string keys; `bin` and `ext`
//!   are refused), read with the MessagePack codec's marker table and lengths.

pub mod json;
pub mod msgpack;
