//! Seeded random Avro schemas and datums of them ([`crate::prng`]), for the
//! schema-driven codecs' round-trip and differential tests, fuzz targets and
//! benches.
//!
//! A schema draws from every type (primitives, enums, fixed, arrays, maps,
//! records, unions) nested up to a few levels; values include the extremes
//! (`i64::MIN`, `f64::MAX`, subnormals, `-0.0`, empty and escaped strings,
//! every byte value, empty collections). Unions hold at most one branch of
//! each JSON kind (null; boolean; one of int, long, float, double; one of
//! string, bytes, enum, fixed; array; record or map), so every format reads
//! a bare union value back to the branch it was written with. NaN is never
//! drawn: JSON cannot spell it and it is not equal to itself.

use super::datum::{Datum, Fields, Scalars};
use super::schema::{Node, NodeId, Schema};
use super::walk;
use crate::prng::Rng;

/// A random schema (`.avsc` text) and its parse.
pub fn schema(seed: u64) -> (String, Schema) {
    let mut g = Gen {
        rng: Rng::new(seed),
        named: 0,
    };
    let text = g.ty(0, false);
    let schema = match Schema::parse(text.as_bytes()) {
        Ok(s) => s,
        Err(e) => panic!("random schema {seed} does not parse: {e}\n{text}"),
    };
    (text, schema)
}

/// A random datum of `schema`'s root type.
pub fn datum(schema: &Schema, seed: u64) -> Datum {
    let mut rng = Rng::new(seed ^ 0x5eed_da7a);
    value(schema, schema.root(), &mut rng, 0)
}

struct Gen {
    rng: Rng,
    named: usize,
}

const MAX_SCHEMA_DEPTH: usize = 4;

impl Gen {
    fn name(&mut self, prefix: &str) -> String {
        self.named += 1;
        format!("{prefix}{}", self.named)
    }

    fn primitive(&mut self) -> String {
        format!("\"{}\"", self.rng.pick(&super::schema::PRIMITIVES))
    }

    fn ty(&mut self, depth: usize, in_union: bool) -> String {
        let leaf = depth >= MAX_SCHEMA_DEPTH;
        let choice = if leaf { self.rng.below(3) } else { self.rng.below(9) };
        match choice {
            0 => self.primitive(),
            1 => {
                let n = 1 + self.rng.below(4);
                let syms: Vec<String> = (0..n).map(|i| format!("\"S{i}\"")).collect();
                format!(
                    r#"{{"type":"enum","name":"{}","symbols":[{}]}}"#,
                    self.name("E"),
                    syms.join(",")
                )
            }
            2 => format!(
                r#"{{"type":"fixed","name":"{}","size":{}}}"#,
                self.name("F"),
                self.rng.below(6)
            ),
            3 => format!(r#"{{"type":"array","items":{}}}"#, self.ty(depth + 1, false)),
            4 => format!(r#"{{"type":"map","values":{}}}"#, self.ty(depth + 1, false)),
            5 | 6 => {
                let n = self.rng.below(6);
                let name = self.name("R");
                let fields: Vec<String> = (0..n)
                    .map(|i| format!(r#"{{"name":"f{i}","type":{}}}"#, self.ty(depth + 1, false)))
                    .collect();
                format!(r#"{{"type":"record","name":"{name}","fields":[{}]}}"#, fields.join(","))
            }
            _ if in_union => self.primitive(),
            _ => self.union(depth),
        }
    }

    /// A union with at most one branch of each JSON kind.
    fn union(&mut self, depth: usize) -> String {
        let mut kinds: Vec<u64> = (0..6).collect();
        self.rng.shuffle(&mut kinds);
        let n = 1 + self.rng.below(4) as usize;
        let mut branches = Vec::new();
        for &k in &kinds[..n] {
            branches.push(match k {
                0 => "\"null\"".to_string(),
                1 => "\"boolean\"".to_string(),
                2 => format!("\"{}\"", self.rng.pick(&["int", "long", "float", "double"])),
                3 => match self.rng.below(4) {
                    0 => "\"string\"".to_string(),
                    1 => "\"bytes\"".to_string(),
                    2 => format!(r#"{{"type":"enum","name":"{}","symbols":["A","B"]}}"#, self.name("E")),
                    _ => format!(r#"{{"type":"fixed","name":"{}","size":2}}"#, self.name("F")),
                },
                4 => format!(r#"{{"type":"array","items":{}}}"#, self.ty(depth + 1, true)),
                _ => {
                    if self.rng.chance(50) {
                        format!(r#"{{"type":"map","values":{}}}"#, self.ty(depth + 1, true))
                    } else {
                        let name = self.name("U");
                        format!(
                            r#"{{"type":"record","name":"{name}","fields":[{{"name":"x","type":{}}}]}}"#,
                            self.ty(depth + 1, true)
                        )
                    }
                }
            });
        }
        format!("[{}]", branches.join(","))
    }
}

const STRINGS: &[&str] = &[
    "",
    "a",
    "quote \" backslash \\ slash /",
    "tab\tnewline\ncontrol\u{1}\u{1f}",
    "é ü ñ — 日本語 🎉",
    "\u{7f}\u{80}\u{ffff}",
    "a much longer string that goes past thirty-one bytes, the fixstr limit",
];

fn string(rng: &mut Rng) -> String {
    if rng.chance(80) {
        rng.pick(STRINGS).to_string()
    } else {
        let n = rng.below(300) as usize;
        (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect()
    }
}

fn bytes(rng: &mut Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.below(256) as u8).collect()
}

fn value(schema: &Schema, node: NodeId, rng: &mut Rng, depth: usize) -> Datum {
    let count = |rng: &mut Rng| if depth > 6 { 0 } else { rng.below(4) as usize };
    match schema.node(node) {
        Node::Null => Datum::Null,
        Node::Boolean => Datum::Boolean(rng.chance(50)),
        Node::Int => Datum::Int(*rng.pick(&[0, 1, -1, 63, 64, -64, -65, 127, 128, 255, 300, i32::MIN, i32::MAX])),
        Node::Long => Datum::Long(if rng.chance(50) {
            *rng.pick(&[
                0,
                -1,
                1 << 31,
                -(1 << 31) - 1,
                1 << 32,
                i64::MIN,
                i64::MAX,
                65535,
                65536,
            ])
        } else {
            rng.next_u64() as i64
        }),
        Node::Float => Datum::Float(*rng.pick(&[
            0.0,
            -0.0,
            1.5,
            0.1,
            -3.25e-7,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            1e-45,
            16_777_216.0,
        ])),
        Node::Double => Datum::Double(if rng.chance(60) {
            *rng.pick(&[
                0.0,
                -0.0,
                4.5,
                0.1,
                1e21,
                1e-7,
                123_456.789,
                f64::MAX,
                f64::MIN,
                f64::MIN_POSITIVE,
                5e-324,
                9_007_199_254_740_993.0,
            ])
        } else {
            (rng.unit_f64() - 0.5) * 10f64.powi(rng.range_i64(-30, 30) as i32)
        }),
        Node::Bytes => {
            let n = rng.below(40) as usize;
            Datum::Bytes(bytes(rng, n))
        }
        Node::String => Datum::String(string(rng)),
        Node::Fixed(f) => Datum::Fixed(bytes(rng, f.size)),
        Node::Enum(e) => {
            let i = rng.below(e.symbols.len() as u64) as u32;
            Datum::Enum(i, e.symbols[i as usize].clone())
        }
        Node::Array(items) => {
            let n = count(rng);
            let values: Vec<Datum> = (0..n).map(|_| value(schema, *items, rng, depth + 1)).collect();
            // Odd-length arrays of ints, longs and doubles take the unboxed
            // form (no draw of its own: the stream stays the same), so every
            // encoder meets both forms.
            match schema.node(*items) {
                Node::Int if n % 2 == 1 => Datum::Scalars(Scalars::Int(
                    values
                        .iter()
                        .filter_map(|d| if let Datum::Int(x) = d { Some(*x) } else { None })
                        .collect(),
                )),
                Node::Long if n % 2 == 1 => Datum::Scalars(Scalars::Long(
                    values
                        .iter()
                        .filter_map(|d| if let Datum::Long(x) = d { Some(*x) } else { None })
                        .collect(),
                )),
                Node::Double if n % 2 == 1 => Datum::Scalars(Scalars::Double(
                    values
                        .iter()
                        .filter_map(|d| if let Datum::Double(x) = d { Some(*x) } else { None })
                        .collect(),
                )),
                _ => Datum::Array(values),
            }
        }
        Node::Map(values) => {
            let n = count(rng);
            Datum::Map(
                (0..n)
                    .map(|i| {
                        let k = format!("{}{i}", rng.pick(STRINGS));
                        (k, value(schema, *values, rng, depth + 1))
                    })
                    .collect(),
            )
        }
        Node::Record(r) => Datum::Record(
            Fields::new(
                r.names.clone(),
                r.fields.iter().map(|f| value(schema, f.ty, rng, depth + 1)).collect(),
            )
            .expect("a value per field"),
        ),
        Node::Union(branches) => {
            // Past the depth limit, prefer a branch that ends the nesting.
            let leafy: Vec<usize> = (0..branches.len())
                .filter(|&i| {
                    !matches!(
                        schema.node(branches[i]),
                        Node::Array(_) | Node::Map(_) | Node::Record(_)
                    )
                })
                .collect();
            let i = if depth > 6 && !leafy.is_empty() {
                *rng.pick(&leafy)
            } else {
                rng.below(branches.len() as u64) as usize
            };
            let v = value(schema, branches[i], rng, depth + 1);
            // Odd branches go bare where the writers find them by shape (no
            // draw of its own), so every encoder meets both union forms.
            if i % 2 == 1 && walk::branch_for(schema, branches, &v).is_some_and(|(b, _)| b as usize == i) {
                v
            } else {
                Datum::Union(i as u32, Box::new(v))
            }
        }
    }
}
