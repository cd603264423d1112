//! The schema-driven JSON codec: JSON text ↔ [`Datum`] against an Avro
//! schema. [`decode`] is how a user's JSON document becomes a datum,
//! [`encode`] how a datum is written back as compact RFC 8259 text.
//! `{"id":7,"note":null}` is the record `{id: long, note: ["null","string"]}`
//! with `note` null: 20 bytes. With `schemas/catalog.avsc` the bytes equal
//! the catalog's JSON codec's bytes for the same catalog (`tests/generic.rs`).
//!
//! Reading (RFC 8259 text, checked as UTF-8 once):
//!
//! | schema type | JSON accepted |
//! |---|---|
//! | `null`, `boolean` | `null`, `true`/`false` |
//! | `int`, `long` | an integer literal (no fraction or exponent) within range |
//! | `float`, `double` | any number whose value is finite in the type |
//! | `string` | a string |
//! | `bytes`, `fixed` | a string of code points 0–255, one per byte (Avro "JSON Encoding"); `fixed` of its size |
//! | `enum` | a string naming a symbol: exactly, else ignoring ASCII case when one symbol matches (the spelling is kept) |
//! | `array` | an array |
//! | `map` | an object (keys are data; a repeated key is refused) |
//! | `record` | an object with the fields as members in any order; a member the record lacks, or a repeated one, is refused; an absent field takes its default, else `null` if its type is a union with `null`, else it is missing |
//! | union | the bare value (no `{"type": value}` wrapper): the first branch that accepts it |
//!
//! Writing is the inverse, compact (no whitespace), record fields in schema
//! order, numbers and strings spelled as the catalog's JSON codec and
//! serde_json spell them; NaN and infinities have no JSON spelling and are
//! refused.
//!
//! Errors carry the JSON Pointer of the value and the byte offset; nesting
//! is bounded by [`MAX_DEPTH`].

use super::datum::{Datum, Scalars};
use super::error::{GenericError, GenericErrorKind, decoded, from_decode, mismatch, nest, nest_index, unknown_symbol};
use super::schema::{Node, NodeId, Schema};
use super::sink::Sink;
use super::walk::{self, MAX_DEPTH, check_unique_keys, enum_index, enum_symbol_index, record_field};
use crate::codec::json::float;
use crate::codec::json::lexer::{IntField, Lexer, Str, describe};
use crate::codec::json::{ESCAPE, HEX_DIGITS, HI, UU, find_special, marked, write_str};
use std::borrow::Cow;

type Result<T> = std::result::Result<T, GenericError>;

/// Reads one whole JSON text (surrounding whitespace allowed) as an instance
/// of `schema`'s root type.
pub fn decode(schema: &Schema, text: &[u8]) -> Result<Datum> {
    let text = crate::codec::utf8::text(text).map_err(|e| GenericError::invalid_utf8(e.offset))?;
    let mut r = Reader {
        lx: Lexer::new(text),
        schema,
    };
    let d = r.value(schema.root(), 0)?;
    r.lx.skip_ws();
    if r.lx.pos < text.len() {
        return Err(GenericError::trailing(r.lx.pos, text.len() - r.lx.pos));
    }
    Ok(d)
}

/// Appends `datum`, an instance of `schema`'s root type, as compact JSON
/// (on error, `out` is unchanged).
pub fn encode(schema: &Schema, datum: &Datum, out: &mut Vec<u8>) -> Result<()> {
    let mut sink = Sink::new(out);
    write_node(schema, schema.root(), datum, &mut sink, 0)?;
    sink.finish();
    Ok(())
}

const INT: IntField = IntField {
    expected: "int (an integer literal)",
    what: "int",
    min: i32::MIN as i64,
    max: i32::MAX as i64,
};

const LONG: IntField = IntField {
    expected: "long (an integer literal)",
    what: "long",
    min: i64::MIN,
    max: i64::MAX,
};

/// One scalar token, read before a union picks its branch.
enum Scalar<'a> {
    Null,
    Bool(bool),
    /// Start and end offsets of the number text, and whether it is integer syntax.
    Number(usize, usize, bool),
    /// Borrowed from the text unless it had escapes.
    String(Cow<'a, str>),
}

impl Scalar<'_> {
    fn found(&self, text: &str) -> String {
        match self {
            Scalar::Null => "null".into(),
            Scalar::Bool(b) => b.to_string(),
            Scalar::Number(s, e, _) => format!("number {}", &text[*s..*e]),
            Scalar::String(s) => {
                let mut q = Vec::new();
                write_str(&mut q, s);
                let q = String::from_utf8_lossy(&q).into_owned();
                if q.len() > 40 {
                    format!("string {}…", q.chars().take(40).collect::<String>())
                } else {
                    format!("string {q}")
                }
            }
        }
    }
}

struct Reader<'a> {
    lx: Lexer<'a>,
    schema: &'a Schema,
}

impl<'a> Reader<'a> {
    fn here(&self, expected: &str) -> GenericError {
        match self.lx.bytes.get(self.lx.pos) {
            Some(&b) => GenericError::unexpected("", Some(self.lx.pos), expected, describe(b)),
            None => GenericError::at(
                "",
                self.lx.pos,
                GenericErrorKind::Eof {
                    expected: expected.to_string(),
                },
            ),
        }
    }

    /// A string, borrowed from the text unless it has escapes.
    fn str(&mut self, expected: &'static str) -> Result<Cow<'a, str>> {
        let s = self.lx.string(expected).map_err(|e| from_decode("", e))?;
        Ok(match s {
            Str::Raw(s) => Cow::Borrowed(s),
            Str::Escaped => Cow::Owned(self.lx.scratch.clone()),
        })
    }

    /// One scalar token; `node` names what was expected in the error.
    fn scalar(&mut self, node: NodeId) -> Result<Scalar<'a>> {
        match self.lx.peek() {
            Some(b'n') if self.lx.null() => Ok(Scalar::Null),
            Some(b't' | b'f') => {
                let b = decoded(self.lx.boolean("true or false"))?;
                Ok(Scalar::Bool(b))
            }
            Some(b'"') => Ok(Scalar::String(self.str("string")?)),
            Some(b'-' | b'0'..=b'9') => {
                let (s, e, integer) = decoded(self.lx.number_token("number"))?;
                if let Some(b'0'..=b'9') = self.lx.bytes.get(e) {
                    return Err(GenericError::unexpected(
                        "",
                        Some(e),
                        "end of number (JSON forbids leading zeros)",
                        describe(self.lx.bytes[e]),
                    ));
                }
                self.lx.pos = e;
                Ok(Scalar::Number(s, e, integer))
            }
            _ => Err(self.here(&self.schema.describe(node))),
        }
    }

    fn value(&mut self, node: NodeId, depth: usize) -> Result<Datum> {
        let schema = self.schema;
        match schema.node(node) {
            Node::Array(items) => {
                self.enter(depth, b'[', "array")?;
                // Arrays of numbers (meshes, series) read into an unboxed
                // vector (`Datum::Scalars`), without a call or a `Datum` per
                // item: `value`'s fast paths, and `value` for any other
                // token (which has the errors).
                match schema.node(*items) {
                    Node::Double => {
                        let v = self.numbers(*items, depth, |r| r.double())?;
                        return Ok(Datum::Scalars(Scalars::Double(v)));
                    }
                    Node::Long => {
                        let v = self.numbers(*items, depth, |r| decoded(r.lx.integer(&LONG)))?;
                        return Ok(Datum::Scalars(Scalars::Long(v)));
                    }
                    Node::Int => {
                        let int = |r: &mut Self| decoded(r.lx.integer(&INT)).map(|v| v as i32);
                        let v = self.numbers(*items, depth, int)?;
                        return Ok(Datum::Scalars(Scalars::Int(v)));
                    }
                    _ => {}
                }
                let mut out = Vec::new();
                let mut first = true;
                while decoded(self.lx.next_element(&mut first))? {
                    let i = out.len();
                    out.push(self.value(*items, depth + 1).map_err(|e| nest_index(e, i))?);
                }
                Ok(Datum::Array(out))
            }
            Node::Map(values) => {
                let at = self.enter(depth, b'{', "object")?;
                let mut out: Vec<(String, Datum)> = Vec::new();
                let mut first = true;
                while decoded(self.lx.next_member(&mut first))? {
                    let key = self.str("object key")?.into_owned();
                    decoded(self.lx.expect(b':', "':' after object key"))?;
                    let v = self.value(*values, depth + 1).map_err(|e| nest(e, &key))?;
                    out.push((key, v));
                }
                check_unique_keys(&out, at)?;
                Ok(Datum::Map(out))
            }
            Node::Record(r) => {
                let at = self.enter(depth, b'{', "object")?;
                let mut fields = walk::RecordFields::new(schema, r);
                let mut first = true;
                while decoded(self.lx.next_member(&mut first))? {
                    let key_at = self.lx.peek().map(|_| self.lx.pos).unwrap_or(self.lx.pos);
                    let index = self.field_index(r, fields.next_index(), key_at)?;
                    if fields.has(index) {
                        return Err(GenericError::duplicate(r.fields[index].key(), key_at));
                    }
                    decoded(self.lx.expect(b':', "':' after object key"))?;
                    let v = self
                        .value(r.fields[index].ty, depth + 1)
                        .map_err(|e| nest(e, r.fields[index].key()))?;
                    fields.put(index, v);
                }
                Ok(Datum::Record(fields.finish(Some(at))?))
            }
            Node::Union(branches) => {
                if depth >= MAX_DEPTH {
                    return Err(GenericError::depth_limit(MAX_DEPTH, Some(self.lx.pos)));
                }
                let want: &[u8] = match self.lx.peek() {
                    Some(b'{') => b"rm",
                    Some(b'[') => b"a",
                    _ => b"",
                };
                if !want.is_empty() {
                    for (i, &b) in branches.iter().enumerate() {
                        let kind = match schema.node(b) {
                            Node::Record(_) => b'r',
                            Node::Map(_) => b'm',
                            Node::Array(_) => b'a',
                            _ => 0,
                        };
                        if want.contains(&kind) {
                            let v = self.value(b, depth + 1)?;
                            return Ok(Datum::Union(i as u32, Box::new(v)));
                        }
                    }
                    return Err(self.here(&schema.describe(node)));
                }
                let at = self.lx.peek().map(|_| self.lx.pos).unwrap_or(self.lx.pos);
                let mut s = self.scalar(node)?;
                let mut first_err = None;
                // Only branches of the token's kind can read it (the others'
                // errors would be dropped): no error is built for them.
                for (i, &b) in branches.iter().enumerate() {
                    if !fits(schema.node(b), &s) {
                        continue;
                    }
                    match self.convert(b, &mut s, at) {
                        Ok(v) => return Ok(Datum::Union(i as u32, Box::new(v))),
                        Err(e) => {
                            if first_err.is_none() && same_kind(schema.node(b), &s) {
                                first_err = Some(e);
                            }
                        }
                    }
                }
                Err(first_err.unwrap_or_else(|| {
                    GenericError::unexpected("", Some(at), schema.describe(node), s.found(self.lx.text))
                }))
            }
            // Numbers where the schema wants one: the lexer's fast paths.
            Node::Int | Node::Long | Node::Double if matches!(self.lx.peek(), Some(b'-' | b'0'..=b'9')) => {
                Ok(match schema.node(node) {
                    Node::Int => Datum::Int(decoded(self.lx.integer(&INT))? as i32),
                    Node::Long => Datum::Long(decoded(self.lx.integer(&LONG))?),
                    _ => Datum::Double(self.double()?),
                })
            }
            _ => {
                let at = self.lx.peek().map(|_| self.lx.pos).unwrap_or(self.lx.pos);
                let mut s = self.scalar(node)?;
                self.convert(node, &mut s, at)
            }
        }
    }

    /// The items of an unboxed array (its `[` read): `number` reads each
    /// at a digit or `-` (its fast path), [`Reader::scalar_item`] any other
    /// token (its error), each error naming the item's index.
    #[inline]
    fn numbers<T>(
        &mut self,
        items: NodeId,
        depth: usize,
        mut number: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut out = Vec::new();
        let mut first = true;
        while decoded(self.lx.next_element(&mut first))? {
            let v = match self.lx.peek() {
                Some(b'-' | b'0'..=b'9') => number(self),
                _ => self.scalar_item(items, depth),
            };
            out.push(v.map_err(|e| nest_index(e, out.len()))?);
        }
        Ok(out)
    }

    /// An item of an unboxed array (`double`, `long` or `int` items) at a token
    /// that is not a number: `value`'s answer, which is its error (no other
    /// token reads as a number).
    #[cold]
    fn scalar_item<T>(&mut self, items: NodeId, depth: usize) -> Result<T> {
        let at = self.lx.pos;
        let d = self.value(items, depth + 1)?;
        Err(GenericError::unexpected(
            "",
            Some(at),
            self.schema.describe(items),
            d.kind(),
        ))
    }

    /// A number (at a digit or `-`) read as a double: a short decimal a
    /// word at a time by the lexer, else by one scan that checks the
    /// grammar as it gathers the digits ([`float::parse::json_number`]),
    /// else (and for every error) by the lexer's grammar and std's parse.
    #[inline]
    fn double(&mut self) -> Result<f64> {
        if let Some(v) = self.lx.plain_float() {
            return Ok(v);
        }
        if let Some((v, end)) = float::parse::json_number(self.lx.bytes, self.lx.pos) {
            self.lx.pos = end;
            return Ok(v);
        }
        decoded(self.lx.float("double", "double"))
    }

    /// Reads a member key (borrowed unless escaped) and finds its field,
    /// trying `hint` (the next field in schema order) first.
    fn field_index(&mut self, r: &super::schema::Record, hint: usize, key_at: usize) -> Result<usize> {
        let s = decoded(self.lx.string("object key"))?;
        let key: &str = match &s {
            Str::Raw(k) => k,
            Str::Escaped => &self.lx.scratch,
        };
        if r.fields.get(hint).is_some_and(|f| f.key() == key) {
            return Ok(hint);
        }
        match r.fields.iter().position(|f| f.key() == key) {
            Some(i) => Ok(i),
            None => Err(GenericError::unexpected(
                "",
                Some(key_at),
                format!("a field of record {}", r.name.fullname),
                format!("member `{key}`"),
            )),
        }
    }

    /// Consumes the opening `open` of a container at `depth`; its offset.
    fn enter(&mut self, depth: usize, open: u8, what: &str) -> Result<usize> {
        let at = match self.lx.peek() {
            Some(b) if b == open => self.lx.pos,
            _ => return Err(self.here(what)),
        };
        if depth >= MAX_DEPTH {
            return Err(GenericError::depth_limit(MAX_DEPTH, Some(at)));
        }
        self.lx.pos += 1;
        Ok(at)
    }

    /// `s` as an instance of the non-container type `node` (a string
    /// read as a `string` is moved out of `s`: that conversion cannot fail).
    fn convert(&self, node: NodeId, s: &mut Scalar<'a>, at: usize) -> Result<Datum> {
        if let (Node::String, Scalar::String(v)) = (self.schema.node(node), &mut *s) {
            return Ok(Datum::String(std::mem::take(v).into_owned()));
        }
        let s: &Scalar = s;
        let text = self.lx.text;
        let bad = || GenericError::unexpected("", Some(at), self.schema.describe(node), s.found(text));
        let range = |what: &str, t: &str| GenericError::out_of_range(Some(at), what, t);
        Ok(match (self.schema.node(node), s) {
            (Node::Null, Scalar::Null) => Datum::Null,
            (Node::Boolean, Scalar::Bool(b)) => Datum::Boolean(*b),
            (Node::Int | Node::Long, Scalar::Number(st, en, integer)) => {
                let t = &text[*st..*en];
                if !integer {
                    return Err(GenericError::unexpected(
                        "",
                        Some(at),
                        format!("{} (an integer literal)", self.schema.describe(node)),
                        format!("number {t}"),
                    ));
                }
                let v: Option<i128> = t.parse().ok();
                if matches!(self.schema.node(node), Node::Int) {
                    match v.and_then(|v| i32::try_from(v).ok()) {
                        Some(v) => Datum::Int(v),
                        None => return Err(range("int", t)),
                    }
                } else {
                    match v.and_then(|v| i64::try_from(v).ok()) {
                        Some(v) => Datum::Long(v),
                        None => return Err(range("long", t)),
                    }
                }
            }
            (Node::Double, Scalar::Number(st, en, _)) => {
                let t = &text[*st..*en];
                match float::parse_or_std(t) {
                    Some(v) if v.is_finite() => Datum::Double(v),
                    _ => return Err(range("double", t)),
                }
            }
            (Node::Float, Scalar::Number(st, en, _)) => {
                let t = &text[*st..*en];
                match t.parse::<f32>() {
                    Ok(v) if v.is_finite() => Datum::Float(v),
                    _ => return Err(range("float", t)),
                }
            }
            (Node::Bytes, Scalar::String(v)) => {
                Datum::Bytes(latin1(v).ok_or_else(|| {
                    GenericError::unexpected("", Some(at), "bytes (code points 0-255)", s.found(text))
                })?)
            }
            (Node::Fixed(f), Scalar::String(v)) => match latin1(v) {
                Some(b) if b.len() == f.size => Datum::Fixed(b),
                _ => {
                    return Err(GenericError::unexpected(
                        "",
                        Some(at),
                        format!("{} ({} code points 0-255)", self.schema.describe(node), f.size),
                        s.found(text),
                    ));
                }
            },
            (Node::Enum(e), Scalar::String(v)) => match enum_index(&e.symbols, v) {
                Some(i) => Datum::Enum(i, e.spelled(i, v)),
                None => return Err(unknown_symbol(e, at, s.found(text))),
            },
            _ => return Err(bad()),
        })
    }
}

/// Whether a branch of type `n` can read the token `s` (else [`Reader::convert`]
/// refuses it whatever its value).
fn fits(n: &Node, s: &Scalar) -> bool {
    matches!(
        (n, s),
        (Node::Null, Scalar::Null)
            | (Node::Boolean, Scalar::Bool(_))
            | (Node::Int | Node::Long, Scalar::Number(_, _, true))
            | (Node::Float | Node::Double, Scalar::Number(..))
            | (
                Node::String | Node::Bytes | Node::Fixed(_) | Node::Enum(_),
                Scalar::String(_)
            )
    )
}

/// Whether a union branch of type `n` would have read `s` but for its value.
fn same_kind(n: &Node, s: &Scalar) -> bool {
    matches!(
        (n, s),
        (Node::Int | Node::Long, Scalar::Number(_, _, true))
            | (Node::Float | Node::Double, Scalar::Number(..))
            | (Node::Bytes | Node::Fixed(_) | Node::Enum(_), Scalar::String(_))
    )
}

/// The bytes of a string whose code points are all 0–255.
fn latin1(s: &str) -> Option<Vec<u8>> {
    s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect()
}

/// A non-finite float refused by a text format.
#[cold]
fn non_finite(what: &str, v: f64) -> GenericError {
    GenericError::out_of_range(None, format!("{what} (JSON has no NaN or infinity)"), v.to_string())
}

fn write_node(schema: &Schema, node: NodeId, datum: &Datum, out: &mut Sink<'_>, depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(GenericError::depth_limit(MAX_DEPTH, None));
    }
    match (schema.node(node), datum) {
        (Node::Null, Datum::Null) => out.array(*b"null"),
        (Node::Boolean, Datum::Boolean(true)) => out.array(*b"true"),
        (Node::Boolean, Datum::Boolean(false)) => out.array(*b"false"),
        (Node::Int, Datum::Int(i)) => sink_i64(out, i64::from(*i)),
        (Node::Long, Datum::Long(i)) => sink_i64(out, *i),
        (Node::Double, Datum::Double(f)) => {
            if !f.is_finite() {
                return Err(non_finite("double", *f));
            }
            sink_double(out, *f);
        }
        (Node::Float, Datum::Float(f)) => {
            if !f.is_finite() {
                return Err(non_finite("float", f64::from(*f)));
            }
            // The shortest digits that read back to the same f32, laid out
            // as a double with those digits is.
            out.padded(|buf| float::text::float_into(*f, buf));
        }
        (Node::String, Datum::String(s)) => sink_str(out, s),
        (Node::Bytes, Datum::Bytes(b)) => write_latin1(b, out),
        (Node::Fixed(f), Datum::Fixed(b)) if b.len() == f.size => write_latin1(b, out),
        (Node::Enum(e), Datum::Enum(i, s)) => {
            enum_symbol_index(e, *i, s)?;
            sink_str(out, s);
        }
        (Node::Union(branches), d) => match walk::branch_for(schema, branches, d) {
            Some((i, inner)) => write_node(schema, branches[i as usize], inner, out, depth + 1)?,
            None => return Err(mismatch(schema, node, d)),
        },
        (Node::Array(items), Datum::Scalars(values)) => {
            // No `Vec<Datum>` built. Items of the schema's own numeric type
            // are written straight from the vector; anything else (a
            // non-finite double, a type the schema does not take) item by
            // item through `write_node`, which has the errors.
            out.byte(b'[');
            match (schema.node(*items), values) {
                (Node::Double, Scalars::Double(v)) => {
                    if let Some((&f, rest)) = v.split_first() {
                        if !f.is_finite() {
                            return Err(nest_index(non_finite("double", f), 0));
                        }
                        sink_double(out, f);
                        // The comma and the next double in one store.
                        for (i, &f) in rest.iter().enumerate() {
                            if !f.is_finite() {
                                return Err(nest_index(non_finite("double", f), i + 1));
                            }
                            sink_double_after(out, b',', f);
                        }
                    }
                }
                (Node::Long, Scalars::Long(v)) => {
                    for (i, &x) in v.iter().enumerate() {
                        if i > 0 {
                            out.byte(b',');
                        }
                        sink_i64(out, x);
                    }
                }
                (Node::Int, Scalars::Int(v)) => {
                    for (i, &x) in v.iter().enumerate() {
                        if i > 0 {
                            out.byte(b',');
                        }
                        sink_i64(out, i64::from(x));
                    }
                }
                _ => {
                    for (i, v) in values.iter().enumerate() {
                        if i > 0 {
                            out.byte(b',');
                        }
                        write_node(schema, *items, &v, out, depth + 1).map_err(|e| nest_index(e, i))?;
                    }
                }
            }
            out.byte(b']');
        }
        (Node::Array(items), Datum::Array(values)) => {
            out.byte(b'[');
            // Arrays of doubles (meshes, series) are written here, without a
            // call per item; anything else (a non-finite item, another
            // datum) by `write_node`, which has the errors.
            let doubles = matches!(schema.node(*items), Node::Double);
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    out.byte(b',');
                }
                match v {
                    Datum::Double(f) if doubles && f.is_finite() => sink_double(out, *f),
                    _ => write_node(schema, *items, v, out, depth + 1).map_err(|e| nest_index(e, i))?,
                }
            }
            out.byte(b']');
        }
        (Node::Map(values), Datum::Map(entries)) => {
            out.byte(b'{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.byte(b',');
                }
                sink_str(out, k);
                out.byte(b':');
                write_node(schema, *values, v, out, depth + 1).map_err(|e| nest(e, k))?;
            }
            out.byte(b'}');
        }
        (Node::Record(r), Datum::Record(fields)) => {
            // A datum a decoder read for this record shares its names
            // (`Record::names`): field `i` is value `i`, no name compared.
            let own = std::sync::Arc::ptr_eq(fields.names(), &r.names) && fields.len() == r.fields.len();
            out.byte(b'{');
            for (i, f) in r.fields.iter().enumerate() {
                let v = if own {
                    fields.values().get(i)
                } else {
                    record_field(fields, i, &f.name)
                };
                let Some(v) = v else {
                    return Err(GenericError::missing_field(f.key(), None));
                };
                // `,"key":`, spelled once in the schema; the first without its comma.
                let key: &[u8] = if i == 0 {
                    f.json_key.get(1..).unwrap_or_default()
                } else {
                    &f.json_key
                };
                out.bytes(key);
                // Within the depth `write_node` allows a union's value (two levels down).
                if !(depth + 2 <= MAX_DEPTH && scalar(schema, f.ty, v, out)) {
                    write_node(schema, f.ty, v, out, depth + 1).map_err(|e| nest(e, f.key()))?;
                }
            }
            out.byte(b'}');
        }
        (_, d) => return Err(mismatch(schema, node, d)),
    }
    Ok(())
}

/// A record field's value of the common scalar types (a string, an integer,
/// a boolean, a finite double, `null`, and these as the bare value of a
/// union's `null` or same-typed branch) written in place, without a call
/// to [`write_node`]; `false` (nothing written) for anything else, which
/// `write_node` writes or refuses with its errors.
#[inline(always)]
fn scalar(schema: &Schema, node: NodeId, datum: &Datum, out: &mut Sink<'_>) -> bool {
    let mut n = schema.node(node);
    if let Node::Union(branches) = n {
        // The branch `walk::branch_for` takes for a bare value: the first
        // that accepts it. Only a union of two (an optional value) here.
        let [a, b] = branches.as_slice() else { return false };
        let (a, b) = (schema.node(*a), schema.node(*b));
        n = match (a, b, datum) {
            (Node::Null, _, Datum::Null) => a,
            (Node::Null, _, _) => b,
            _ => return false,
        };
    }
    match (n, datum) {
        (Node::String, Datum::String(s)) => sink_str(out, s),
        (Node::Long, Datum::Long(i)) => sink_i64(out, *i),
        (Node::Int, Datum::Int(i)) => sink_i64(out, i64::from(*i)),
        (Node::Double, Datum::Double(f)) if f.is_finite() => sink_double(out, *f),
        (Node::Boolean, Datum::Boolean(true)) => out.array(*b"true"),
        (Node::Boolean, Datum::Boolean(false)) => out.array(*b"false"),
        (Node::Null, Datum::Null) => out.array(*b"null"),
        _ => return false,
    }
    true
}

/// `v` in decimal, `-` first when negative.
#[inline]
fn sink_i64(out: &mut Sink<'_>, v: i64) {
    if v < 0 {
        out.byte(b'-');
    }
    out.decimal(v.unsigned_abs());
}

/// `s` as a JSON string, escaped as [`crate::codec::json::write_str`]
/// escapes it (the same table): copied whole when nothing needs escaping.
#[inline]
fn sink_str(out: &mut Sink<'_>, s: &str) {
    let b = s.as_bytes();
    out.room(b.len() + 2);
    out.byte(b'"');
    if !needs_escape(b) {
        out.bytes(b);
    } else {
        sink_escaped(out, b, find_special(b, 0));
    }
    out.byte(b'"');
}

/// Whether some byte of `b` is one [`ESCAPE`] marks (below 0x20, `"`,
/// `\`): every byte read in words of eight, the last word overlapping the
/// one before it and a string under eight bytes read as a word of its own
/// bytes repeated, so no byte is tested alone (no branch per byte). The
/// word test is `find_special`'s own (`crate::codec::json::marked`); a test
/// holds the two to the same answer.
#[inline(always)]
fn needs_escape(b: &[u8]) -> bool {
    // A byte's top bit set for each marked byte, or (a borrow) one above
    // a marked byte: never in a word with none.
    let marked = |w: u64| marked(w) & HI;
    let n = b.len();
    let w = if let Some(last) = b.last_chunk::<8>() {
        let mut acc = marked(u64::from_le_bytes(*last));
        for c in b.chunks_exact(8) {
            acc |= marked(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        return acc != 0;
    } else if n >= 4 {
        let lo = b.first_chunk::<4>().map_or(0, |c| u32::from_le_bytes(*c));
        let hi = b.last_chunk::<4>().map_or(0, |c| u32::from_le_bytes(*c));
        u64::from(lo) | u64::from(hi) << 32
    } else if let (Some(&x), Some(&y), Some(&z)) = (b.first(), b.get(n / 2), b.last()) {
        let q = u32::from_le_bytes([x, y, z, x]);
        u64::from(q) | u64::from(q) << 32
    } else {
        return false;
    };
    marked(w) != 0
}

/// The body of a string whose first byte to escape is at `i`.
#[cold]
fn sink_escaped(out: &mut Sink<'_>, b: &[u8], mut i: usize) {
    let mut run = 0;
    loop {
        out.bytes(&b[run..i]);
        let Some(&c) = b.get(i) else { break };
        let esc = ESCAPE[c as usize];
        if esc == UU {
            out.array([
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX_DIGITS[(c >> 4) as usize],
                HEX_DIGITS[(c & 0xF) as usize],
            ]);
        } else {
            out.array([b'\\', esc]);
        }
        run = i + 1;
        i = find_special(b, run);
    }
}

/// `before` (a separator), then finite `v` as [`sink_double`] stores it:
/// one window of the output for both.
#[inline]
fn sink_double_after(out: &mut Sink<'_>, before: u8, v: f64) {
    out.padded::<{ float::text::TEXT_BUF + 8 }>(|buf| {
        buf[0] = before;
        match buf[1..].first_chunk_mut() {
            Some(text) => 1 + float::text::double_into(v, text),
            None => 0,
        }
    });
}

/// Finite `v` as [`crate::codec::json::write_f64`] spells it, stored straight into the
/// output by [`float::text::double_into`].
#[inline]
fn sink_double(out: &mut Sink<'_>, v: f64) {
    out.padded(|buf| float::text::double_into(v, buf));
}

fn write_latin1(b: &[u8], out: &mut Sink<'_>) {
    let s: String = b.iter().map(|&byte| char::from(byte)).collect();
    sink_str(out, &s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::json::write_f64;

    const ORDER: &str = r#"{"type":"record","name":"Order","fields":[
        {"name":"id","type":"long"},
        {"name":"note","type":["null","string"]},
        {"name":"items","type":{"type":"array","items":{"type":"record","name":"Item","fields":[
            {"name":"sku","type":"string"},{"name":"qty","type":"int"},{"name":"price","type":"double"}]}}},
        {"name":"tags","type":{"type":"map","values":"string"}},
        {"name":"state","type":{"type":"enum","name":"State","symbols":["OPEN","SHIPPED"]}}]}"#;

    #[test]
    fn reads_and_writes_back_in_schema_order() {
        let s = Schema::of(ORDER);
        let text = br#" {"items":[{"qty":2,"sku":"a","price":1}],"id":7,"tags":{"k":"v"},"state":"shipped"} "#;
        let d = decode(&s, text).unwrap();
        let mut out = Vec::new();
        encode(&s, &d, &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"id":7,"note":null,"items":[{"sku":"a","qty":2,"price":1.0}],"tags":{"k":"v"},"state":"shipped"}"#
        );
    }

    #[test]
    fn errors_name_the_value_by_pointer_and_offset() {
        let s = Schema::of(ORDER);
        let cases: [(&[u8], &str); 9] = [
            (
                br#"{"id":7,"items":[{"sku":"a","qty":"2","price":1}],"tags":{},"state":"OPEN"}"#,
                r#"/items/0/qty: expected int, found string "2" at byte 34"#,
            ),
            (
                br#"{"id":9223372036854775808,"items":[],"tags":{},"state":"OPEN"}"#,
                "/id: long out of range: 9223372036854775808 at byte 6",
            ),
            (
                br#"{"id":1.5,"items":[],"tags":{},"state":"OPEN"}"#,
                "/id: expected long (an integer literal), found 1.5 (a fraction or exponent is not an integer) at byte 6",
            ),
            (
                br#"{"id":1,"items":[{"sku":"a","qty":1,"price":1e999}],"tags":{},"state":"OPEN"}"#,
                "/items/0/price: double out of range: 1e999 at byte 44",
            ),
            (
                br#"{"id":1,"items":[],"tags":{},"state":"LOST"}"#,
                r#"/state: expected a symbol of State (OPEN, SHIPPED), found string "LOST" at byte 37"#,
            ),
            (
                br#"{"id":1,"items":[],"tags":{"a":"x","a":"y"},"state":"OPEN"}"#,
                "/tags: duplicate field `a` at byte 26",
            ),
            (
                br#"{"id":1,"items":[],"state":"OPEN"}"#,
                "(root): missing field `tags` at byte 0",
            ),
            (
                br#"{"id":1,"extra":0}"#,
                "(root): expected a field of record Order, found member `extra` at byte 8",
            ),
            (
                br#"{"id":1,"items":[],"tags":{"a/b":3}}"#,
                "/tags/a~1b: expected string, found number 3 at byte 33",
            ),
        ];
        let got: Vec<String> = cases
            .iter()
            .map(|(t, _)| decode(&s, t).unwrap_err().to_string())
            .collect();
        let want: Vec<&str> = cases.iter().map(|(_, w)| *w).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn unions_take_the_first_branch_that_fits() {
        let s = Schema::of(
            r#"{"type":"array","items":["null","int","long","double","string",{"type":"array","items":"int"}]}"#,
        );
        let d = decode(&s, b"[null, 1, 3000000000, 2.5, \"x\", [1]]").unwrap();
        let branches: Vec<u32> = match &d {
            Datum::Array(items) => items
                .iter()
                .map(|i| match i {
                    Datum::Union(b, _) => *b,
                    _ => 99,
                })
                .collect(),
            _ => vec![],
        };
        assert_eq!(branches, [0, 1, 2, 3, 4, 5]);
        let e = decode(&s, b"[true]").unwrap_err();
        assert_eq!(
            e.to_string(),
            "/0: expected union[null,int,long,double,string,array<int>], found true at byte 1"
        );
        let e = decode(&s, b"[1e999]").unwrap_err();
        assert_eq!(e.to_string(), "/0: double out of range: 1e999 at byte 1");
    }

    #[test]
    fn depth_is_bounded() {
        let s = Schema::of(r#"{"type":"record","name":"N","fields":[{"name":"n","type":["null","N"]}]}"#);
        let mut text = String::new();
        for _ in 0..200 {
            text.push_str(r#"{"n":"#);
        }
        text.push_str("null");
        text.push_str(&"}".repeat(200));
        let e = decode(&s, text.as_bytes()).unwrap_err();
        assert!(matches!(e.kind, GenericErrorKind::DepthLimit { .. }), "{e}");
        let shallow = r#"{"n":{"n":{"n":null}}}"#;
        assert!(decode(&s, shallow.as_bytes()).is_ok());
    }

    #[test]
    fn writer_refuses_what_json_cannot_say() {
        let s = Schema::of(r#"{"type":"array","items":"double"}"#);
        let e = encode(
            &s,
            &Datum::Array(vec![Datum::Double(1.0), Datum::Double(f64::NAN)]),
            &mut Vec::new(),
        )
        .unwrap_err();
        assert_eq!(e.pointer, "/1");
        let e = encode(&s, &Datum::Array(vec![Datum::Long(1)]), &mut Vec::new()).unwrap_err();
        assert_eq!(e.to_string(), "/0: expected double, found long");
    }

    /// JSON arrays of `double`, `long` and `int` read into `Datum::Scalars`;
    /// an item that is not a number, or does not fit, is `value`'s error
    /// with the item's index and offset.
    #[test]
    fn number_arrays_read_unboxed_and_their_errors_name_the_item() {
        let cases: [(&str, &[u8], Scalars); 3] = [
            (
                "double",
                b"[1.5, -0, 2e3,7]",
                Scalars::Double(vec![1.5, -0.0, 2000.0, 7.0]),
            ),
            (
                "long",
                b"[ -9223372036854775808 ,0,42]",
                Scalars::Long(vec![i64::MIN, 0, 42]),
            ),
            ("int", b"[2147483647,-1]", Scalars::Int(vec![i32::MAX, -1])),
        ];
        for (item, text, want) in cases {
            let s = Schema::of(&format!(r#"{{"type":"array","items":"{item}"}}"#));
            match decode(&s, text) {
                Ok(Datum::Scalars(got)) => assert_eq!(format!("{got:?}"), format!("{want:?}"), "{item}"),
                other => panic!("{item}: {other:?}"),
            }
            let d = decode(&s, b"[]").unwrap();
            assert!(matches!(&d, Datum::Scalars(v) if v.is_empty()), "{item}: {d:?}");
        }
        // An item that is not a number, or does not fit: `value`'s error,
        // with the item's index and offset.
        let errors: [(&str, &[u8], &str); 5] = [
            (
                "double",
                br#"[1,"2"]"#,
                r#"/1: expected double, found string "2" at byte 3"#,
            ),
            ("double", b"[1,null]", "/1: expected double, found null at byte 3"),
            (
                "long",
                b"[1,2,3.5]",
                "/2: expected long (an integer literal), found 3.5 (a fraction or exponent is not an integer) at byte 5",
            ),
            ("int", b"[0,2147483648]", "/1: int out of range: 2147483648 at byte 3"),
            ("double", b"[1,1e999]", "/1: double out of range: 1e999 at byte 3"),
        ];
        for (item, text, want) in errors {
            let s = Schema::of(&format!(r#"{{"type":"array","items":"{item}"}}"#));
            assert_eq!(decode(&s, text).unwrap_err().to_string(), want, "{item}");
        }
    }

    /// Unboxed arrays are written as their boxed items are, the fast loops
    /// for the schema's own numeric type and the item-by-item path for any
    /// other alike; a non-finite double is an error at its index either way.
    #[test]
    fn unboxed_arrays_are_written_as_their_boxed_items() {
        let cases = [
            ("double", Scalars::Double(vec![0.0, -0.0, 1.5, 1e300, 5e-324, 0.1])),
            ("long", Scalars::Long(vec![0, -1, i64::MAX, i64::MIN])),
            ("int", Scalars::Int(vec![0, -1, i32::MAX, i32::MIN])),
            // Items of another numeric type than the schema's: the general path.
            ("long", Scalars::Int(vec![7, -7])),
            ("double", Scalars::Long(vec![3])),
        ];
        for (item, values) in cases {
            let s = Schema::of(&format!(r#"{{"type":"array","items":"{item}"}}"#));
            let (mut unboxed, mut boxed) = (Vec::new(), Vec::new());
            let u = encode(&s, &Datum::Scalars(values.clone()), &mut unboxed).map_err(|e| e.to_string());
            let b = encode(&s, &Datum::Array(values.to_datums()), &mut boxed).map_err(|e| e.to_string());
            assert_eq!(u, b, "{item} {values:?}");
            assert_eq!(unboxed, boxed, "{item} {values:?}");
        }
        let s = Schema::of(r#"{"type":"array","items":"double"}"#);
        for bad in [f64::NAN, f64::INFINITY] {
            for (items, at) in [(vec![1.0, 2.0, bad, 3.0], "/2"), (vec![bad, 1.0], "/0")] {
                let values = Scalars::Double(items);
                let e = encode(&s, &Datum::Scalars(values.clone()), &mut Vec::new()).unwrap_err();
                let b = encode(&s, &Datum::Array(values.to_datums()), &mut Vec::new()).unwrap_err();
                assert_eq!(e.pointer, at, "{e}");
                assert_eq!(e.to_string(), b.to_string());
            }
        }
    }

    fn sunk(f: impl FnOnce(&mut Sink<'_>)) -> Vec<u8> {
        let mut out = Vec::new();
        let mut s = Sink::new(&mut out);
        f(&mut s);
        s.finish();
        out
    }

    /// Doubles are spelled as serde_json spells them, by the catalog's
    /// writer and by the sink: chosen values, short decimals, random bits
    /// and random magnitudes.
    #[test]
    fn doubles_are_laid_out_as_serde_json_lays_them_out() {
        let mut rng = crate::prng::Rng::new(7);
        let mut values = vec![
            4.25,
            0.001,
            1e21,
            1.2345e-7,
            5e-324,
            1200.5,
            1e16,
            1.23e12,
            0.1,
            -2.5e-6,
            1e15 + 0.5,
            f64::MAX,
            0.3,
            -44.7092,
            15.709551,
            1e-5,
            1.5e-5,
            0.00001234,
            999_999_999_999.9,
            1e15 - 0.5,
        ];
        for _ in 0..40_000 {
            let digits = rng.range_i64(1, 15) as i32;
            let n = rng.range_i64(1, 10i64.pow(digits as u32) - 1) as f64;
            let v = n / 10f64.powi(rng.range_i64(1, 22) as i32);
            values.extend([if rng.chance(50) { -v } else { v }, f64::from_bits(rng.next_u64())]);
            values.push((rng.unit_f64() - 0.5) * 10f64.powi(rng.range_i64(-20, 25) as i32));
        }
        for v in values.into_iter().filter(|v| v.is_finite()) {
            let theirs = serde_json::to_vec(&v).unwrap();
            let mut ours = Vec::new();
            write_f64(&mut ours, v);
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs),
                "{v:e}"
            );
            assert_eq!(sunk(|s| sink_double(s, v)), theirs, "{v:e}");
        }
    }

    /// Where `check` and `find_special` disagree on whether a string
    /// needs an escape: every byte value at every place of clean strings
    /// of 0 to 40 bytes, and random strings (at most 5).
    fn escape_disagreements(check: impl Fn(&[u8]) -> bool) -> Vec<String> {
        let mut texts: Vec<Vec<u8>> = Vec::new();
        for n in 0..=40usize {
            texts.push(vec![b'a'; n]);
            for at in 0..n {
                for c in 0..=255u8 {
                    let mut t = vec![b'a'; n];
                    t[at] = c;
                    texts.push(t);
                }
            }
        }
        let mut rng = crate::prng::Rng::new(0xE5C);
        for _ in 0..20_000 {
            let n = rng.below(70) as usize;
            texts.push((0..n).map(|_| 0x1c + rng.below(0x70) as u8).collect());
        }
        texts
            .iter()
            .filter_map(|t| {
                let want = find_special(t, 0) < t.len();
                (check(t) != want).then(|| format!("{t:?}: want {want}"))
            })
            .take(5)
            .collect()
    }

    #[test]
    fn escape_checks_agree_with_find_special() {
        let bad = escape_disagreements(needs_escape);
        assert!(bad.is_empty(), "{bad:#?}");
        // The comparison fails on a check that skips a string's last
        // bytes, or its middle byte under four bytes.
        let no_tail = |b: &[u8]| b.len() >= 8 && b.chunks_exact(8).any(|c| find_special(c, 0) < 8);
        assert!(!escape_disagreements(no_tail).is_empty());
        let ends_only = |b: &[u8]| {
            if b.len() < 4 {
                find_special(
                    &[b.first().copied().unwrap_or(b'a'), b.last().copied().unwrap_or(b'a')],
                    0,
                ) < 2
            } else {
                needs_escape(b)
            }
        };
        assert!(!escape_disagreements(ends_only).is_empty());
    }

    #[test]
    fn sink_strings_equal_the_catalog_spelling() {
        let mut cases: Vec<String> = (0u8..0x80).map(|b| format!("ab{}cdefghij", char::from(b))).collect();
        cases.extend(["", "plain", "\"\"", "é€😀\n", "0123456789abcdef0123456789abcdef\t!"].map(String::from));
        for s in &cases {
            let mut want = Vec::new();
            write_str(&mut want, s);
            assert_eq!(sunk(|o| sink_str(o, s)), want, "{s:?}");
        }
    }
}
