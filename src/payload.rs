//! The one thing every tool serves, sends, measures and explains: a
//! [`Payload`], either the catalog (the first N products of a product list)
//! or a user's JSON document with its Avro schema (`--data FILE.json
//! [--schema S.avsc]`).
//!
//! | operation | the catalog | a document |
//! |---|---|---|
//! | [`Payload::encode`] into a caller's buffer | the specialised codecs ([`crate::codec::Format::encode`]) | the schema-driven codecs ([`crate::generic::encode`]) |
//! | [`Payload::size`] | encoded and measured | measured once, when the document is loaded |
//! | [`Payload::verify`] a body | decoded ([`Verify`]: borrowed view or owned), N products | decoded with the schema, plain JSON equal to the document's |
//! | [`Payload::difference`] | the first product field that differs | the first JSON byte that differs |
//! | [`Payload::annotate`] for the explainer | the annotators by the catalog's schema ([`crate::explain::explain`]), owned by product field | the same annotators by the document's schema ([`crate::explain::annotate`]), owned by root member |
//!
//! **Invariant:** a payload is immutable once built; a catalog payload
//! shares its product list ([`Arc`]), so [`Payload::with_count`] is cheap, and
//! a document payload is checked to encode in every format when it is built.

use crate::codec::{self, Format};
use crate::explain::{self, Explained, Failed, Unparsable};
use crate::generic::{self, datum::Datum, error::GenericError, input, schema::Schema};
use crate::model::{Catalog, Product};
use std::fmt;
use std::sync::Arc;

/// What a tool serves, sends, measures or explains.
#[derive(Clone, Debug)]
pub enum Payload {
    /// The first `count` products of a product list.
    Catalog(Products),
    /// A user's document and its schema.
    Document(Arc<Document>),
}

/// The catalog: the first [`Products::count`] of a shared product list.
#[derive(Clone, Debug)]
pub struct Products {
    all: Arc<Vec<Product>>,
    count: usize,
}

impl Products {
    /// The products this payload carries.
    pub fn products(&self) -> &[Product] {
        &self.all[..self.count]
    }

    /// How many products it carries.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The whole shared list (more than [`Products::count`] when cut by
    /// [`Payload::with_count`]).
    pub fn all(&self) -> &Arc<Vec<Product>> {
        &self.all
    }
}

/// A user's document: its schema (given or inferred), the schemas derived
/// from it, the datum, and its size in each format.
#[derive(Debug)]
pub struct Document {
    pub schema: Schema,
    /// The `.avsc` text of [`Document::schema`] (`/schemas/data.avsc`).
    pub avsc: String,
    /// The `.proto` and `.fbs` derived from it ([`generic::derive`]), when it has a derivation.
    pub proto: Option<String>,
    pub fbs: Option<String>,
    pub datum: Datum,
    /// The document's plain JSON ([`Datum::write_json`]): what a body must decode to.
    json: String,
    /// Encoded size per format, in [`Format::ALL`] order.
    sizes: [usize; 5],
}

impl Document {
    /// The document `datum` of `schema` (whose text is `avsc`), checked to
    /// encode in every format.
    pub fn new(schema: Schema, avsc: String, datum: Datum) -> Result<Document, String> {
        let mut sizes = [0; 5];
        let mut out = Vec::new();
        for (i, f) in Format::ALL.into_iter().enumerate() {
            out.clear();
            generic::encode(f, &schema, &datum, &mut out).map_err(|e| format!("{}: {e}", f.name()))?;
            sizes[i] = out.len();
        }
        let derived = |target| generic::derive::derive(&schema, target).ok();
        Ok(Document {
            proto: derived(generic::derive::Target::Proto),
            fbs: derived(generic::derive::Target::Fbs),
            json: datum.to_json(),
            sizes,
            schema,
            avsc,
            datum,
        })
    }

    /// `--data FILE.json` with `--schema S.avsc`, or the schema inferred from it.
    pub fn load(data: &str, schema: Option<&str>) -> Result<Document, String> {
        let loaded = input::load(data, schema)?;
        Document::new(loaded.schema, loaded.schema_text, loaded.datum).map_err(|e| format!("{data}: {e}"))
    }

    /// The document's plain JSON.
    pub fn json(&self) -> &str {
        &self.json
    }

    /// The `.avsc`, `.proto` or `.fbs` text (`ext` without the dot).
    pub fn schema_text(&self, ext: &str) -> Option<&str> {
        match ext {
            "avsc" => Some(&self.avsc),
            "proto" => self.proto.as_deref(),
            "fbs" => self.fbs.as_deref(),
            _ => None,
        }
    }
}

/// Why an encode failed.
#[derive(Debug)]
pub enum EncodeError {
    Catalog(codec::EncodeError),
    Document(GenericError),
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::Catalog(e) => e.fmt(f),
            EncodeError::Document(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for EncodeError {}

/// Why a body is not the payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// It does not decode as the format (with the document's schema).
    Decode,
    /// It decodes, to something else: another product count, another document.
    Mismatch,
}

/// How a catalog body is verified. Both validate every byte (UTF-8, ranges,
/// list limits, enum values, required and duplicate fields, unique ids,
/// trailing bytes) and check the product count; they differ in what they
/// build. A document body is always decoded to a datum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Verify {
    /// [`Format::decode_view`]: a view that borrows the body, no allocation
    /// per product (the default: a load client spends less of the cores it
    /// shares with the server).
    #[default]
    Borrowed,
    /// [`Format::decode`]: the owned domain types, as an application would
    /// build them.
    Owned,
}

impl Verify {
    pub const ALL: [Verify; 2] = [Verify::Borrowed, Verify::Owned];

    /// The name used by `load --verify` and in the CSV's `verify` column.
    pub fn name(self) -> &'static str {
        match self {
            Verify::Borrowed => "borrowed",
            Verify::Owned => "owned",
        }
    }

    /// Parses [`Verify::name`].
    pub fn from_name(name: &str) -> Option<Verify> {
        Verify::ALL.into_iter().find(|v| v.name() == name)
    }

    /// Checks `body` as a catalog in `format` and returns its product count.
    pub fn product_count(self, format: Format, body: &[u8]) -> Result<usize, codec::DecodeError> {
        match self {
            Verify::Borrowed => format.decode_view(body).map(|v| v.len()),
            Verify::Owned => format.decode(body).map(|c| c.products.len()),
        }
    }
}

impl std::str::FromStr for Verify {
    type Err = String;
    fn from_str(s: &str) -> Result<Verify, String> {
        Verify::from_name(s).ok_or_else(|| format!("expected borrowed or owned, found {s:?}"))
    }
}

impl Payload {
    /// The catalog of every product in `products`.
    pub fn catalog(products: Arc<Vec<Product>>) -> Payload {
        let count = products.len();
        Payload::Catalog(Products { all: products, count })
    }

    /// The deterministic catalog of `n` products ([`crate::fixtures::catalog`]).
    pub fn fixture(n: usize) -> Payload {
        Payload::catalog(Arc::new(crate::fixtures::catalog(n).products))
    }

    /// A user's document.
    pub fn document(document: Document) -> Payload {
        Payload::Document(Arc::new(document))
    }

    /// The same catalog cut to its first `n` products; `None` for a document
    /// or when the list holds fewer than `n`.
    pub fn with_count(&self, n: usize) -> Option<Payload> {
        match self {
            Payload::Catalog(p) if n <= p.all.len() => Some(Payload::Catalog(Products {
                all: Arc::clone(&p.all),
                count: n,
            })),
            _ => None,
        }
    }

    /// "catalog" or "document": what the payload is, in messages and table titles.
    pub fn kind(&self) -> &'static str {
        match self {
            Payload::Catalog(_) => "catalog",
            Payload::Document(_) => "document",
        }
    }

    /// The catalog's products (`None` for a document).
    pub fn products(&self) -> Option<&[Product]> {
        match self {
            Payload::Catalog(p) => Some(p.products()),
            Payload::Document(_) => None,
        }
    }

    /// The document (`None` for the catalog).
    pub fn as_document(&self) -> Option<&Document> {
        match self {
            Payload::Catalog(_) => None,
            Payload::Document(d) => Some(d),
        }
    }

    /// Appends the payload in `format` to `out`.
    pub fn encode(&self, format: Format, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            Payload::Catalog(p) => format.encode(p.products(), out).map_err(EncodeError::Catalog),
            Payload::Document(d) => generic::encode(format, &d.schema, &d.datum, out).map_err(EncodeError::Document),
        }
    }

    /// The payload in `format`, in a new buffer.
    pub fn encode_to_vec(&self, format: Format) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        self.encode(format, &mut out)?;
        Ok(out)
    }

    /// Reads `bytes` as this payload's kind in `format` (a catalog with the
    /// owned decoder, a document with its schema), drops what it built and
    /// returns how many products it read (a document counts as one): the
    /// operation a decode benchmark times. It checks what the decoder
    /// checks, not that `bytes` is this payload ([`Payload::verify`] does).
    pub fn decode(&self, format: Format, bytes: &[u8]) -> Result<usize, String> {
        match self {
            Payload::Catalog(_) => format
                .decode(bytes)
                .map(|c| c.products.len())
                .map_err(|e| e.to_string()),
            Payload::Document(d) => generic::decode(format, &d.schema, bytes)
                .map(|_| 1)
                .map_err(|e| e.to_string()),
        }
    }

    /// The payload's size in `format`, in bytes.
    pub fn size(&self, format: Format) -> Result<usize, EncodeError> {
        match self {
            Payload::Catalog(_) => self.encode_to_vec(format).map(|v| v.len()),
            Payload::Document(d) => Ok(d.sizes[format_index(format)]),
        }
    }

    /// Ok when `body` is this payload in `format`; a catalog body is read
    /// with `how`.
    pub fn verify(&self, format: Format, body: &[u8], how: Verify) -> Result<(), Refusal> {
        match self {
            Payload::Catalog(p) => {
                let n = how.product_count(format, body).map_err(|_| Refusal::Decode)?;
                if n == p.count { Ok(()) } else { Err(Refusal::Mismatch) }
            }
            Payload::Document(d) => {
                let datum = generic::decode(format, &d.schema, body).map_err(|_| Refusal::Decode)?;
                let mut json = String::with_capacity(d.json.len());
                datum.write_json(&mut json);
                if json == d.json { Ok(()) } else { Err(Refusal::Mismatch) }
            }
        }
    }

    /// The first difference between `body` and the payload in words; `None`
    /// when `body` is the payload. A catalog is compared field by field
    /// (`products[2].stock: expected 3, found 4`; `rating` bit for bit).
    pub fn difference(&self, format: Format, body: &[u8]) -> Option<String> {
        match self {
            Payload::Catalog(p) => match format.decode(body) {
                Err(e) => Some(format!("the body does not decode as {}: {e}", format.name())),
                Ok(got) if got.products.len() != p.count => Some(format!(
                    "products: expected {} products, found {}",
                    p.count,
                    got.products.len()
                )),
                Ok(got) => first_difference(p.products(), &got),
            },
            Payload::Document(d) => match generic::decode(format, &d.schema, body) {
                Err(e) => Some(format!("the body does not decode as {}: {e}", format.name())),
                Ok(datum) => json_difference(&d.json, &datum.to_json()),
            },
        }
    }

    /// Annotates `bytes`, read as this payload's kind in `format`: every
    /// span with its owner (a product field, or a member of the document's
    /// root).
    pub fn annotate(&self, format: Format, bytes: &[u8]) -> Result<Explained, Failed> {
        match self {
            Payload::Catalog(_) => explain::explain(format, bytes),
            Payload::Document(d) => explain::annotate(format, &d.schema, None, bytes),
        }
    }

    /// What `explain FORMAT` prints for `bytes`: the dump (when `dump`) and
    /// the summary; the dump of what did read and the error for bytes that do not.
    pub fn explain_text(&self, format: Format, bytes: &[u8], dump: bool) -> Result<String, Unparsable> {
        match self {
            Payload::Catalog(_) => explain::explain_text(format, bytes, dump),
            Payload::Document(d) => explain::document_text(format, &d.schema, bytes, dump),
        }
    }

    /// The annotation of `bytes` as one JSON object (with the members
    /// `extra` adds), the form the browser page reads; for bytes that do not
    /// read, the spans read so far and the error.
    pub fn explain_json(&self, format: Format, bytes: &[u8], extra: &[(&str, String)]) -> String {
        match (self, self.annotate(format, bytes)) {
            (Payload::Catalog(_), Ok(ex)) => explain::to_json(&ex, extra),
            (Payload::Document(_), Ok(ex)) => explain::document_json(&ex, extra),
            (_, Err(failed)) => explain::failed_json(format, bytes, &failed, extra),
        }
    }
}

/// `format`'s position in [`Format::ALL`].
fn format_index(format: Format) -> usize {
    Format::ALL.iter().position(|&f| f == format).unwrap_or(0)
}

/// Where plain JSON `got` first differs from `want`, with 20 bytes of
/// context each side; `None` when equal.
fn json_difference(want: &str, got: &str) -> Option<String> {
    if got == want {
        return None;
    }
    let at = got.bytes().zip(want.bytes()).take_while(|(a, b)| a == b).count();
    let context = |s: &str| {
        s.get(at.saturating_sub(20)..(at + 20).min(s.len()))
            .unwrap_or("")
            .to_string()
    };
    Some(format!(
        "the body decodes to a different document: at JSON byte {at}, expected …{}…, found …{}…",
        context(want),
        context(got)
    ))
}

/// The first difference between the first `got.products.len()` of
/// `expected` and `got`, as `products[i].field: expected …, found …`; None
/// when equal. `rating` is compared bit for bit.
pub fn first_difference(expected: &[Product], got: &Catalog) -> Option<String> {
    if got.products.len() > expected.len() {
        return Some(format!(
            "products: expected at most {} products, found {}",
            expected.len(),
            got.products.len()
        ));
    }
    for (i, (e, g)) in expected.iter().zip(&got.products).enumerate() {
        if let Some(d) = product_difference(e, g) {
            return Some(format!("products[{i}].{d}"));
        }
    }
    None
}

fn product_difference(e: &Product, g: &Product) -> Option<String> {
    macro_rules! field {
        ($name:ident) => {
            if e.$name != g.$name {
                return Some(format!(
                    "{}: expected {:?}, found {:?}",
                    stringify!($name),
                    e.$name,
                    g.$name
                ));
            }
        };
    }
    field!(id);
    field!(sku);
    field!(name);
    field!(description);
    field!(price_cents);
    field!(currency);
    if e.rating.to_bits() != g.rating.to_bits() {
        return Some(format!("rating: expected {:?}, found {:?}", e.rating, g.rating));
    }
    field!(review_count);
    field!(in_stock);
    field!(stock);
    field!(status);
    field!(tags);
    field!(dimensions);
    field!(variants);
    field!(discount_percent);
    field!(created_at_ms);
    field!(image_url);
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    const DOC: &[u8] = br#"{"a":[1,2,3],"b":"x","c":null}"#;

    fn document(text: &[u8]) -> Payload {
        let inferred = generic::infer::infer(DOC).unwrap().schema;
        let schema = Schema::parse(inferred.as_bytes()).unwrap();
        let datum = generic::json::decode(&schema, text).unwrap();
        Payload::document(Document::new(schema, inferred, datum).unwrap())
    }

    #[test]
    fn both_kinds_encode_measure_verify_and_annotate_alike() {
        for payload in [Payload::fixture(3), document(DOC)] {
            for format in Format::ALL {
                let mut body = b"prefix".to_vec();
                payload.encode(format, &mut body).unwrap();
                let body = &body[6..];
                assert_eq!(payload.size(format).unwrap(), body.len(), "{format}");
                for how in Verify::ALL {
                    assert_eq!(payload.verify(format, body, how), Ok(()), "{format}");
                    let cut = &body[..body.len() / 2];
                    assert_eq!(payload.verify(format, cut, how), Err(Refusal::Decode), "{format}");
                }
                assert_eq!(payload.difference(format, body), None, "{format}");
                assert_eq!(
                    payload.decode(format, body),
                    Ok(payload.products().map_or(1, <[_]>::len)),
                    "{format}"
                );
                assert!(payload.decode(format, &body[..body.len() / 2]).is_err(), "{format}");
                let ex = payload.annotate(format, body).unwrap();
                assert_eq!(ex.spans.iter().map(|s| s.len).sum::<usize>(), body.len(), "{format}");
                assert!(
                    payload
                        .explain_text(format, body, true)
                        .unwrap()
                        .contains("where the bytes go")
                );
                assert!(payload.explain_json(format, body, &[]).starts_with('{'));
                assert!(payload.explain_text(format, &body[..body.len() / 2], true).is_err());
            }
        }
    }

    #[test]
    fn another_payload_of_the_same_shape_is_a_mismatch() {
        let (three, two) = (Payload::fixture(3), Payload::fixture(3).with_count(2).unwrap());
        assert_eq!(two.products().unwrap().len(), 2);
        assert!(Payload::fixture(3).with_count(4).is_none());
        assert!(document(DOC).with_count(1).is_none());
        let (doc, other) = (document(DOC), document(br#"{"a":[1,2,4],"b":"x","c":null}"#));
        for format in Format::ALL {
            let body = three.encode_to_vec(format).unwrap();
            assert_eq!(two.verify(format, &body, Verify::Borrowed), Err(Refusal::Mismatch));
            let d = two.difference(format, &body).unwrap();
            assert!(d.contains("expected 2 products, found 3"), "{d}");
            let body = other.encode_to_vec(format).unwrap();
            assert_eq!(doc.verify(format, &body, Verify::Owned), Err(Refusal::Mismatch));
            assert!(doc.difference(format, &body).unwrap().contains("different document"));
        }
    }

    #[test]
    fn verify_names_round_trip() {
        assert_eq!(Verify::default(), Verify::Borrowed);
        for v in Verify::ALL {
            assert_eq!(Verify::from_name(v.name()), Some(v));
            assert_eq!(v.name().parse::<Verify>(), Ok(v));
        }
        assert!("full".parse::<Verify>().is_err());
    }

    #[test]
    fn differences_name_the_field() {
        let expected = fixtures::catalog(3).products;
        let mut got = fixtures::catalog(3);
        assert_eq!(first_difference(&expected, &got), None);
        got.products[2].stock += 1;
        let d = first_difference(&expected, &got).unwrap();
        assert!(d.starts_with("products[2].stock: expected "), "{d}");
        let mut got = fixtures::catalog(2);
        got.products[0].rating = f64::from_bits(expected[0].rating.to_bits() ^ 1);
        let d = first_difference(&expected, &got).unwrap();
        assert!(d.starts_with("products[0].rating: expected "), "{d}");
        let payload = Payload::fixture(3);
        let body = Format::Json.encode_to_vec(&got.products).unwrap();
        assert!(
            payload
                .difference(Format::Json, &body)
                .unwrap()
                .contains("expected 3 products")
        );
    }
}
