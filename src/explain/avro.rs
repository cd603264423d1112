//! Avro annotator: one datum in the Avro specification's "Binary Encoding",
//! walked by its schema — the catalog's (schemas/catalog.avsc) or a user's
//! document's. The bytes hold neither names nor types nor field tags: the
//! schema's field order *is* the layout. Integers are zigzag varints (-1 →
//! `01`, 1 → `02`, 64 → `80 01`), strings a varint length then UTF-8,
//! doubles 8 bytes little-endian, arrays and maps a sequence of blocks (a
//! count, that many items, … then a 0 count; a negative count is followed by
//! the block's size in bytes), a union the index of its branch.
//!
//! ```text
//! 02            $.products: array block of 1 items
//! 02            $.products[0].id: long 1 (zigzag 2)
//! 14 53 4b …    $.products[0].sku: string length 10, then the bytes
//! ```
//!
//! Every value is a span named by its place in the document
//! (`$.products[0].id`) and its schema type; lengths, block counts, block
//! sizes and union branch indexes are structure. A map key seen twice is an
//! error, as the decoder has it. Independent of the codecs: it reads
//! varints and blocks itself and writes what it read as plain JSON
//! ([`super::plain`]), which tests compare with the decoders' reading.

use super::plain;
use super::span::{Category, ExplainError, MAX_DEPTH, Walker, plural, preview};
use crate::generic::schema::{Node, NodeId, Schema};

/// Reads a zigzag varint without recording a span; returns (value, raw).
fn zigzag(w: &mut Walker<'_>, what: &str) -> Result<(i64, u64), ExplainError> {
    let at = w.pos;
    let mut raw: u64 = 0;
    for i in 0..10 {
        let b = w.u8(what)?;
        if i == 9 && b > 1 {
            break;
        }
        raw |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Ok((((raw >> 1) as i64) ^ -((raw & 1) as i64), raw));
        }
    }
    Err(w.err(at, format!("{what}: varint longer than 64 bits")))
}

/// A length (string, bytes) or count: non-negative and no more than the bytes left.
fn length(w: &mut Walker<'_>, what: &str) -> Result<usize, ExplainError> {
    let at = w.pos;
    let (n, _) = zigzag(w, what)?;
    let left = w.bytes.len() - w.pos;
    match usize::try_from(n) {
        Ok(n) if n <= left => Ok(n),
        _ => Err(w.err(at, format!("{what}: length {n} does not fit in the {left} bytes left"))),
    }
}

/// Walks `bytes` as one datum of `schema`; the plain JSON of what it read.
pub(crate) fn annotate(w: &mut Walker<'_>, schema: &Schema) -> Result<(String, Vec<String>), ExplainError> {
    let mut out = String::new();
    let mut members = Vec::new();
    let mut r = Reader {
        schema,
        out: &mut out,
        budget: w.bytes.len().saturating_mul(8).saturating_add(1 << 16),
    };
    if let Node::Record(rec) = schema.node(schema.root()) {
        members = rec.fields.iter().map(|f| f.name.to_string()).collect();
    }
    r.value(w, schema.root(), "$", 0, true)?;
    Ok((out, members))
}

struct Reader<'s, 'o> {
    schema: &'s Schema,
    out: &'o mut String,
    /// Items that may take zero bytes (`null`, empty records) left to read:
    /// a few hostile bytes cannot ask for unbounded work.
    budget: usize,
}

impl Reader<'_, '_> {
    /// Reads the value of type `node` at `path`, its spans owned by `path`.
    fn value(
        &mut self,
        w: &mut Walker<'_>,
        node: NodeId,
        path: &str,
        depth: usize,
        root: bool,
    ) -> Result<(), ExplainError> {
        w.within(path, |w| {
            if depth > MAX_DEPTH {
                return Err(w.err(w.pos, format!("{path}: nesting deeper than {MAX_DEPTH} levels")));
            }
            let at = w.pos;
            let ty = self.schema.describe(node);
            match self.schema.node(node) {
                Node::Null => self.out.push_str("null"),
                Node::Boolean => {
                    let b = w.u8(path)?;
                    let v = match b {
                        0 => false,
                        1 => true,
                        _ => return Err(w.err(at, format!("{path}: boolean byte must be 00 or 01, found {b:02x}"))),
                    };
                    w.span(at, Category::Value, format!("{path}: boolean {v}"));
                    self.out.push_str(if v { "true" } else { "false" });
                }
                Node::Int | Node::Long => {
                    let (v, raw) = zigzag(w, path)?;
                    if matches!(self.schema.node(node), Node::Int) && i32::try_from(v).is_err() {
                        return Err(w.err(at, format!("{path}: {v} does not fit an Avro int")));
                    }
                    w.span(at, Category::Value, format!("{path}: {ty} {v} (zigzag {raw})"));
                    self.out.push_str(&v.to_string());
                }
                Node::Float => {
                    let b = w.take(4, path)?;
                    let v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    w.span(at, Category::Value, format!("{path}: float {v} (4 bytes LE)"));
                    plain::float(v, self.out);
                }
                Node::Double => {
                    let b = w.take(8, path)?;
                    let v = f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                    w.span(at, Category::Value, format!("{path}: double {v} (8 bytes LE)"));
                    plain::double(v, self.out);
                }
                Node::String | Node::Bytes => {
                    let n = length(w, path)?;
                    w.span(at, Category::Structure, format!("{path}: {ty} length {n}"));
                    let body = w.pos;
                    let raw = w.take(n, path)?;
                    if matches!(self.schema.node(node), Node::String) {
                        let s = std::str::from_utf8(raw)
                            .map_err(|e| w.err(body + e.valid_up_to(), format!("{path}: invalid UTF-8 in string")))?;
                        w.span(body, Category::Value, preview(s));
                        plain::string(s, self.out);
                    } else {
                        w.span(body, Category::Value, format!("{n} bytes"));
                        plain::bytes(raw, self.out);
                    }
                }
                Node::Fixed(f) => {
                    let raw = w.take(f.size, path)?;
                    w.span(at, Category::Value, format!("{path}: {ty}"));
                    plain::bytes(raw, self.out);
                }
                Node::Enum(e) => {
                    let (i, _) = zigzag(w, path)?;
                    let symbol = usize::try_from(i).ok().and_then(|i| e.symbols.get(i)).ok_or_else(|| {
                        w.err(
                            at,
                            format!("{path}: enum index {i} is not one of the {} symbols", e.symbols.len()),
                        )
                    })?;
                    w.span(at, Category::Value, format!("{path}: {ty} index {i} = {symbol}"));
                    plain::string(symbol, self.out);
                }
                Node::Union(branches) => {
                    let (i, _) = zigzag(w, path)?;
                    let branch = usize::try_from(i)
                        .ok()
                        .and_then(|i| branches.get(i))
                        .copied()
                        .ok_or_else(|| {
                            w.err(
                                at,
                                format!("{path}: union branch {i} is not one of the {} branches", branches.len()),
                            )
                        })?;
                    let bty = self.schema.describe(branch);
                    w.span(at, Category::Structure, format!("{path}: union branch {i} ({bty})"));
                    self.value(w, branch, path, depth + 1, false)?;
                }
                Node::Array(item) => {
                    let item = *item;
                    self.out.push('[');
                    let mut n = 0usize;
                    self.blocks(
                        w,
                        path,
                        false,
                        |r, w, i| {
                            if i > 0 {
                                r.out.push(',');
                            }
                            r.value(w, item, &format!("{path}[{i}]"), depth + 1, false)
                        },
                        &mut n,
                    )?;
                    self.out.push(']');
                }
                Node::Map(value) => {
                    let value = *value;
                    self.out.push('{');
                    let mut n = 0usize;
                    let mut seen = std::collections::HashSet::new();
                    self.blocks(
                        w,
                        path,
                        true,
                        |r, w, i| {
                            if i > 0 {
                                r.out.push(',');
                            }
                            let kat = w.pos;
                            let len = length(w, path)?;
                            let raw = w.take(len, path)?;
                            let key = std::str::from_utf8(raw)
                                .map_err(|_| w.err(kat, format!("{path}: invalid UTF-8 in map key")))?;
                            let child = format!("{path}.{key}");
                            w.within(&child, |w| {
                                w.span(kat, Category::Key, format!("{path}: map key {}", preview(key)))
                            });
                            if !seen.insert(key.to_string()) {
                                return Err(w.err(kat, format!("{path}: map key {} seen twice", preview(key))));
                            }
                            plain::string(key, r.out);
                            r.out.push(':');
                            r.value(w, value, &child, depth + 1, false)
                        },
                        &mut n,
                    )?;
                    self.out.push('}');
                }
                Node::Record(rec) => {
                    self.take_zero(w, path)?;
                    self.out.push('{');
                    let entered = w.enter(node);
                    for (i, f) in rec.fields.iter().enumerate() {
                        if root {
                            w.top = Some(i);
                        }
                        w.name_field(node, &f.name);
                        if i > 0 {
                            self.out.push(',');
                        }
                        plain::string(&f.name, self.out);
                        self.out.push(':');
                        let child = if path == "$" {
                            format!("$.{}", f.name)
                        } else {
                            format!("{path}.{}", f.name)
                        };
                        self.value(w, f.ty, &child, depth + 1, false)?;
                    }
                    w.leave(entered);
                    if root {
                        w.top = None;
                    }
                    self.out.push('}');
                }
            }
            Ok(())
        })
    }

    /// Charges one item that may take no bytes against the budget.
    fn take_zero(&mut self, w: &Walker<'_>, path: &str) -> Result<(), ExplainError> {
        self.budget = self
            .budget
            .checked_sub(1)
            .ok_or_else(|| w.err(w.pos, format!("{path}: more zero-byte items than the payload can hold")))?;
        Ok(())
    }

    /// Reads an array's or map's blocks, calling `item` for each element.
    fn blocks(
        &mut self,
        w: &mut Walker<'_>,
        path: &str,
        is_map: bool,
        mut item: impl FnMut(&mut Self, &mut Walker<'_>, usize) -> Result<(), ExplainError>,
        n: &mut usize,
    ) -> Result<(), ExplainError> {
        let kind = if is_map { "map" } else { "array" };
        loop {
            let at = w.pos;
            let (count, _) = zigzag(w, path)?;
            if count == 0 {
                w.span(
                    at,
                    Category::Structure,
                    format!("{path}: end of {kind} ({})", plural(*n as u64, "item", "items")),
                );
                return Ok(());
            }
            let items = count.unsigned_abs();
            if count < 0 {
                let (size, _) = zigzag(w, path)?;
                w.span(
                    at,
                    Category::Structure,
                    format!("{path}: {kind} block of {items} items, {size} bytes"),
                );
            } else {
                w.span(
                    at,
                    Category::Structure,
                    format!("{path}: {kind} block of {items} items"),
                );
            }
            let left = (w.bytes.len() - w.pos) as u64;
            if items > left.saturating_mul(8).saturating_add(1 << 16) {
                return Err(w.err(at, format!("{path}: {items} items cannot fit in the {left} bytes left")));
            }
            w.depth += 1;
            for _ in 0..items {
                self.take_zero(w, path)?;
                item(self, w, *n)?;
                *n += 1;
            }
            w.depth -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(schema: &str, bytes: &[u8]) -> Result<(String, Vec<String>, Vec<String>), ExplainError> {
        let schema = Schema::parse(schema.as_bytes()).unwrap();
        let mut w = Walker::new(bytes);
        let (json, members) = annotate(&mut w, &schema)?;
        let meanings = w.spans.iter().map(|s| s.meaning.clone()).collect();
        Ok((json, members, meanings))
    }

    const R: &str =
        r#"{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"n","type":["null","string"]}]}"#;

    #[test]
    fn a_record_reads_by_its_schema() {
        let (json, members, meanings) = walk(R, &[0x0e, 0x02, 0x02, 0x61]).unwrap();
        assert_eq!(json, r#"{"id":7,"n":"a"}"#);
        assert_eq!(members, ["id", "n"]);
        assert_eq!(
            meanings,
            [
                "$.id: long 7 (zigzag 14)",
                "$.n: union branch 1 (string)",
                "$.n: string length 1",
                "\"a\""
            ]
        );
        assert_eq!(walk(R, &[0x0e, 0x00]).unwrap().0, r#"{"id":7,"n":null}"#);
    }

    #[test]
    fn hostile_bytes_are_errors() {
        let e = walk(R, &[0x0e, 0x04]).unwrap_err();
        assert_eq!(
            (e.offset, e.message.as_str()),
            (1, "$.n: union branch 2 is not one of the 2 branches")
        );
        let e = walk(R, &[0x0e, 0x02, 0x7e]).unwrap_err();
        assert!(e.message.contains("length 63 does not fit in the 0 bytes left"), "{e}");
        // 2^31 nulls claimed by four bytes: refused, not walked.
        let nulls = r#"{"type":"array","items":"null"}"#;
        let e = walk(nulls, &[0x80, 0x80, 0x80, 0x80, 0x10]).unwrap_err();
        assert!(e.message.contains("cannot fit"), "{e}");
        let e = walk(r#"{"type":"array","items":"long"}"#, &[0xff; 11]).unwrap_err();
        assert!(e.message.contains("varint longer than 64 bits"), "{e}");
    }
}
