//! Seeded random Avro schemas and datums of them, for the schema-driven
//! codecs' round-trip and hostile-input tests: every type (records, enums,
//! fixed, arrays, maps, unions with and without null, every primitive),
//! nesting, empty collections and extreme numbers.

use wirebench::generic::datum::Datum;
use wirebench::generic::schema::{Node, NodeId, Schema};
use wirebench::prng::Rng;

/// Writes random `.avsc` text.
pub struct SchemaGen {
    rng: Rng,
    names: usize,
}

impl SchemaGen {
    pub fn new(seed: u64) -> SchemaGen {
        SchemaGen {
            rng: Rng::new(seed),
            names: 0,
        }
    }

    fn name(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    /// A record schema with up to `width` fields nested up to `depth` deep.
    pub fn record(&mut self, depth: usize) -> String {
        let name = self.name("R");
        let n = self.rng.below(6) as usize;
        let fields: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"name":"f{i}","type":{}}}"#, self.any(depth)))
            .collect();
        format!(r#"{{"type":"record","name":"{name}","fields":[{}]}}"#, fields.join(","))
    }

    fn primitive(&mut self) -> String {
        let p = [
            "\"null\"",
            "\"boolean\"",
            "\"int\"",
            "\"long\"",
            "\"float\"",
            "\"double\"",
            "\"bytes\"",
            "\"string\"",
        ];
        self.rng.pick(&p).to_string()
    }

    fn enumeration(&mut self) -> String {
        let name = self.name("E");
        let n = 1 + self.rng.below(4) as usize;
        let symbols: Vec<String> = (0..n).map(|i| format!("\"S{i}\"")).collect();
        format!(r#"{{"type":"enum","name":"{name}","symbols":[{}]}}"#, symbols.join(","))
    }

    fn fixed(&mut self) -> String {
        let name = self.name("F");
        format!(r#"{{"type":"fixed","name":"{name}","size":{}}}"#, self.rng.below(5))
    }

    /// Any type but a union.
    fn non_union(&mut self, depth: usize) -> String {
        let choice = if depth == 0 {
            self.rng.below(3)
        } else {
            self.rng.below(8)
        };
        match choice {
            0 => self.primitive(),
            1 => self.enumeration(),
            2 => self.fixed(),
            3 | 4 => self.record(depth - 1),
            5 => format!(r#"{{"type":"array","items":{}}}"#, self.any(depth - 1)),
            6 => format!(r#"{{"type":"map","values":{}}}"#, self.any(depth - 1)),
            _ => self.primitive(),
        }
    }

    /// Any type (a third of them unions).
    pub fn any(&mut self, depth: usize) -> String {
        if self.rng.below(3) > 0 {
            return self.non_union(depth);
        }
        // Unions: `["null", T]` half the time, else 1–4 distinct kinds.
        if self.rng.chance(50) {
            let t = loop {
                let t = self.non_union(depth);
                if t != "\"null\"" {
                    break t;
                }
            };
            return if self.rng.chance(50) {
                format!("[\"null\",{t}]")
            } else {
                format!("[{t},\"null\"]")
            };
        }
        let mut kinds: Vec<u64> = (0..12).collect();
        self.rng.shuffle(&mut kinds);
        let n = 1 + self.rng.below(4) as usize;
        let branches: Vec<String> = kinds[..n]
            .iter()
            .map(|k| match k {
                0 => "\"null\"".to_string(),
                1 => "\"boolean\"".to_string(),
                2 => "\"int\"".to_string(),
                3 => "\"long\"".to_string(),
                4 => "\"float\"".to_string(),
                5 => "\"double\"".to_string(),
                6 => "\"bytes\"".to_string(),
                7 => "\"string\"".to_string(),
                8 if depth > 0 => format!(r#"{{"type":"array","items":{}}}"#, self.non_union(depth - 1)),
                9 if depth > 0 => format!(r#"{{"type":"map","values":{}}}"#, self.non_union(depth - 1)),
                10 if depth > 0 => self.record(depth - 1),
                11 => self.enumeration(),
                _ => self.fixed(),
            })
            .collect();
        format!("[{}]", branches.join(","))
    }
}

/// A random datum of type `ty` in `schema`.
pub fn datum(schema: &Schema, ty: NodeId, rng: &mut Rng, depth: usize) -> Datum {
    match schema.node(ty) {
        Node::Null => Datum::Null,
        Node::Boolean => Datum::Boolean(rng.chance(50)),
        Node::Int => {
            let r = rng.next_u64() as i32;
            Datum::Int(*rng.pick(&[0, 1, -1, i32::MIN, i32::MAX, r, 300]))
        }
        Node::Long => {
            let r = rng.next_u64() as i64;
            Datum::Long(*rng.pick(&[0, 1, -1, i64::MIN, i64::MAX, r, 1 << 40]))
        }
        Node::Float => {
            let r = rng.unit_f64() as f32;
            Datum::Float(*rng.pick(&[
                0.0,
                -0.0,
                1.5,
                f32::MIN,
                f32::MAX,
                f32::MIN_POSITIVE,
                f32::INFINITY,
                f32::NAN,
                r,
            ]))
        }
        Node::Double => {
            let r = rng.unit_f64();
            Datum::Double(*rng.pick(&[
                0.0,
                -0.0,
                -2.25,
                f64::MIN,
                f64::MAX,
                f64::MIN_POSITIVE,
                f64::NEG_INFINITY,
                f64::NAN,
                5e-324,
                r,
            ]))
        }
        Node::Bytes => Datum::Bytes((0..rng.below(6)).map(|_| rng.next_u64() as u8).collect()),
        Node::String => Datum::String(string(rng)),
        Node::Fixed(f) => Datum::Fixed((0..f.size).map(|_| rng.next_u64() as u8).collect()),
        Node::Enum(e) => {
            let i = rng.below(e.symbols.len() as u64) as usize;
            Datum::Enum(i as u32, e.symbols[i].clone())
        }
        Node::Array(items) => {
            let n = if depth > 6 { 0 } else { rng.below(4) };
            Datum::Array((0..n).map(|_| datum(schema, *items, rng, depth + 1)).collect())
        }
        Node::Map(values) => {
            let n = if depth > 6 { 0 } else { rng.below(4) };
            let mut keys: Vec<String> = Vec::new();
            for i in 0..n {
                let k = match i {
                    0 => String::new(),
                    1 => "a/b~c".to_string(),
                    _ => format!("k{}", rng.next_u64() % 1000),
                };
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
            Datum::Map(
                keys.into_iter()
                    .map(|k| (k, datum(schema, *values, rng, depth + 1)))
                    .collect(),
            )
        }
        Node::Union(branches) => {
            let b = rng.below(branches.len() as u64) as usize;
            Datum::Union(b as u32, Box::new(datum(schema, branches[b], rng, depth + 1)))
        }
        Node::Record(r) => Datum::Record(
            r.fields
                .iter()
                .map(|f| (f.name.clone(), datum(schema, f.ty, rng, depth + 1)))
                .collect(),
        ),
    }
}

fn string(rng: &mut Rng) -> String {
    let parts = ["", "a", "héllo", "日本", "🦀", "\"\\\n", "\u{0}", "x y"];
    (0..rng.below(4)).map(|_| *rng.pick(&parts)).collect()
}

/// Datum equality with floats compared by their bits (NaN, -0.0).
/// An array's two forms, and a union's value and its bare form, are one
/// value each (`generic::datum`).
pub fn same(a: &Datum, b: &Datum) -> bool {
    if let (Some(x), Some(y)) = (a.array_items(), b.array_items()) {
        return x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q));
    }
    match (a, b) {
        (Datum::Float(x), Datum::Float(y)) => x.to_bits() == y.to_bits(),
        (Datum::Double(x), Datum::Double(y)) => x.to_bits() == y.to_bits(),
        (Datum::Union(i, x), Datum::Union(j, y)) => i == j && same(x, y),
        (Datum::Union(_, x), y) | (y, Datum::Union(_, x)) => same(x, y),
        (Datum::Map(x), Datum::Map(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, p), (l, q))| k == l && same(p, q))
        }
        (Datum::Record(x), Datum::Record(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, p), (l, q))| k == l && same(p, q))
        }
        _ => a == b,
    }
}

/// `d` with every map's entries sorted by key (for readers that keep maps
/// in hash order, as prost-reflect does).
pub fn sorted_maps(d: &Datum) -> Datum {
    match d {
        Datum::Map(entries) => {
            let mut e: Vec<(String, Datum)> = entries.iter().map(|(k, v)| (k.clone(), sorted_maps(v))).collect();
            e.sort_by(|a, b| a.0.cmp(&b.0));
            Datum::Map(e)
        }
        Datum::Record(fields) => Datum::Record(fields.iter().map(|(k, v)| (k.clone(), sorted_maps(v))).collect()),
        Datum::Array(items) => Datum::Array(items.iter().map(sorted_maps).collect()),
        Datum::Union(b, v) => Datum::Union(*b, Box::new(sorted_maps(v))),
        other => other.clone(),
    }
}

/// `d` with every `-0.0` made `0.0` (for writers that drop a negative zero
/// as the default of a field without presence, as prost-reflect does).
pub fn positive_zeros(d: &Datum) -> Datum {
    match d {
        Datum::Float(f) if *f == 0.0 => Datum::Float(0.0),
        Datum::Double(f) if *f == 0.0 => Datum::Double(0.0),
        Datum::Map(e) => Datum::Map(e.iter().map(|(k, v)| (k.clone(), positive_zeros(v))).collect()),
        Datum::Record(e) => Datum::Record(e.iter().map(|(k, v)| (k.clone(), positive_zeros(v))).collect()),
        Datum::Array(items) => Datum::Array(items.iter().map(positive_zeros).collect()),
        Datum::Scalars(items) => Datum::Array(items.iter().map(|d| positive_zeros(&d)).collect()),
        Datum::Union(b, v) => Datum::Union(*b, Box::new(positive_zeros(v))),
        other => other.clone(),
    }
}
