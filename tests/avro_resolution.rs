//! Differential test of Avro schema resolution: our resolving reader
//! (`wirebench::generic::resolve`) against apache-avro's reader-schema
//! decode (`from_avro_datum(writer, bytes, Some(reader))`).
//!
//! 1. Every evolution step of `schemas/evolution/`, both directions, on the
//!    bytes the evolution matrix writes.
//! 2. Seeded random schema pairs with random data: a random writer schema,
//!    a reader derived from it by the changes "Schema Resolution" allows and
//!    some it refuses, and random data for the writer. The test counts what
//!    the pairs exercised and fails if any feature went untested.
//!
//! Results must agree: the same datum (maps compared by key), or both
//! refuse. Where apache-avro 0.22 departs from the specification, the test
//! says so and checks the departure instead:
//!
//! - it ignores field aliases ("Aliases"): it is given the writer's schema
//!   with the reader's aliases applied, which is what the specification
//!   says an alias means;
//! - it reads `long` as `int` where the specification refuses the pair,
//!   refusing only a value that does not fit; the pairs never ask for that,
//!   and the `widen-int` step checks it;
//! - it reads `fixed` as `string` (and strings or bytes as `fixed`); the
//!   refusal the pairs ask of a `fixed` is a `boolean` reader.

// apache-avro 0.22 marks its one-call datum functions deprecated in favour of
// GenericDatumReader/Writer; they still do exactly the reader-schema decode
// (and plain encode) this test compares with, so the test keeps them.
#![allow(deprecated)]

use apache_avro::Schema as ApacheSchema;
use apache_avro::types::Value;
use serde_json::{Value as J, json};
use wirebench::evolve::{Direction, Row, Step, run};
use wirebench::generic::datum::Datum;
use wirebench::generic::resolve::Resolver;
use wirebench::generic::schema::Schema;
use wirebench::prng::Rng;

/// apache-avro's value as our datum; maps sorted by key.
fn from_apache(v: Value) -> Datum {
    match v {
        Value::Null => Datum::Null,
        Value::Boolean(b) => Datum::Boolean(b),
        Value::Int(i) => Datum::Int(i),
        Value::Long(i) => Datum::Long(i),
        Value::Float(f) => Datum::Float(f),
        Value::Double(f) => Datum::Double(f),
        Value::Bytes(b) => Datum::Bytes(b),
        Value::String(s) => Datum::String(s),
        Value::Fixed(_, b) => Datum::Fixed(b),
        Value::Enum(i, s) => Datum::Enum(i, s.into()),
        Value::Union(i, b) => Datum::Union(i, Box::new(from_apache(*b))),
        Value::Array(items) => Datum::Array(items.into_iter().map(from_apache).collect()),
        Value::Map(m) => {
            let mut e: Vec<(String, Datum)> = m.into_iter().map(|(k, v)| (k, from_apache(v))).collect();
            e.sort_by(|a, b| a.0.cmp(&b.0));
            Datum::Map(e)
        }
        Value::Record(f) => Datum::Record(f.into_iter().map(|(k, v)| (k.into(), from_apache(v))).collect()),
        other => panic!("logical-type value {other:?} in a test without logical types"),
    }
}

/// Our datum with maps sorted by key, to compare with [`from_apache`].
fn sorted(d: Datum) -> Datum {
    match d {
        Datum::Union(i, b) => Datum::Union(i, Box::new(sorted(*b))),
        Datum::Array(items) => Datum::Array(items.into_iter().map(sorted).collect()),
        Datum::Map(m) => {
            let mut e: Vec<(String, Datum)> = m.into_iter().map(|(k, v)| (k, sorted(v))).collect();
            e.sort_by(|a, b| a.0.cmp(&b.0));
            Datum::Map(e)
        }
        Datum::Record(f) => Datum::Record(f.into_iter().map(|(k, v)| (k, sorted(v))).collect()),
        other => other,
    }
}

fn ours(writer: &str, reader: &str, bytes: &[u8]) -> Result<Datum, String> {
    let w = Schema::parse(writer.as_bytes()).map_err(|e| format!("our writer schema: {e}"))?;
    let r = Schema::parse(reader.as_bytes()).map_err(|e| format!("our reader schema: {e}"))?;
    Resolver::new(&w, &r).read(bytes).map(sorted).map_err(|e| e.to_string())
}

fn theirs(writer: &str, reader: &str, bytes: &[u8]) -> Result<Datum, String> {
    let w = ApacheSchema::parse_str(writer).map_err(|e| format!("apache writer schema: {e}"))?;
    let r = ApacheSchema::parse_str(reader).map_err(|e| format!("apache reader schema: {e}"))?;
    let mut input = bytes;
    let v = apache_avro::from_avro_datum(&w, &mut input, Some(&r)).map_err(|e| e.to_string())?;
    if !input.is_empty() {
        return Err(format!("{} bytes left over", input.len()));
    }
    Ok(from_apache(v))
}

const V1: &str = include_str!("../schemas/catalog.avsc");

#[test]
fn every_evolution_step_matches_apache_avro() {
    for step in Step::ALL {
        for d in Direction::ALL {
            let cell = run(step, Row::Avro, d).unwrap();
            let (w, r) = match d {
                Direction::OldToNew => (V1.to_string(), step.avsc().to_string()),
                Direction::NewToOld => (step.avsc().to_string(), V1.to_string()),
            };
            let ours = cell.read.clone().map(sorted);
            // "Aliases": the reader's field alias renames the writer's field.
            let w_for_apache = match (step, d) {
                (Step::RenameField, Direction::OldToNew) => {
                    w.replace("\"name\": \"review_count\"", "\"name\": \"reviews\"")
                }
                _ => w.clone(),
            };
            let theirs = theirs(&w_for_apache, &r, &cell.bytes);
            let label = format!("{} {:?}", step.id(), d);
            match (step, d) {
                (Step::WidenInt, Direction::NewToOld) => {
                    // The specification refuses long → int for the schema
                    // pair; apache-avro refuses only a value that does not
                    // fit (the first product's stock is 5,000,000,000).
                    assert!(
                        ours.as_ref().unwrap_err().contains("narrowing is refused"),
                        "{label}: {ours:?}"
                    );
                    assert!(
                        theirs.as_ref().is_err_and(|e| e.contains("out of range")),
                        "{label}: {theirs:?}"
                    );
                }
                _ => match (&ours, &theirs) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b, "{label}"),
                    (Err(_), Err(_)) => {}
                    _ => panic!("{label}: ours {ours:?}\ntheirs {theirs:?}"),
                },
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Random schema pairs.

/// A schema type of the generator. Named types get fresh names.
#[derive(Clone, Debug)]
enum T {
    Null,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Bytes,
    Str,
    Fixed(String, Vec<String>, usize),
    Enum(String, Vec<String>, Vec<String>, Option<String>),
    Array(Box<T>),
    Map(Box<T>),
    Union(Vec<T>),
    Record(String, Vec<String>, Vec<F>),
}

#[derive(Clone, Debug)]
struct F {
    name: String,
    aliases: Vec<String>,
    ty: T,
    default: Option<J>,
}

fn schema_json(t: &T) -> J {
    match t {
        T::Null => json!("null"),
        T::Boolean => json!("boolean"),
        T::Int => json!("int"),
        T::Long => json!("long"),
        T::Float => json!("float"),
        T::Double => json!("double"),
        T::Bytes => json!("bytes"),
        T::Str => json!("string"),
        T::Fixed(n, a, size) => json!({"type": "fixed", "name": n, "aliases": a, "size": size}),
        T::Enum(n, a, s, d) => {
            let mut o = json!({"type": "enum", "name": n, "aliases": a, "symbols": s});
            if let Some(d) = d {
                o["default"] = json!(d);
            }
            o
        }
        T::Array(i) => json!({"type": "array", "items": schema_json(i)}),
        T::Map(v) => json!({"type": "map", "values": schema_json(v)}),
        T::Union(b) => J::Array(b.iter().map(schema_json).collect()),
        T::Record(n, a, fields) => {
            let fields: Vec<J> = fields
                .iter()
                .map(|f| {
                    let mut o = json!({"name": f.name, "type": schema_json(&f.ty)});
                    if !f.aliases.is_empty() {
                        o["aliases"] = json!(f.aliases);
                    }
                    if let Some(d) = &f.default {
                        o["default"] = d.clone();
                    }
                    o
                })
                .collect();
            json!({"type": "record", "name": n, "aliases": a, "fields": fields})
        }
    }
}

/// What the random pairs exercised; every counter must end above zero.
#[derive(Default, Debug)]
struct Seen {
    promotions: std::collections::BTreeSet<&'static str>,
    defaults: std::collections::BTreeSet<&'static str>,
    alias: usize,
    type_alias: usize,
    enum_default: usize,
    union_to_plain: usize,
    plain_to_union: usize,
    record_in_array: usize,
    record_in_map: usize,
    skipped: usize,
    refusals: std::collections::BTreeSet<&'static str>,
    agreed_ok: usize,
    agreed_err: usize,
}

struct Gen {
    rng: Rng,
    names: usize,
}

impl Gen {
    fn name(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    fn ty(&mut self, depth: usize) -> T {
        let leaf = depth >= 3 || self.rng.chance(45);
        if leaf {
            return match self.rng.below(10) {
                0 => T::Null,
                1 => T::Boolean,
                2 => T::Int,
                3 => T::Long,
                4 => T::Float,
                5 => T::Double,
                6 => T::Bytes,
                7 => T::Str,
                8 => T::Fixed(self.name("F"), vec![], self.rng.below(4) as usize),
                _ => {
                    let n = 1 + self.rng.below(4) as usize;
                    T::Enum(self.name("E"), vec![], (0..n).map(|i| format!("S{i}")).collect(), None)
                }
            };
        }
        match self.rng.below(4) {
            0 => T::Array(Box::new(self.ty(depth + 1))),
            1 => T::Map(Box::new(self.ty(depth + 1))),
            2 => {
                let inner = self.ty(depth + 1);
                match inner {
                    T::Null | T::Union(_) => T::Union(vec![T::Null, T::Long]),
                    other => T::Union(vec![T::Null, other]),
                }
            }
            _ => self.record(depth),
        }
    }

    fn record(&mut self, depth: usize) -> T {
        let n = 1 + self.rng.below(4) as usize;
        let fields = (0..n)
            .map(|i| F {
                name: format!("f{i}"),
                aliases: vec![],
                ty: self.ty(depth + 1),
                default: None,
            })
            .collect();
        T::Record(self.name("R"), vec![], fields)
    }

    /// A random value of `t` as apache-avro's `Value`.
    fn value(&mut self, t: &T) -> Value {
        let r = &mut self.rng;
        match t {
            T::Null => Value::Null,
            T::Boolean => Value::Boolean(r.chance(50)),
            T::Int => Value::Int(r.range_i64(i64::from(i32::MIN), i64::from(i32::MAX)) as i32),
            T::Long => Value::Long(if r.chance(50) {
                r.range_i64(-1000, 1000)
            } else {
                r.next_u64() as i64
            }),
            T::Float => Value::Float((r.unit_f64() * 2000.0 - 1000.0) as f32),
            T::Double => Value::Double(r.unit_f64() * 1e6 - 5e5),
            T::Bytes => {
                let n = r.below(6) as usize;
                // Sometimes not UTF-8: a bytes → string promotion must refuse it.
                Value::Bytes(
                    (0..n)
                        .map(|_| if r.chance(10) { 0xff } else { b'a' + r.below(26) as u8 })
                        .collect(),
                )
            }
            T::Str => {
                let n = r.below(6) as usize;
                Value::String((0..n).map(|_| *r.pick(&['a', 'é', 'z', '📦', ' '])).collect())
            }
            T::Fixed(_, _, size) => Value::Fixed(*size, (0..*size).map(|_| r.below(256) as u8).collect()),
            T::Enum(_, _, syms, _) => {
                let i = r.below(syms.len() as u64) as usize;
                Value::Enum(i as u32, syms[i].clone())
            }
            T::Array(item) => {
                let n = self.rng.below(3);
                Value::Array((0..n).map(|_| self.value(item)).collect())
            }
            T::Map(v) => {
                let n = self.rng.below(3);
                Value::Map((0..n).map(|i| (format!("k{i}"), self.value(v))).collect())
            }
            T::Union(b) => {
                let i = self.rng.below(b.len() as u64) as usize;
                Value::Union(i as u32, Box::new(self.value(&b[i])))
            }
            T::Record(_, _, fields) => {
                Value::Record(fields.iter().map(|f| (f.name.clone(), self.value(&f.ty))).collect())
            }
        }
    }

    /// A random JSON default of `t` (ASCII text: see the module doc).
    fn default(&mut self, t: &T, seen: &mut Seen) -> J {
        let kind = match t {
            T::Null => "null",
            T::Boolean => "boolean",
            T::Int => "int",
            T::Long => "long",
            T::Float => "float",
            T::Double => "double",
            T::Bytes => "bytes",
            T::Str => "string",
            T::Fixed(..) => "fixed",
            T::Enum(..) => "enum",
            T::Array(_) => "array",
            T::Map(_) => "map",
            T::Union(_) => "union",
            T::Record(..) => "record",
        };
        seen.defaults.insert(kind);
        let r = &mut self.rng;
        match t {
            T::Null => J::Null,
            T::Boolean => json!(r.chance(50)),
            T::Int => json!(r.range_i64(-100_000, 100_000)),
            T::Long => json!(r.range_i64(-1 << 40, 1 << 40)),
            T::Float | T::Double => json!(r.range_i64(-1000, 1000) as f64 / 4.0),
            T::Bytes | T::Str => json!(["", "abc", "x y"][r.below(3) as usize]),
            T::Fixed(_, _, size) => json!("q".repeat(*size)),
            T::Enum(_, _, syms, _) => json!(syms[r.below(syms.len() as u64) as usize]),
            T::Array(item) => {
                let item = (**item).clone();
                let n = self.rng.below(3);
                J::Array((0..n).map(|_| self.default(&item, seen)).collect())
            }
            T::Map(v) => {
                let v = (**v).clone();
                let n = self.rng.below(3);
                J::Object((0..n).map(|i| (format!("d{i}"), self.default(&v, seen))).collect())
            }
            T::Union(b) => {
                let first = b[0].clone();
                self.default(&first, seen)
            }
            T::Record(_, _, fields) => {
                let fields = fields.clone();
                J::Object(
                    fields
                        .iter()
                        .map(|f| (f.name.clone(), self.default(&f.ty, seen)))
                        .collect(),
                )
            }
        }
    }

    /// A reader type for writer type `w`, and the writer as apache-avro must
    /// see it (field aliases applied). Mostly compatible; sometimes a change
    /// the specification refuses.
    fn evolve(&mut self, w: &T, seen: &mut Seen) -> (T, T) {
        if self.rng.chance(4) {
            // A refusal: a type no promotion reaches.
            let r = match w {
                T::Str | T::Bytes | T::Fixed(..) => T::Boolean,
                _ => T::Str,
            };
            if !matches!(w, T::Null | T::Union(_)) {
                seen.refusals.insert("type mismatch");
                return (r, w.clone());
            }
        }
        match w {
            T::Int => {
                let (r, p) = match self.rng.below(5) {
                    0 => (T::Long, "int→long"),
                    1 => (T::Float, "int→float"),
                    2 => (T::Double, "int→double"),
                    3 => (T::Union(vec![T::Null, T::Long]), "int→[null,long]"),
                    _ => (T::Int, "int"),
                };
                seen.promotions.insert(p);
                if matches!(r, T::Union(_)) {
                    seen.plain_to_union += 1;
                }
                (r, w.clone())
            }
            T::Long => {
                let (r, p) = match self.rng.below(3) {
                    0 => (T::Float, "long→float"),
                    1 => (T::Double, "long→double"),
                    _ => (T::Long, "long"),
                };
                seen.promotions.insert(p);
                (r, w.clone())
            }
            T::Float => {
                seen.promotions.insert("float→double");
                (if self.rng.chance(50) { T::Double } else { T::Float }, w.clone())
            }
            T::Str if self.rng.chance(40) => {
                seen.promotions.insert("string→bytes");
                (T::Bytes, w.clone())
            }
            T::Bytes if self.rng.chance(40) => {
                seen.promotions.insert("bytes→string");
                (T::Str, w.clone())
            }
            T::Enum(n, a, syms, _) => {
                let mut r = syms.clone();
                self.rng.shuffle(&mut r);
                let mut default = None;
                if self.rng.chance(30) {
                    r.push("NEW".into());
                }
                if r.len() > 1 && self.rng.chance(40) {
                    r.remove(0);
                    if self.rng.chance(60) {
                        default = Some(r[0].clone());
                        seen.enum_default += 1;
                    } else {
                        seen.refusals.insert("enum symbol without default");
                    }
                }
                let (name, aliases) = self.maybe_rename(n, a, seen);
                (T::Enum(name, aliases, r, default), w.clone())
            }
            T::Fixed(n, a, size) => {
                let (name, aliases) = self.maybe_rename(n, a, seen);
                (T::Fixed(name, aliases, *size), w.clone())
            }
            T::Array(item) => {
                if matches!(**item, T::Record(..)) {
                    seen.record_in_array += 1;
                }
                let (r, wa) = self.evolve(item, seen);
                (T::Array(Box::new(r)), T::Array(Box::new(wa)))
            }
            T::Map(v) => {
                if matches!(**v, T::Record(..)) {
                    seen.record_in_map += 1;
                }
                let (r, wa) = self.evolve(v, seen);
                (T::Map(Box::new(r)), T::Map(Box::new(wa)))
            }
            T::Union(b) => {
                let (inner_r, inner_w) = self.evolve(&b[1], seen);
                let wa = T::Union(vec![T::Null, inner_w]);
                match self.rng.below(3) {
                    0 if !matches!(inner_r, T::Null | T::Union(_)) => {
                        seen.union_to_plain += 1;
                        (inner_r, wa)
                    }
                    1 if !matches!(inner_r, T::Null | T::Union(_)) => (T::Union(vec![inner_r, T::Null]), wa),
                    _ if !matches!(inner_r, T::Null | T::Union(_)) => (T::Union(vec![T::Null, inner_r]), wa),
                    _ => (w.clone(), w.clone()),
                }
            }
            T::Record(n, a, fields) => {
                let mut rf = Vec::new();
                let mut wf = Vec::new();
                for f in fields {
                    match self.rng.below(6) {
                        0 => {
                            // Writer-only: skipped by the reader.
                            seen.skipped += 1;
                            wf.push(f.clone());
                        }
                        1 => {
                            // Renamed, with the old name as an alias.
                            seen.alias += 1;
                            let (r, wa) = self.evolve(&f.ty, seen);
                            let new = format!("{}_new", f.name);
                            rf.push(F {
                                name: new.clone(),
                                aliases: vec![f.name.clone()],
                                ty: r,
                                default: None,
                            });
                            wf.push(F {
                                name: new,
                                aliases: vec![],
                                ty: wa,
                                default: None,
                            });
                        }
                        _ => {
                            let (r, wa) = self.evolve(&f.ty, seen);
                            rf.push(F {
                                name: f.name.clone(),
                                aliases: vec![],
                                ty: r,
                                default: None,
                            });
                            wf.push(F {
                                name: f.name.clone(),
                                aliases: vec![],
                                ty: wa,
                                default: None,
                            });
                        }
                    }
                }
                // Reader-only fields: with a default of a random type, or
                // (sometimes) without one, which the reader must refuse.
                for i in 0..self.rng.below(3) {
                    let ty = self.ty(2);
                    let default = if self.rng.chance(90) {
                        Some(self.default(&ty, seen))
                    } else {
                        seen.refusals.insert("reader field without default");
                        None
                    };
                    rf.push(F {
                        name: format!("added{i}"),
                        aliases: vec![],
                        ty,
                        default,
                    });
                }
                self.rng.shuffle(&mut rf);
                let (name, aliases) = self.maybe_rename(n, a, seen);
                (T::Record(name, aliases, rf), T::Record(n.clone(), a.clone(), wf))
            }
            other => (other.clone(), other.clone()),
        }
    }

    /// Sometimes a named type is renamed in the reader, with the writer's
    /// name as the reader's alias.
    fn maybe_rename(&mut self, n: &str, a: &[String], seen: &mut Seen) -> (String, Vec<String>) {
        if self.rng.chance(20) {
            seen.type_alias += 1;
            (format!("{n}x"), vec![n.to_string()])
        } else {
            (n.to_string(), a.to_vec())
        }
    }
}

#[test]
fn random_schema_pairs_match_apache_avro() {
    let mut seen = Seen::default();
    for seed in 0..600u64 {
        let mut g = Gen {
            rng: Rng::new(0xA5A5 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            names: 0,
        };
        let w = g.record(0);
        let (r, w_apache) = g.evolve(&w, &mut seen);
        let w_text = schema_json(&w).to_string();
        let r_text = schema_json(&r).to_string();
        let wa_text = schema_json(&w_apache).to_string();
        let apache_w = ApacheSchema::parse_str(&w_text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{w_text}"));
        for k in 0..4 {
            let value = g.value(&w);
            let bytes = apache_avro::to_avro_datum(&apache_w, value.clone())
                .unwrap_or_else(|e| panic!("seed {seed}: encode: {e}"));
            let ours = ours(&w_text, &r_text, &bytes);
            let theirs = theirs(&wa_text, &r_text, &bytes);
            match (&ours, &theirs) {
                (Ok(a), Ok(b)) => {
                    seen.agreed_ok += 1;
                    assert_eq!(a, b, "seed {seed} datum {k}\nwriter {w_text}\nreader {r_text}");
                }
                (Err(_), Err(_)) => seen.agreed_err += 1,
                _ => panic!(
                    "seed {seed} datum {k}: ours {ours:?}\ntheirs {theirs:?}\nwriter {w_text}\nreader {r_text}\nvalue {value:?}"
                ),
            }
        }
    }
    eprintln!("random pairs exercised: {seen:?}");
    let promotions = [
        "int→long",
        "int→float",
        "int→double",
        "long→float",
        "long→double",
        "float→double",
        "string→bytes",
        "bytes→string",
    ];
    for p in promotions {
        assert!(seen.promotions.contains(p), "no pair promoted {p}: {seen:?}");
    }
    for d in [
        "null", "boolean", "int", "long", "float", "double", "bytes", "string", "fixed", "enum", "array", "map",
        "union", "record",
    ] {
        assert!(seen.defaults.contains(d), "no default of type {d}: {seen:?}");
    }
    for r in [
        "type mismatch",
        "enum symbol without default",
        "reader field without default",
    ] {
        assert!(seen.refusals.contains(r), "no refusal {r}: {seen:?}");
    }
    assert!(
        seen.alias > 0 && seen.type_alias > 0 && seen.enum_default > 0,
        "{seen:?}"
    );
    assert!(
        seen.union_to_plain > 0 && seen.plain_to_union > 0 && seen.skipped > 0,
        "{seen:?}"
    );
    assert!(seen.record_in_array > 0 && seen.record_in_map > 0, "{seen:?}");
    assert!(seen.agreed_ok > 500 && seen.agreed_err > 50, "{seen:?}");
}

/// Named types used by reference and recursion: a linked list whose nodes
/// carry a map of references to the list type, read by a reader that
/// renames the record (alias), promotes the value and adds a defaulted
/// array of itself.
#[test]
fn references_and_recursion_match_apache_avro() {
    let w = r#"{"type":"record","name":"L","namespace":"n","fields":[
        {"name":"v","type":"int"},
        {"name":"tag","type":{"type":"enum","name":"Tag","symbols":["A","B"]}},
        {"name":"again","type":"Tag"},
        {"name":"m","type":{"type":"map","values":["null","L"]}},
        {"name":"next","type":["null","n.L"]}]}"#;
    let r = r#"{"type":"record","name":"N","namespace":"n","aliases":["L"],"fields":[
        {"name":"next","type":["null","N"]},
        {"name":"again","type":{"type":"enum","name":"T2","aliases":["Tag"],"symbols":["B","A"]}},
        {"name":"v","type":"double"},
        {"name":"kids","type":{"type":"array","items":"N"},"default":[]}]}"#;
    let apache_w = ApacheSchema::parse_str(w).unwrap();
    let mut rng = Rng::new(77);
    fn list(rng: &mut Rng, depth: usize) -> Value {
        let next = if depth < 4 && rng.chance(70) {
            Value::Union(1, Box::new(list(rng, depth + 1)))
        } else {
            Value::Union(0, Box::new(Value::Null))
        };
        let m = if depth < 3 && rng.chance(40) {
            vec![("k".to_string(), Value::Union(1, Box::new(list(rng, depth + 2))))]
        } else {
            vec![("z".to_string(), Value::Union(0, Box::new(Value::Null)))]
        };
        let t = rng.below(2) as u32;
        let tag = Value::Enum(t, ["A", "B"][t as usize].to_string());
        Value::Record(vec![
            ("v".into(), Value::Int(rng.range_i64(-1000, 1000) as i32)),
            ("tag".into(), tag.clone()),
            ("again".into(), tag),
            ("m".into(), Value::Map(m.into_iter().collect())),
            ("next".into(), next),
        ])
    }
    for _ in 0..50 {
        let bytes = apache_avro::to_avro_datum(&apache_w, list(&mut rng, 0)).unwrap();
        let ours = ours(w, r, &bytes).unwrap();
        assert_eq!(Ok(ours), theirs(w, r, &bytes));
    }
}
