//! The vocabulary every annotator shares: what a byte is for ([`Category`]),
//! an annotated run of bytes ([`Span`]) and who owns it ([`Owner`]), the
//! result of a walk ([`Explained`], [`Failed`]) and the bounds-checked
//! [`Walker`] that records spans as it reads.

use super::value::Value;
use crate::codec::Format;
use crate::generic::schema::NodeId;
use std::fmt;

/// What a byte is for. The summary adds bytes up by category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// Field names written into the payload (JSON and MessagePack keys).
    Key,
    /// Everything that frames the data: markers, tags, type bytes, lengths,
    /// counts, offsets, vtables, punctuation.
    Structure,
    /// Bytes that exist only for alignment.
    Padding,
    /// The data itself: digits, string bytes, fixed-width numbers.
    Value,
}

impl Category {
    pub const ALL: [Category; 4] = [Category::Key, Category::Structure, Category::Padding, Category::Value];

    pub fn name(self) -> &'static str {
        match self {
            Category::Key => "keys",
            Category::Structure => "structure",
            Category::Padding => "padding",
            Category::Value => "values",
        }
    }
}

/// Spans outside any product: the catalog envelope.
pub const ENVELOPE: &str = "(envelope)";
/// Spans of a product that belong to no single field (its map/record framing).
pub const FRAMING: &str = "(product framing)";

/// One annotated run of bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub offset: usize,
    pub len: usize,
    /// Nesting depth, for indentation.
    pub depth: usize,
    pub category: Category,
    /// The top-level product field these bytes belong to, or [`ENVELOPE`] / [`FRAMING`].
    /// The summary adds bytes up by this field, once per byte.
    pub field: &'static str,
    pub meaning: String,
    /// Every owner of these bytes: one for data read once; several for data
    /// that several tables point at (a FlatBuffers vtable or string shared
    /// by many products), one per product and field that reaches it. In a
    /// document, the path of the value the bytes belong to.
    pub owners: Vec<Owner>,
    /// The member of the root object these bytes belong to, by its position
    /// in the payload (0 for the first member read); `None` for the root's
    /// own framing. The per-member summary of a user's document
    /// ([`super::data`]) adds bytes up by it.
    pub top: Option<usize>,
}

/// Who a span belongs to: a product (by index in the catalog) and its
/// field, or in a document the value at a JSON path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Owner {
    /// The product's index, or `None` outside every product (the envelope).
    pub product: Option<usize>,
    /// A field of [`PRODUCT_FIELDS`], [`FRAMING`] or [`ENVELOPE`].
    pub field: &'static str,
    /// In a document, the path of the value ([`Walker::path`]); `None` in
    /// the catalog, whose path is its product and field.
    pub path: Option<String>,
}

impl Owner {
    /// The JSON path of the value the bytes belong to, without `$.`:
    /// `products[3].name`, `products[3]` (its framing), `orders[0].tags.gift`,
    /// or `(envelope)` for the root's own framing.
    pub fn path(&self) -> String {
        match (&self.path, self.product) {
            (Some(p), _) if p.is_empty() => ENVELOPE.to_string(),
            (Some(p), _) => p.clone(),
            (None, None) => self.field.to_string(),
            (None, Some(i)) if self.field == FRAMING || self.field == ENVELOPE => format!("products[{i}]"),
            (None, Some(i)) => format!("products[{i}].{}", self.field),
        }
    }
}

/// The first byte an annotator could not make sense of.
#[derive(Clone, Debug, PartialEq)]
pub struct ExplainError {
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for ExplainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

impl std::error::Error for ExplainError {}

/// An annotated payload: spans in order and what the annotator read.
#[derive(Clone, Debug)]
pub struct Explained {
    pub format: Format,
    /// The payload itself (the dump shows its bytes).
    pub bytes: Vec<u8>,
    pub spans: Vec<Span>,
    /// What the annotator read, as plain JSON (the spelling of
    /// [`crate::generic::datum::Datum::write_json`]), so a test can hold it
    /// to the real decoder's reading of the same bytes.
    pub json: String,
    /// The root record's members in payload order ([`Span::top`] indexes them).
    pub members: Vec<String>,
}

/// A failed walk keeps the spans read so far, so the dump can show them.
#[derive(Clone, Debug)]
pub struct Failed {
    pub spans: Vec<Span>,
    pub error: ExplainError,
}

/// The shared bookkeeping of every annotator: a position in the payload,
/// bounds-checked reads, and the spans recorded so far.
#[derive(Debug)]
pub(crate) struct Walker<'a> {
    pub bytes: &'a [u8],
    pub pos: usize,
    pub spans: Vec<Span>,
    /// Current nesting depth (indentation of the next span).
    pub depth: usize,
    /// The product field the next span belongs to.
    pub field: &'static str,
    /// The product the next span belongs to (`None`: the envelope).
    pub product: Option<usize>,
    /// Products entered so far: the index of the next one.
    pub products: usize,
    /// The root member the next span belongs to ([`Span::top`]).
    pub top: Option<usize>,
    /// The record type whose instances are the entries the per-field
    /// summary adds up (the catalog's `Product`); `None` for a document.
    pub entry: Option<NodeId>,
    /// In a document, the JSON path of the value the next span belongs to
    /// (`orders[0].tags.gift`, `""` for the root); `None` for the catalog.
    pub path: Option<String>,
}

impl<'a> Walker<'a> {
    pub fn new(bytes: &'a [u8]) -> Walker<'a> {
        Walker {
            bytes,
            pos: 0,
            spans: Vec::new(),
            depth: 0,
            field: ENVELOPE,
            product: None,
            products: 0,
            top: None,
            entry: None,
            path: None,
        }
    }

    /// A walker of a document: its spans are owned by JSON paths.
    pub fn document(bytes: &'a [u8]) -> Walker<'a> {
        Walker {
            path: Some(String::new()),
            ..Walker::new(bytes)
        }
    }

    /// In a document, the next spans belong to the value at `path` (`$`,
    /// `$.orders[0].id`); returns what [`Walker::relocate`] restores.
    pub fn locate(&mut self, path: &str) -> Option<String> {
        let at = self.path.as_mut()?;
        let p = path.strip_prefix("$.").or(path.strip_prefix('$')).unwrap_or(path);
        Some(std::mem::replace(at, p.to_string()))
    }

    /// Restores the path from before [`Walker::locate`] or [`Walker::descend`].
    pub fn relocate(&mut self, saved: Option<String>) {
        if saved.is_some() {
            self.path = saved;
        }
    }

    /// Runs `f` with the next spans owned by the value at `path` (in a
    /// document; the catalog's owners are its product fields), then restores
    /// the path from before.
    pub fn within<T>(&mut self, path: &str, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.locate(path);
        let r = f(self);
        self.relocate(saved);
        r
    }

    /// In a document, the next spans belong to member `key` (`Ok`) or item
    /// `index` (`Err`) of the current value; returns what
    /// [`Walker::relocate`] restores.
    pub fn descend(&mut self, step: Result<&str, usize>) -> Option<String> {
        let at = self.path.as_ref()?;
        let child = match step {
            Ok(key) if at.is_empty() => key.to_string(),
            Ok(key) => format!("{at}.{key}"),
            Err(i) => format!("{at}[{i}]"),
        };
        self.path.replace(child)
    }

    /// Enters a value of type `node`: an entry ([`Walker::entry`]) begins a
    /// product. Returns what [`Walker::leave`] restores.
    pub fn enter(&mut self, node: NodeId) -> Option<(Option<usize>, &'static str)> {
        (self.entry == Some(node)).then(|| self.begin_product())
    }

    /// Leaves the value [`Walker::enter`] entered.
    pub fn leave(&mut self, saved: Option<(Option<usize>, &'static str)>) {
        if let Some(saved) = saved {
            self.end_product(saved);
        }
    }

    /// The next spans belong to field `name` of a record of type `record`:
    /// of the product, when the record is an entry.
    pub fn name_field(&mut self, record: NodeId, name: &str) {
        if self.entry == Some(record) {
            self.field = static_field(name);
        }
    }

    /// Enters the next product: its framing owns the spans until a field is
    /// set. Returns what [`Walker::end_product`] restores.
    pub fn begin_product(&mut self) -> (Option<usize>, &'static str) {
        let saved = (self.product, self.field);
        self.product = Some(self.products);
        self.products += 1;
        self.field = FRAMING;
        saved
    }

    /// Leaves a product, restoring the owner from before [`Walker::begin_product`].
    pub fn end_product(&mut self, saved: (Option<usize>, &'static str)) {
        (self.product, self.field) = saved;
    }

    /// `n` bytes from the current position; an error if the payload ends first.
    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ExplainError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end {
            Some(end) => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err(self.err(
                self.pos,
                format!("{what} needs {n} bytes but only {} remain", self.bytes.len() - self.pos),
            )),
        }
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, ExplainError> {
        Ok(self.take(1, what)?[0])
    }

    /// Records the bytes from `start` to the current position as one span.
    pub fn span(&mut self, start: usize, category: Category, meaning: impl Into<String>) {
        self.span_at(start, self.pos - start, category, meaning);
    }

    /// Records `len` bytes at `offset` as one span.
    pub fn span_at(&mut self, offset: usize, len: usize, category: Category, meaning: impl Into<String>) {
        if len == 0 {
            return;
        }
        self.spans.push(Span {
            offset,
            len,
            depth: self.depth,
            category,
            field: self.field,
            meaning: meaning.into(),
            owners: vec![Owner {
                product: self.product,
                field: self.field,
                path: self.path.clone(),
            }],
            top: self.top,
        });
    }

    #[cold]
    pub fn err(&self, offset: usize, message: impl Into<String>) -> ExplainError {
        ExplainError {
            offset,
            message: message.into(),
        }
    }

    /// Ends a walk: the value if every byte was read, else the error with the
    /// spans read so far.
    pub fn finish(self, result: Result<Value, ExplainError>) -> Result<(Vec<Span>, Value), Failed> {
        match result {
            Ok(_) if self.pos < self.bytes.len() => Err(Failed {
                error: ExplainError {
                    offset: self.pos,
                    message: format!("{} trailing bytes after the root value", self.bytes.len() - self.pos),
                },
                spans: self.spans,
            }),
            Ok(v) => Ok((self.spans, v)),
            Err(error) => Err(Failed {
                spans: self.spans,
                error,
            }),
        }
    }
}

/// A payload that does not parse: the dump of what did, and the first error.
#[derive(Clone, Debug)]
pub struct Unparsable {
    pub partial: String,
    pub error: ExplainError,
}

/// Deepest nesting an annotator follows (our catalog needs 4).
pub(crate) const MAX_DEPTH: usize = 64;

/// "1 entry", "3 entries".
pub(crate) fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// A short, printable rendering of string bytes for the meaning column.
pub(crate) fn preview(s: &str) -> String {
    const MAX: usize = 40;
    let mut out = String::from("\"");
    for (i, c) in s.chars().enumerate() {
        if i == MAX {
            out.push('…');
            break;
        }
        out.extend(c.escape_debug());
    }
    out.push('"');
    out
}

/// The product's fields in field order: the rows of the per-field tables.
pub use crate::model::PRODUCT_FIELDS;

/// The `'static` name of a product field, or [`FRAMING`] for a key we do not know.
pub(crate) fn static_field(name: &str) -> &'static str {
    PRODUCT_FIELDS.iter().copied().find(|f| *f == name).unwrap_or(FRAMING)
}

/// (offset, length, meaning) of each span: what the annotators' unit tests compare.
#[cfg(test)]
pub(crate) type Spans = Vec<(usize, usize, String)>;

/// A schema-driven annotator: the plain JSON it read and the root's members.
#[cfg(test)]
type SchemaWalk = fn(&mut Walker<'_>, &crate::generic::schema::Schema) -> Result<(String, Vec<String>), ExplainError>;

/// Walks `bytes` with a schema-driven `annotate` by the schema text
/// `schema`: the plain JSON read and the spans.
#[cfg(test)]
pub(crate) fn walk_by(annotate: SchemaWalk, schema: &str, bytes: &[u8]) -> Result<(String, Spans), ExplainError> {
    let schema = crate::generic::schema::Schema::parse(schema.as_bytes()).unwrap();
    let mut w = Walker::new(bytes);
    let (json, _) = annotate(&mut w, &schema)?;
    let spans = w.spans.iter().map(|s| (s.offset, s.len, s.meaning.clone())).collect();
    Ok((json, spans))
}
/// Each span as `(offset, length, meaning)`: what a test of a walk pins.
#[cfg(test)]
pub(crate) fn layout(spans: &[Span]) -> Vec<(usize, usize, &str)> {
    spans.iter().map(|s| (s.offset, s.len, s.meaning.as_str())).collect()
}
