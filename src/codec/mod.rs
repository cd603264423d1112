//! The five wire formats behind one [`Format`] type.
//!
//! | format | self-describing? | integers | strings | records | optional |
//! |---|---|---|---|---|---|
//! | JSON | yes: keys and punctuation | decimal text | quoted, escaped | `{"key":value,…}` | `null` |
//! | MessagePack | yes: keys + 1-byte markers | smallest big-endian width | marker + length | map of key → value | `nil` |
//! | Avro | no: the schema is the order | zigzag varint | varint length + bytes | fields back to back | union index 0/1 |
//! | Protobuf | partly: field numbers + wire types | varint | key + varint length | length-delimited submessage | field present or not |
//! | FlatBuffers | no: vtables locate fields | fixed little-endian, aligned | u32 length + bytes + NUL | table + vtable of offsets | field absent from vtable |
//!
//! Every encoder appends to a caller's `Vec<u8>` (clear it to reuse the
//! allocation) and takes a slice of products, so the server can encode the
//! first N products of its prepared catalog without copying them. Every decoder
//! ends in our domain types and validates them.
//!
//! **Architecture Invariant:** codecs never do I/O and never import `http`,
//! `load`, `bench` or `report`.

pub mod avro;
pub mod catalog_view;
pub mod cursor;
pub mod error;
pub(crate) mod escape;
pub mod flatbuffers;
pub mod ids;
pub mod json;
pub mod msgpack;
pub mod protobuf;
pub(crate) mod record;
pub(crate) mod spare;
pub(crate) mod utf8;
pub mod varint;
pub mod view;

pub use catalog_view::CatalogView;
pub use error::{DecodeError, EncodeError, ErrorKind};
pub use view::{ProductView, Text};

use crate::model::{Catalog, Product};
use std::fmt;

/// One of the five wire formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Json,
    Msgpack,
    Protobuf,
    Avro,
    Flatbuffers,
}

impl Format {
    /// Every format, in the order tables and charts use.
    pub const ALL: [Format; 5] = [
        Format::Json,
        Format::Msgpack,
        Format::Protobuf,
        Format::Avro,
        Format::Flatbuffers,
    ];

    /// Per format in [`Format::ALL`] order: its name, its HTTP
    /// `Content-Type` and its file extension.
    const NAMES: [[&'static str; 3]; 5] = [
        ["json", "application/json", "json"],
        ["msgpack", "application/vnd.msgpack", "msgpack"],
        ["protobuf", "application/protobuf", "pb"],
        ["avro", "avro/binary", "avro"],
        ["flatbuffers", "application/x-flatbuffers", "fb"],
    ];

    /// The name used in URLs, CLI flags and result files.
    pub fn name(self) -> &'static str {
        Format::NAMES[self as usize][0]
    }

    /// Parses [`Format::name`] (exact, lowercase).
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The HTTP `Content-Type` (docs/SPEC.md, "Content types"; the sources are in docs/HTTP.md, "Content types and where they come from").
    pub fn content_type(self) -> &'static str {
        Format::NAMES[self as usize][1]
    }

    /// File extension of golden files and saved payloads.
    pub fn extension(self) -> &'static str {
        Format::NAMES[self as usize][2]
    }

    /// Appends the encoding of `Catalog { products }` to `out`.
    pub fn encode(self, products: &[Product], out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            Format::Json => json::encode(products, out),
            Format::Msgpack => msgpack::encode(products, out),
            Format::Protobuf => protobuf::encode(products, out),
            Format::Avro => avro::encode(products, out),
            Format::Flatbuffers => flatbuffers::encode(products, out),
        }
    }

    /// Parses a whole payload into a validated catalog.
    pub fn decode(self, bytes: &[u8]) -> Result<Catalog, DecodeError> {
        match self {
            Format::Json => json::decode(bytes),
            Format::Msgpack => msgpack::decode(bytes),
            Format::Protobuf => protobuf::decode(bytes),
            Format::Avro => avro::decode(bytes),
            Format::Flatbuffers => flatbuffers::decode(bytes),
        }
    }

    /// Parses and validates a whole payload as [`Format::decode`] does (the
    /// same errors at the same offsets) into a view that borrows it: no
    /// allocation per product or string (see [`view`] and [`catalog_view`]).
    pub fn decode_view(self, bytes: &[u8]) -> Result<CatalogView<'_>, DecodeError> {
        use catalog_view::FormatReader as R;
        let (len, reader) = match self {
            Format::Json => json::view::decode_view(bytes).map(|(n, r)| (n, R::Json(r)))?,
            Format::Msgpack => msgpack::view::decode_view(bytes).map(|(n, r)| (n, R::Msgpack(r)))?,
            Format::Protobuf => protobuf::view::decode_view(bytes).map(|(n, r)| (n, R::Protobuf(r)))?,
            Format::Avro => avro::view::decode_view(bytes).map(|(n, r)| (n, R::Avro(r)))?,
            Format::Flatbuffers => flatbuffers::view::decode_view(bytes).map(|(n, r)| (n, R::Flatbuffers(r)))?,
        };
        Ok(CatalogView::new(len, bytes.len(), reader))
    }

    /// The most bytes [`Format::decode`] may request from the allocator, in
    /// total over the whole call, for an input of `input_len` bytes —
    /// whatever the input says, valid or not. Checked by the allocation
    /// tests (`tests/alloc_bounds.rs`), the mutation test and every fuzz target.
    ///
    /// The factor is what the smallest encoding of a record costs against
    /// the struct it becomes (a `Product` is 240 bytes, a `String` 24), plus
    /// the doubling of the products vector:
    ///
    /// | format | factor | why |
    /// |---|---|---|
    /// | JSON, MessagePack | 4 | every field needs its key: a product is ≥ 200 bytes of input |
    /// | FlatBuffers | 8 | strings may be shared by offsets; the verifier caps what offsets reach at 2× the buffer |
    /// | Avro | 24 | no keys: a product can be 30 bytes, an empty string 1 byte → 24 |
    /// | Protobuf | 48 | defaults cost nothing: a product can be 9 bytes, an empty tag 2 |
    ///
    /// Plus a constant 16 KiB for small inputs (the error message, the id
    /// set's first table).
    pub fn max_decode_allocation(self, input_len: usize) -> usize {
        let factor = match self {
            Format::Json | Format::Msgpack => 4,
            Format::Flatbuffers => 8,
            Format::Avro => 24,
            Format::Protobuf => 48,
        };
        input_len.saturating_mul(factor).saturating_add(16 * 1024)
    }

    /// Convenience: a fresh buffer holding the encoding.
    pub fn encode_to_vec(self, products: &[Product]) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        self.encode(products, &mut out)?;
        Ok(out)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        Format::from_name(s).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            format!("unknown format {s:?}; expected one of {}", names.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (i, f) in Format::ALL.into_iter().enumerate() {
            assert_eq!(f as usize, i, "ALL is in declaration order, which NAMES follows");
            assert_eq!(Format::from_name(f.name()), Some(f));
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
        }
        assert_eq!(
            "xml".parse::<Format>().unwrap_err(),
            "unknown format \"xml\"; expected one of json, msgpack, protobuf, avro, flatbuffers"
        );
    }
}
