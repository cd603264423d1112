//! FlatBuffers annotator: root offset, vtables, table fields, vectors, strings
//! and padding of a `Catalog` buffer, found by following offsets with the
//! field slots of schemas/catalog.fbs — not with the flatbuffers crate.
//!
//! A FlatBuffer is built back to front and read by offsets, all little-endian:
//!
//! - bytes 0..4: `uoffset` (u32) from byte 0 to the root table; 4..8: the
//!   file identifier `WBCT`.
//! - a table starts with an `soffset` (i32): the vtable is at
//!   `table - soffset`. The vtable is u16s: its own size, the table's inline
//!   size, then one offset per field slot from the table start (0 = absent, so
//!   the reader uses the default). Identical vtables are shared.
//! - scalars and structs (our `Dimensions`, 16 bytes) sit inline in the table,
//!   aligned to their size; strings, vectors and sub-tables are a `uoffset`
//!   (u32, relative to where it is stored) to data elsewhere.
//! - a string is a u32 byte length, the UTF-8 bytes and a NUL; a vector is a
//!   u32 element count and the elements; zero bytes in between are alignment
//!   padding.
//!
//! Because data is reached by offsets, spans are collected in the order the
//! walk finds them and sorted by position at the end; bytes nothing points at
//! are shown as padding.
//!
//! ```text
//! 0  10 00 00 00    root uoffset → table at 16
//! 4  57 42 43 54    file identifier "WBCT"
//! ```

use super::span::{Category, ENVELOPE, ExplainError, FRAMING, Failed, Span, Walker, preview};
use super::value::Value;

/// What one vtable slot holds.
#[derive(Clone, Copy)]
enum Slot {
    I64,
    I32,
    F64,
    Bool,
    StatusByte,
    Str,
    Dimensions,
    Strings,
    Tables(&'static [(&'static str, Slot)]),
}

const VARIANT: &[(&str, Slot)] = &[
    ("sku", Slot::Str),
    ("color", Slot::Str),
    ("size", Slot::Str),
    ("price_cents", Slot::I64),
    ("stock", Slot::I32),
];
const PRODUCT: &[(&str, Slot)] = &[
    ("id", Slot::I64),
    ("sku", Slot::Str),
    ("name", Slot::Str),
    ("description", Slot::Str),
    ("price_cents", Slot::I64),
    ("currency", Slot::Str),
    ("rating", Slot::F64),
    ("review_count", Slot::I32),
    ("in_stock", Slot::Bool),
    ("stock", Slot::I32),
    ("status", Slot::StatusByte),
    ("tags", Slot::Strings),
    ("dimensions", Slot::Dimensions),
    ("variants", Slot::Tables(VARIANT)),
    ("discount_percent", Slot::I32),
    ("created_at_ms", Slot::I64),
    ("image_url", Slot::Str),
];
const CATALOG: &[(&str, Slot)] = &[("products", Slot::Tables(PRODUCT))];

/// Walks one Catalog buffer.
pub fn annotate(bytes: &[u8]) -> Result<(Vec<Span>, Value), Failed> {
    let mut fb = Fb {
        w: Walker::new(bytes),
        budget: 4 * bytes.len() + (1 << 20),
    };
    let r = fb.root();
    fb.finish(r)
}

struct Fb<'a> {
    w: Walker<'a>,
    /// Bytes of string data the walk may still copy into values: shared
    /// strings cannot make a small buffer decode into gigabytes.
    budget: usize,
}

impl<'a> Fb<'a> {
    fn bytes_at(&self, at: usize, n: usize, what: &str) -> Result<&'a [u8], ExplainError> {
        let b = self.w.bytes;
        at.checked_add(n)
            .filter(|&end| end <= b.len())
            .map(|end| &b[at..end])
            .ok_or_else(|| {
                self.w.err(
                    at,
                    format!("{what} at {at} runs past the end of the {}-byte buffer", b.len()),
                )
            })
    }

    fn u16_at(&self, at: usize, what: &str) -> Result<usize, ExplainError> {
        let b = self.bytes_at(at, 2, what)?;
        Ok(usize::from(u16::from_le_bytes([b[0], b[1]])))
    }

    fn u32_at(&self, at: usize, what: &str) -> Result<u32, ExplainError> {
        let b = self.bytes_at(at, 4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64_at(&self, at: usize, what: &str) -> Result<u64, ExplainError> {
        let b = self.bytes_at(at, 8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// Follows the uoffset stored at `at`, annotating it.
    fn follow(&mut self, at: usize, what: &str) -> Result<usize, ExplainError> {
        let off = self.u32_at(at, what)? as usize;
        let target = at + off;
        if target >= self.w.bytes.len() {
            return Err(self
                .w
                .err(at, format!("{what}: uoffset {off} points past the end of the buffer")));
        }
        self.w
            .span_at(at, 4, Category::Structure, format!("{what}: uoffset +{off} → {target}"));
        Ok(target)
    }

    fn root(&mut self) -> Result<Value, ExplainError> {
        let root = self.follow(0, "root table")?;
        if self.w.bytes.len() >= 8 && root >= 8 {
            let id = self.bytes_at(4, 4, "file identifier")?;
            self.w.span_at(
                4,
                4,
                Category::Structure,
                format!("file identifier {:?}", String::from_utf8_lossy(id)),
            );
        }
        self.table(root, CATALOG, 0)
    }

    fn table(&mut self, t: usize, slots: &'static [(&'static str, Slot)], depth: usize) -> Result<Value, ExplainError> {
        let is_product = std::ptr::eq(slots, PRODUCT);
        let saved = (self.w.depth, self.w.product, self.w.field);
        self.w.depth = depth;
        if is_product {
            self.w.begin_product();
        }
        let soff = self.u32_at(t, "table soffset")? as i32;
        let vt = t as i64 - i64::from(soff);
        let vt = usize::try_from(vt)
            .ok()
            .filter(|&v| v + 4 <= self.w.bytes.len())
            .ok_or_else(|| {
                self.w
                    .err(t, format!("soffset {soff} puts the vtable outside the buffer"))
            })?;
        self.w.span_at(
            t,
            4,
            Category::Structure,
            format!("table: soffset {soff} → vtable at {vt}"),
        );
        let vt_len = self.u16_at(vt, "vtable size")?;
        let table_len = self.u16_at(vt + 2, "table size")?;
        if vt_len < 4 || vt_len % 2 != 0 || vt + vt_len > self.w.bytes.len() {
            return Err(self.w.err(
                vt,
                format!("vtable size {vt_len} is not an even number ≥ 4 inside the buffer"),
            ));
        }
        if table_len < 4 || t + table_len > self.w.bytes.len() {
            return Err(self
                .w
                .err(vt + 2, format!("table size {table_len} does not fit the buffer")));
        }
        self.w.span_at(
            vt,
            4,
            Category::Structure,
            format!("vtable: {vt_len} bytes, table inline size {table_len}"),
        );
        let present = (vt_len - 4) / 2;
        let mut fields = Vec::with_capacity(slots.len());
        for (i, &(name, slot)) in slots.iter().enumerate() {
            let entry = vt + 4 + 2 * i;
            self.w.depth = depth;
            let off = if i < present {
                self.u16_at(entry, "vtable entry")?
            } else {
                0
            };
            if i < present {
                let text = if off == 0 {
                    format!("vtable slot {i} ({name}): absent → default")
                } else {
                    format!("vtable slot {i} ({name}): at table +{off}")
                };
                self.w.span_at(entry, 2, Category::Structure, text);
                // The slot belongs to its field (the summary keeps it framing).
                if let Some(s) = self.w.spans.last_mut().filter(|_| is_product) {
                    s.owners[0].field = name;
                }
            }
            if off == 0 {
                fields.push((name.to_string(), Value::Absent));
                continue;
            }
            if off < 4 || off >= table_len {
                return Err(self.w.err(
                    entry,
                    format!("{name}: field offset {off} is outside the {table_len}-byte table"),
                ));
            }
            if is_product {
                self.w.field = name;
            }
            let v = self.field(t + off, t + table_len, name, slot, depth + 1)?;
            fields.push((name.to_string(), v));
            if is_product {
                self.w.field = FRAMING;
            }
        }
        // Slots past the ones we know (a newer schema) are still explained.
        for i in slots.len()..present {
            let entry = vt + 4 + 2 * i;
            self.w.span_at(
                entry,
                2,
                Category::Structure,
                format!("vtable slot {i} (unknown field)"),
            );
        }
        (self.w.depth, self.w.product, self.w.field) = saved;
        Ok(Value::Record(fields))
    }

    fn field(
        &mut self,
        at: usize,
        table_end: usize,
        name: &str,
        slot: Slot,
        depth: usize,
    ) -> Result<Value, ExplainError> {
        self.w.depth = depth;
        let inline = match slot {
            Slot::I64 | Slot::F64 => 8,
            Slot::I32 => 4,
            Slot::Bool | Slot::StatusByte => 1,
            Slot::Dimensions => 16,
            Slot::Str | Slot::Strings | Slot::Tables(_) => 4,
        };
        if at + inline > table_end {
            return Err(self.w.err(
                at,
                format!("{name}: {inline}-byte field runs past the end of its table"),
            ));
        }
        let v = match slot {
            Slot::I64 => {
                let v = self.u64_at(at, name)? as i64;
                self.w.span_at(at, 8, Category::Value, format!("{name}: long {v}"));
                Value::Int(v)
            }
            Slot::F64 => {
                let v = f64::from_bits(self.u64_at(at, name)?);
                self.w.span_at(at, 8, Category::Value, format!("{name}: double {v:?}"));
                Value::Float(v)
            }
            Slot::I32 => {
                let v = self.u32_at(at, name)? as i32;
                self.w.span_at(at, 4, Category::Value, format!("{name}: int {v}"));
                Value::Int(i64::from(v))
            }
            Slot::Bool => {
                let b = self.bytes_at(at, 1, name)?[0];
                self.w
                    .span_at(at, 1, Category::Value, format!("{name}: bool {}", b != 0));
                Value::Bool(b != 0)
            }
            Slot::StatusByte => {
                let b = self.bytes_at(at, 1, name)?[0] as i8;
                let symbol = ["ACTIVE", "DRAFT", "DISCONTINUED"]
                    .get(b as usize)
                    .copied()
                    .unwrap_or("unknown value");
                self.w
                    .span_at(at, 1, Category::Value, format!("{name}: enum Status {b} = {symbol}"));
                Value::Enum(i64::from(b))
            }
            Slot::Dimensions => {
                let mut d = Vec::with_capacity(4);
                for (k, part) in ["width_mm", "height_mm", "depth_mm", "weight_g"]
                    .into_iter()
                    .enumerate()
                {
                    let v = self.u32_at(at + 4 * k, part)? as i32;
                    let text = if k == 0 {
                        format!("{name} (inline struct): {part} {v}")
                    } else {
                        format!("{part} {v}")
                    };
                    self.w.span_at(at + 4 * k, 4, Category::Value, text);
                    d.push((part.to_string(), Value::Int(i64::from(v))));
                }
                Value::Record(d)
            }
            Slot::Str => {
                let s = self.follow(at, name)?;
                self.string(s, name, depth + 1)?
            }
            Slot::Strings | Slot::Tables(_) => {
                let x = self.follow(at, name)?;
                let count = self.u32_at(x, "vector length")? as usize;
                let room = (self.w.bytes.len() - x - 4) / 4;
                if count > room {
                    return Err(self.w.err(
                        x,
                        format!("{name}: vector of {count} offsets cannot fit in {room} slots left"),
                    ));
                }
                self.w.depth = depth + 1;
                self.w.span_at(
                    x,
                    4,
                    Category::Structure,
                    format!(
                        "{name}: vector of {count} {}",
                        if count == 1 { "element" } else { "elements" }
                    ),
                );
                let mut items = Vec::with_capacity(count);
                for k in 0..count {
                    let elem = x + 4 + 4 * k;
                    self.w.depth = depth + 1;
                    let target = self.follow(elem, &format!("{name}[{k}]"))?;
                    items.push(match slot {
                        Slot::Tables(inner) => self.table(target, inner, depth + 2)?,
                        _ => self.string(target, &format!("{name}[{k}]"), depth + 2)?,
                    });
                }
                Value::List(items)
            }
        };
        Ok(v)
    }

    fn string(&mut self, s: usize, name: &str, depth: usize) -> Result<Value, ExplainError> {
        self.w.depth = depth;
        let n = self.u32_at(s, "string length")? as usize;
        let body = self.bytes_at(s + 4, n, name)?;
        if self.bytes_at(s + 4 + n, 1, "string terminator")?[0] != 0 {
            return Err(self.w.err(s + 4 + n, format!("{name}: string is not NUL-terminated")));
        }
        let text =
            std::str::from_utf8(body).map_err(|e| self.w.err(s + 4 + e.valid_up_to(), "invalid UTF-8 in string"))?;
        self.budget = self.budget.checked_sub(n).ok_or_else(|| {
            self.w
                .err(s, "strings shared so often that reading them would copy too much")
        })?;
        self.w.span_at(s, 4, Category::Structure, format!("string length {n}"));
        self.w
            .span_at(s + 4, n, Category::Value, format!("{name}: {}", preview(text)));
        self.w.span_at(s + 4 + n, 1, Category::Structure, "NUL terminator");
        Ok(Value::Str(text.to_string()))
    }

    /// Sorts the spans by position, folds repeats of shared data (vtables,
    /// strings) into one span that names every owner, rejects overlaps, and
    /// explains the gaps as padding.
    fn finish(self, result: Result<Value, ExplainError>) -> Result<(Vec<Span>, Value), Failed> {
        let Fb { w, .. } = self;
        let bytes = w.bytes;
        let mut spans = w.spans;
        spans.sort_by_key(|s| (s.offset, s.len));
        spans.dedup_by(|b, a| {
            let repeat = a.offset == b.offset && a.len == b.len;
            if repeat {
                a.owners.append(&mut b.owners);
            }
            repeat
        });
        for s in &mut spans {
            if s.owners.len() > 1 {
                s.owners.sort_unstable();
                s.owners.dedup();
            }
        }
        let mut out: Vec<Span> = Vec::with_capacity(spans.len() * 2);
        let mut at = 0;
        let mut overlap = None;
        for s in spans {
            if s.offset < at {
                overlap.get_or_insert(s.offset);
                continue;
            }
            if s.offset > at {
                out.push(gap(bytes, at, s.offset));
            }
            at = s.offset + s.len;
            out.push(s);
        }
        if at < bytes.len() && result.is_ok() {
            out.push(gap(bytes, at, bytes.len()));
        }
        match (result, overlap) {
            (Ok(v), None) => Ok((out, v)),
            (Ok(_), Some(at)) => Err(Failed {
                spans: out,
                error: ExplainError {
                    offset: at,
                    message: "two parts of the buffer claim the same bytes".into(),
                },
            }),
            (Err(error), _) => Err(Failed { spans: out, error }),
        }
    }
}

fn gap(bytes: &[u8], from: usize, to: usize) -> Span {
    let zero = bytes[from..to].iter().all(|&b| b == 0);
    let meaning = if zero {
        format!("padding ({} bytes, alignment)", to - from)
    } else {
        format!("unreferenced bytes ({} bytes nothing points at)", to - from)
    };
    Span {
        offset: from,
        len: to - from,
        depth: 0,
        category: Category::Padding,
        field: ENVELOPE,
        meaning,
        owners: vec![super::span::Owner {
            product: None,
            field: ENVELOPE,
            path: None,
        }],
        top: None,
    }
}
