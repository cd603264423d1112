//! A format-neutral value tree that every annotator builds while it walks,
//! and its conversion to the domain model.
//!
//! Self-describing formats (JSON, MessagePack) produce maps keyed by the names
//! found in the payload; schema formats (Avro, Protobuf, FlatBuffers) produce
//! records keyed by the schema's names, which the annotator knows by position,
//! field number or vtable slot. Either way [`Value::to_catalog`] reads fields
//! by name, so one conversion serves all five annotators.

use crate::model::{Catalog, Dimensions, Product, Status, Variant};

/// A decoded value, before it is given a domain type.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// The JSON integer literal `-0`: zero as an integer, minus zero as a
    /// float (an `Int` would lose the sign).
    NegZero,
    /// Unsigned integers beyond `i64::MAX` (MessagePack uint64).
    UInt(u64),
    Float(f64),
    Str(String),
    /// An enum by its ordinal (Avro, Protobuf, FlatBuffers).
    Enum(i64),
    List(Vec<Value>),
    /// Named fields in the order they were read.
    Record(Vec<(String, Value)>),
}

fn field<'a>(fields: &'a [(String, Value)], name: &str) -> Option<&'a Value> {
    fields.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

struct Reader<'a> {
    fields: &'a [(String, Value)],
    path: String,
    /// An absent submessage (Protobuf omits one whose fields are all default):
    /// every field reads as its default.
    absent: bool,
}

impl Reader<'_> {
    fn get(&self, name: &str) -> Result<&Value, String> {
        match field(self.fields, name) {
            Some(v) => Ok(v),
            None if self.absent => Ok(&Value::Null),
            None => Err(format!("{}: missing field {name}", self.path)),
        }
    }

    fn i64(&self, name: &str) -> Result<i64, String> {
        match self.get(name)? {
            Value::Int(v) => Ok(*v),
            Value::NegZero => Ok(0),
            // Protobuf/FlatBuffers omit default values: absent means 0.
            Value::Null => Ok(0),
            other => Err(format!("{}.{name}: expected an integer, found {other:?}", self.path)),
        }
    }

    fn i32(&self, name: &str) -> Result<i32, String> {
        let v = self.i64(name)?;
        i32::try_from(v).map_err(|_| format!("{}.{name}: {v} does not fit in i32", self.path))
    }

    fn str(&self, name: &str) -> Result<String, String> {
        match self.get(name)? {
            Value::Str(s) => Ok(s.clone()),
            Value::Null => Ok(String::new()),
            other => Err(format!("{}.{name}: expected a string, found {other:?}", self.path)),
        }
    }

    fn list(&self, name: &str) -> Result<&[Value], String> {
        match self.get(name)? {
            Value::List(items) => Ok(items),
            Value::Null => Ok(&[]),
            other => Err(format!("{}.{name}: expected a list, found {other:?}", self.path)),
        }
    }

    fn record(&self, name: &str) -> Result<Reader<'_>, String> {
        match self.get(name)? {
            Value::Record(fields) => Ok(Reader {
                fields,
                path: format!("{}.{name}", self.path),
                absent: false,
            }),
            Value::Null => Ok(Reader {
                fields: &[],
                path: format!("{}.{name}", self.path),
                absent: true,
            }),
            other => Err(format!("{}.{name}: expected a record, found {other:?}", self.path)),
        }
    }
}

fn as_record<'a>(v: &'a Value, path: String) -> Result<Reader<'a>, String> {
    match v {
        Value::Record(fields) => Ok(Reader {
            fields,
            path,
            absent: false,
        }),
        other => Err(format!("{path}: expected a record, found {other:?}")),
    }
}

impl Value {
    /// Reads a `Catalog { products }` out of the tree, by field name.
    pub fn to_catalog(&self) -> Result<Catalog, String> {
        let root = as_record(self, "catalog".into())?;
        let mut products = Vec::new();
        for (i, p) in root.list("products")?.iter().enumerate() {
            products.push(product(as_record(p, format!("products[{i}]"))?)?);
        }
        Ok(Catalog { products })
    }
}

fn product(r: Reader<'_>) -> Result<Product, String> {
    let status = match r.get("status")? {
        Value::Str(s) => Status::from_str_exact(s).ok_or_else(|| format!("{}.status: unknown {s:?}", r.path))?,
        Value::Enum(i) => Status::from_index(*i).ok_or_else(|| format!("{}.status: unknown ordinal {i}", r.path))?,
        Value::Null => Status::Active,
        other => return Err(format!("{}.status: expected an enum, found {other:?}", r.path)),
    };
    let rating = match r.get("rating")? {
        Value::Float(f) => *f,
        Value::NegZero => -0.0,
        Value::Null => 0.0,
        other => return Err(format!("{}.rating: expected a float, found {other:?}", r.path)),
    };
    let in_stock = match r.get("in_stock")? {
        Value::Bool(b) => *b,
        Value::Null => false,
        other => return Err(format!("{}.in_stock: expected a bool, found {other:?}", r.path)),
    };
    let d = r.record("dimensions")?;
    let tags = r
        .list("tags")?
        .iter()
        .map(|t| match t {
            Value::Str(s) => Ok(s.clone()),
            other => Err(format!("{}.tags: expected strings, found {other:?}", r.path)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut variants = Vec::new();
    for (j, v) in r.list("variants")?.iter().enumerate() {
        let v = as_record(v, format!("{}.variants[{j}]", r.path))?;
        variants.push(Variant {
            sku: v.str("sku")?,
            color: v.str("color")?,
            size: v.str("size")?,
            price_cents: v.i64("price_cents")?,
            stock: v.i32("stock")?,
        });
    }
    let discount_percent = match field(r.fields, "discount_percent") {
        None | Some(Value::Null) => None,
        Some(Value::Int(v)) => Some(i32::try_from(*v).map_err(|_| format!("{}.discount_percent: {v}", r.path))?),
        Some(other) => {
            return Err(format!(
                "{}.discount_percent: expected an int or null, found {other:?}",
                r.path
            ));
        }
    };
    Ok(Product {
        id: r.i64("id")?,
        sku: r.str("sku")?,
        name: r.str("name")?,
        description: r.str("description")?,
        price_cents: r.i64("price_cents")?,
        currency: r.str("currency")?,
        rating,
        review_count: r.i32("review_count")?,
        in_stock,
        stock: r.i32("stock")?,
        status,
        tags,
        dimensions: Dimensions {
            width_mm: d.i32("width_mm")?,
            height_mm: d.i32("height_mm")?,
            depth_mm: d.i32("depth_mm")?,
            weight_g: d.i32("weight_g")?,
        },
        variants,
        discount_percent,
        created_at_ms: r.i64("created_at_ms")?,
        image_url: r.str("image_url")?,
    })
}
