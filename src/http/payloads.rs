//! What `serve` serves under its payload routes: the catalog's products
//! (`/catalog`) and the user's document (`serve --data FILE.json`, `/data`).
//! Both answer through the one route table of [`super::routes`]; this module
//! says what differs: the size admission reserves, the encoder, and the
//! schema a `Link` header names.
//!
//! | | catalog | document |
//! |---|---|---|
//! | encoder | the catalog's own codecs (`Format::encode`) | the schema-driven codecs of [`crate::generic`] |
//! | size reserved | `count` × [`BYTES_PER_PRODUCT`] (an upper bound) | its exact size in the format, measured at load |
//! | `count` | the first N products | not a parameter (one document) |
//! | `Link` (RFC 8288, `rel="describedby"`) | `catalog.avsc`/`.proto`/`.fbs` for Avro, Protobuf, FlatBuffers | `data.avsc` for JSON, MessagePack and Avro, `data.proto`, `data.fbs` |
//!
//! Schemas served under `/schemas/{file}`: the catalog's three, compiled in
//! ([`SCHEMAS`]), and the document's `data.avsc` (given with `--schema` or
//! inferred) with the `data.proto` and `data.fbs` derived from it.

use crate::codec::Format;
use crate::generic::{self, datum::Datum, schema::Schema};
use crate::model::Product;
use std::sync::Arc;

/// Which payload a route serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Catalog,
    Document,
}

impl Kind {
    /// The route prefix: `/catalog` or `/data`.
    pub fn path(self) -> &'static str {
        match self {
            Kind::Catalog => "/catalog",
            Kind::Document => "/data",
        }
    }
}

const TEXT: &str = "text/plain; charset=utf-8";
const JSON: &str = "application/json";

/// A schema file served under `/schemas/`.
#[derive(Debug, Clone)]
pub struct SchemaFile {
    pub name: &'static str,
    pub content_type: &'static str,
    pub bytes: &'static [u8],
}

/// The catalog's schema files, compiled into the binary so it is self-contained.
pub const SCHEMAS: [SchemaFile; 3] = [
    SchemaFile {
        name: "catalog.proto",
        content_type: TEXT,
        bytes: include_bytes!("../../schemas/catalog.proto"),
    },
    SchemaFile {
        name: "catalog.avsc",
        content_type: JSON, // an Avro schema is a JSON document
        bytes: include_bytes!("../../schemas/catalog.avsc"),
    },
    SchemaFile {
        name: "catalog.fbs",
        content_type: TEXT,
        bytes: include_bytes!("../../schemas/catalog.fbs"),
    },
];

/// The document's schema files: `(name, content type)`, text in
/// [`Document::schema_text`]; the router matches each path by its index.
pub const DOCUMENT_SCHEMAS: [(&str, &str); 3] = [("data.avsc", JSON), ("data.proto", TEXT), ("data.fbs", TEXT)];

/// An upper bound of one fixture product's encoding in any format (JSON,
/// the largest, averages ~620 bytes); a unit test holds it above the real size.
pub const BYTES_PER_PRODUCT: usize = 768;

/// `serve --data`: the user's document, its schema, and the texts served for it.
#[derive(Debug)]
pub struct Document {
    pub schema: Schema,
    /// `/schemas/data.avsc`.
    pub avsc: String,
    /// `/schemas/data.proto` and `/schemas/data.fbs`, when derived.
    pub proto: Option<String>,
    pub fbs: Option<String>,
    pub datum: Datum,
    /// The document's encoded size in each served format: what admission reserves.
    sizes: Vec<(Format, usize)>,
}

impl Document {
    /// Loads `--data FILE.json` with `--schema S.avsc` or the inferred schema,
    /// and checks that every served format encodes it.
    pub fn load(data: &str, schema: Option<&str>) -> Result<Document, String> {
        let loaded = generic::input::load(data, schema)?;
        let mut sizes = Vec::new();
        for f in Format::ALL.into_iter().filter(|&f| generic::supports(f)) {
            let mut out = Vec::new();
            generic::encode(f, &loaded.schema, &loaded.datum, &mut out)
                .map_err(|e| format!("{data}: {}: {e}", f.name()))?;
            sizes.push((f, out.len()));
        }
        let derived = |target| generic::derive::derive(&loaded.schema, target).ok();
        Ok(Document {
            sizes,
            proto: derived(generic::derive::Target::Proto),
            fbs: derived(generic::derive::Target::Fbs),
            schema: loaded.schema,
            avsc: loaded.schema_text,
            datum: loaded.datum,
        })
    }

    /// The document's encoded size in `format` (0 for a format not served).
    pub fn size(&self, format: Format) -> usize {
        self.sizes.iter().find(|(f, _)| *f == format).map_or(0, |(_, n)| *n)
    }

    /// The text of `/schemas/{name}` for a name of [`DOCUMENT_SCHEMAS`];
    /// `None` when the schema has no such derivation.
    pub fn schema_text(&self, name: &str) -> Option<&str> {
        match name {
            "data.avsc" => Some(&self.avsc),
            "data.proto" => self.proto.as_deref(),
            "data.fbs" => self.fbs.as_deref(),
            _ => None,
        }
    }
}

/// What a payload route encodes: the first `count` products, or the document.
#[derive(Debug, Clone)]
pub enum Payload {
    Catalog { products: Arc<Vec<Product>>, count: usize },
    Document(Arc<Document>),
}

impl Payload {
    /// Bytes to reserve before encoding it in `format`: an upper bound for
    /// the catalog, the exact size for the document.
    pub fn reserve(&self, format: Format) -> usize {
        match self {
            Payload::Catalog { count, .. } => count.saturating_mul(BYTES_PER_PRODUCT),
            Payload::Document(d) => d.size(format),
        }
    }

    /// Appends its encoding in `format` to `out`.
    pub fn encode(&self, format: Format, out: &mut Vec<u8>) -> Result<(), String> {
        let r = match self {
            Payload::Catalog { products, count } => format
                .encode(&products[..(*count).min(products.len())], out)
                .map_err(|e| e.to_string()),
            Payload::Document(d) => generic::encode(format, &d.schema, &d.datum, out).map_err(|e| e.to_string()),
        };
        r.map_err(|e| format!("encoding {} failed: {e}", format.name()))
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
