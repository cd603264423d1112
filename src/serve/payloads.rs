//! What differs on the wire between `serve`'s two [`Payload`]s, the catalog
//! (`/catalog`) and the user's document (`serve --data FILE.json`, `/data`),
//! both answered by the one route table of [`super::routes`]:
//!
//! | | catalog | document |
//! |---|---|---|
//! | size reserved | `count` × [`BYTES_PER_PRODUCT`] (an upper bound) | its exact size in the format, measured at load |
//! | `count` | the first N products | not a parameter (one document) |
//! | `Link` (RFC 8288, `rel="describedby"`) | `catalog.avsc`/`.proto`/`.fbs` for Avro, Protobuf, FlatBuffers | `data.avsc` for JSON, MessagePack and Avro, `data.proto`, `data.fbs` |
//!
//! Schemas served under `/schemas/{file}`: the catalog's three, compiled in
//! ([`SCHEMAS`]), and the document's `data.avsc` (given with `--schema` or
//! inferred) with the `data.proto` and `data.fbs` derived from it.

use crate::codec::Format;
use crate::http::response::{JSON, TEXT};
use crate::payload::Payload;

/// Which payload a route serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Catalog,
    Document,
}

/// The catalog's schema files, `(name, content type, bytes)`, compiled into
/// the binary so it is self-contained (an Avro schema is a JSON document).
pub const SCHEMAS: [(&str, &str, &[u8]); 3] = [
    ("catalog.proto", TEXT, include_bytes!("../../schemas/catalog.proto")),
    ("catalog.avsc", JSON, include_bytes!("../../schemas/catalog.avsc")),
    ("catalog.fbs", TEXT, include_bytes!("../../schemas/catalog.fbs")),
];

/// The document's schema files: `(name, extension, content type)`, text in
/// `payload::Document::schema_text`; the router matches each path by its index.
pub const DOCUMENT_SCHEMAS: [(&str, &str, &str); 3] = [
    ("data.avsc", "avsc", JSON),
    ("data.proto", "proto", TEXT),
    ("data.fbs", "fbs", TEXT),
];

/// An upper bound of one fixture product's encoding in any format (JSON,
/// the largest, averages ~620 bytes); a unit test holds it above the real size.
pub const BYTES_PER_PRODUCT: usize = 768;

/// Bytes to reserve before encoding `payload` in `format`: an upper bound
/// for the catalog (its size would cost an encode), the size measured at
/// load for the document.
pub fn reserve(payload: &Payload, format: Format) -> usize {
    match payload {
        Payload::Catalog(p) => p.count().saturating_mul(BYTES_PER_PRODUCT),
        Payload::Document(_) => payload.size(format).unwrap_or(0),
    }
}

/// `Link` to the schema that reads a body of `kind` in `format`, and
/// `Vary: Accept` before it when `Accept` chose the format.
pub fn headers(kind: Kind, format: Format, negotiated: bool) -> &'static str {
    macro_rules! link {
        ($prefix:expr, $file:literal) => {
            concat!($prefix, "Link: </schemas/", $file, ">; rel=\"describedby\"\r\n")
        };
    }
    macro_rules! table {
        ($prefix:expr) => {
            match (kind, format) {
                (Kind::Catalog, Format::Avro) => link!($prefix, "catalog.avsc"),
                (Kind::Catalog, Format::Protobuf) => link!($prefix, "catalog.proto"),
                (Kind::Catalog, Format::Flatbuffers) => link!($prefix, "catalog.fbs"),
                (Kind::Catalog, Format::Json | Format::Msgpack) => $prefix,
                (Kind::Document, Format::Protobuf) => link!($prefix, "data.proto"),
                (Kind::Document, Format::Flatbuffers) => link!($prefix, "data.fbs"),
                (Kind::Document, Format::Json | Format::Msgpack | Format::Avro) => link!($prefix, "data.avsc"),
            }
        };
    }
    if negotiated {
        table!("Vary: Accept\r\n")
    } else {
        table!("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_name_the_schema_that_reads_the_body() {
        assert_eq!(headers(Kind::Catalog, Format::Json, false), "");
        assert_eq!(headers(Kind::Catalog, Format::Msgpack, true), "Vary: Accept\r\n");
        assert_eq!(
            headers(Kind::Catalog, Format::Avro, true),
            "Vary: Accept\r\nLink: </schemas/catalog.avsc>; rel=\"describedby\"\r\n"
        );
        assert_eq!(
            headers(Kind::Document, Format::Msgpack, false),
            "Link: </schemas/data.avsc>; rel=\"describedby\"\r\n"
        );
        assert_eq!(
            headers(Kind::Document, Format::Flatbuffers, false),
            "Link: </schemas/data.fbs>; rel=\"describedby\"\r\n"
        );
    }
}
