//! Reading fields out of a catalog [`Datum`] by name, for the writers that
//! build v2 payloads from it. A missing or mistyped field reads as the
//! type's zero value: the data is ours, and the classifier compares what
//! was meant with what was read, so a slip shows up there.

use crate::generic::datum::Datum;

/// A record datum, read by field name.
#[derive(Clone, Copy)]
pub struct Fields<'a>(pub &'a Datum);

impl<'a> Fields<'a> {
    fn get(&self, name: &str) -> Option<&'a Datum> {
        self.0.field(name).map(Datum::unwrapped)
    }

    pub fn long(&self, name: &str) -> i64 {
        match self.get(name) {
            Some(Datum::Long(v)) => *v,
            Some(Datum::Int(v)) => i64::from(*v),
            _ => 0,
        }
    }

    /// An `int` field; a `long` is cut to 32 bits as a C cast would.
    pub fn int(&self, name: &str) -> i32 {
        self.long(name) as i32
    }

    /// `None` for a null (or absent) field.
    pub fn opt_int(&self, name: &str) -> Option<i32> {
        match self.get(name) {
            Some(Datum::Int(v)) => Some(*v),
            Some(Datum::Long(v)) => Some(*v as i32),
            _ => None,
        }
    }

    pub fn double(&self, name: &str) -> f64 {
        match self.get(name) {
            Some(Datum::Double(v)) => *v,
            Some(Datum::Float(v)) => f64::from(*v),
            _ => 0.0,
        }
    }

    pub fn boolean(&self, name: &str) -> bool {
        matches!(self.get(name), Some(Datum::Boolean(true)))
    }

    pub fn string(&self, name: &str) -> String {
        match self.get(name) {
            Some(Datum::String(s)) => s.clone(),
            _ => String::new(),
        }
    }

    /// An enum's symbol index.
    pub fn symbol_index(&self, name: &str) -> u32 {
        match self.get(name) {
            Some(Datum::Enum(i, _)) => *i,
            _ => 0,
        }
    }

    pub fn strings(&self, name: &str) -> Vec<String> {
        match self.get(name) {
            Some(Datum::Array(items)) => items
                .iter()
                .filter_map(|d| match d {
                    Datum::String(s) => Some(s.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    pub fn record(&self, name: &str) -> Fields<'a> {
        static NULL: Datum = Datum::Null;
        Fields(self.get(name).unwrap_or(&NULL))
    }

    pub fn records(&self, name: &str) -> Vec<Fields<'a>> {
        match self.get(name) {
            Some(Datum::Array(items)) => items.iter().map(Fields).collect(),
            _ => Vec::new(),
        }
    }
}

/// `Datum::Record` from `(name, value)` pairs.
pub fn record(fields: Vec<(&str, Datum)>) -> Datum {
    Datum::Record(fields.into_iter().map(|(n, d)| (n.into(), d)).collect())
}

/// An enum datum from a generated enum's name, with protobuf's `STATUS_`
/// prefix removed (`STATUS_DRAFT` → `DRAFT`).
pub fn symbol(index: u32, name: &str) -> Datum {
    Datum::Enum(index, name.strip_prefix("STATUS_").unwrap_or(name).into())
}

/// An optional int field's datum: `null` when absent.
pub fn opt(v: Option<i32>) -> Datum {
    v.map_or(Datum::Null, Datum::Int)
}

/// `Catalog { products }` as a datum.
pub fn catalog(products: Vec<Datum>) -> Datum {
    record(vec![("products", Datum::Array(products))])
}

/// The product records of a catalog datum.
pub fn products(catalog: &Datum) -> Vec<Fields<'_>> {
    Fields(catalog).records("products")
}
