//! A generic Avro datum (any schema's value) and its plain-JSON rendering.
//!
//! The JSON follows the Avro specification's "JSON Encoding" section for
//! `bytes` and `fixed` (a string whose code points 0–255 are the bytes) and
//! enums (the symbol), but prints a union's value bare instead of wrapping it
//! in `{"type": value}`: the output is for people and `jq`, not for an Avro
//! JSON decoder. Floats that JSON cannot express print as the strings
//! `"NaN"`, `"Infinity"` and `"-Infinity"`.

use crate::codec::json::write_f64;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// A record field's name or an enum's symbol: shared with the schema
/// ([`super::schema::Field::name`], [`super::schema::EnumType::symbols`]),
/// so a decoder clones a pointer per field instead of allocating a string.
/// `"name".into()` makes one.
pub type Name = Arc<str>;

/// A record's field names in order, shared: a schema record holds one
/// ([`super::schema::Record::names`]) and every [`Fields`] a decoder reads
/// for it clones that one pointer, so a record costs one reference-count
/// increment to build and one decrement to drop, not one per field.
pub type FieldNames = Arc<Vec<Name>>;

/// One value of some Avro schema. Records and maps keep their order.
///
/// An array has two forms that compare equal item by item:
/// [`Datum::Array`] (any items) and [`Datum::Scalars`] (items of one numeric
/// type, unboxed). The Avro decoder builds the second for arrays of `int`,
/// `long` and `double`; every encoder takes either. A union's value has two
/// forms too, equal when their values are: [`Datum::Union`] (the branch
/// named) and the bare value, whose branch the writers find by its shape
/// (the first that takes it, [`super::walk::branch_for`]); the Avro decoder
/// builds the bare value (no `Box`) wherever that finds the branch it read.
#[derive(Clone, Debug)]
pub enum Datum {
    Null,
    Boolean(bool),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Bytes(Vec<u8>),
    String(String),
    Fixed(Vec<u8>),
    /// Index into the schema's symbols, and the symbol.
    Enum(u32, Name),
    /// Branch index in the schema's union, and the branch's value (see
    /// the type's doc for the bare form).
    Union(u32, Box<Datum>),
    Array(Vec<Datum>),
    /// An array of `int`, `long` or `double` items, unboxed.
    Scalars(Scalars),
    Map(Vec<(String, Datum)>),
    /// Fields in the schema's order, named by the schema's own names.
    Record(Fields),
}

/// A record's fields: the names ([`FieldNames`], shared with the schema
/// when a decoder built them) and the values, one per name, in order.
/// Built from `(name, value)` pairs by `From`/`collect` for any names;
/// [`Fields::into_pairs`] gives the pairs back for editing.
#[derive(Clone, Debug)]
pub struct Fields {
    names: FieldNames,
    /// A boxed slice, not a `Vec`: three words with the names' pointer,
    /// so a [`Datum`] stays four.
    values: Box<[Datum]>,
}

impl Fields {
    /// The values of the fields `names`, in that order; `None` when the
    /// counts differ.
    #[inline]
    pub fn new(names: FieldNames, values: Vec<Datum>) -> Option<Fields> {
        // A decoder's vector holds exactly its fields: boxing it does not
        // reallocate.
        (names.len() == values.len()).then(|| Fields {
            names,
            values: values.into_boxed_slice(),
        })
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Field `i`'s name and value.
    pub fn get(&self, i: usize) -> Option<(&Name, &Datum)> {
        Some((self.names.get(i)?, self.values.get(i)?))
    }

    /// The `(name, value)` pairs in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Name, &Datum)> + Clone + '_ {
        self.names.iter().zip(self.values.iter())
    }

    pub fn names(&self) -> &FieldNames {
        &self.names
    }

    pub fn values(&self) -> &[Datum] {
        &self.values
    }

    /// The values, to change in place (the names stay).
    pub fn values_mut(&mut self) -> &mut [Datum] {
        &mut self.values
    }

    /// The value of the field `name`, to change in place.
    pub fn value_mut(&mut self, name: &str) -> Option<&mut Datum> {
        let i = self.names.iter().position(|n| &**n == name)?;
        self.values.get_mut(i)
    }

    /// The `(name, value)` pairs, each name a pointer clone.
    pub fn into_pairs(self) -> Vec<(Name, Datum)> {
        self.names.iter().cloned().zip(self.values.into_vec()).collect()
    }
}

impl From<Vec<(Name, Datum)>> for Fields {
    fn from(pairs: Vec<(Name, Datum)>) -> Fields {
        pairs.into_iter().collect()
    }
}

impl FromIterator<(Name, Datum)> for Fields {
    fn from_iter<I: IntoIterator<Item = (Name, Datum)>>(pairs: I) -> Fields {
        let (names, values): (Vec<Name>, Vec<Datum>) = pairs.into_iter().unzip();
        Fields {
            names: Arc::new(names),
            values: values.into_boxed_slice(),
        }
    }
}

impl IntoIterator for Fields {
    type Item = (Name, Datum);
    type IntoIter = std::vec::IntoIter<(Name, Datum)>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_pairs().into_iter()
    }
}

impl<'a> IntoIterator for &'a Fields {
    type Item = (&'a Name, &'a Datum);
    type IntoIter = std::iter::Zip<std::slice::Iter<'a, Name>, std::slice::Iter<'a, Datum>>;

    fn into_iter(self) -> Self::IntoIter {
        self.names.iter().zip(self.values.iter())
    }
}

impl PartialEq for Fields {
    fn eq(&self, other: &Fields) -> bool {
        (Arc::ptr_eq(&self.names, &other.names) || self.names == other.names) && self.values == other.values
    }
}

/// The items of an array of one numeric type, in an unboxed vector: a
/// decoder fills it without a [`Datum`] per item and it drops without a
/// call per item.
#[derive(Clone, Debug)]
pub enum Scalars {
    Int(Vec<i32>),
    Long(Vec<i64>),
    Double(Vec<f64>),
}

impl Scalars {
    pub fn len(&self) -> usize {
        match self {
            Scalars::Int(v) => v.len(),
            Scalars::Long(v) => v.len(),
            Scalars::Double(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Item `i` as a [`Datum`].
    pub fn get(&self, i: usize) -> Option<Datum> {
        match self {
            Scalars::Int(v) => v.get(i).map(|&x| Datum::Int(x)),
            Scalars::Long(v) => v.get(i).map(|&x| Datum::Long(x)),
            Scalars::Double(v) => v.get(i).map(|&x| Datum::Double(x)),
        }
    }

    /// The items as [`Datum`]s, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Datum> + '_ {
        (0..self.len()).map(|i| self.get(i).expect("index below len"))
    }

    /// The items as a [`Datum::Array`]'s vector.
    pub fn to_datums(&self) -> Vec<Datum> {
        self.iter().collect()
    }
}

impl PartialEq for Datum {
    fn eq(&self, other: &Datum) -> bool {
        use Datum::*;
        match (self, other) {
            (Null, Null) => true,
            (Boolean(a), Boolean(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Long(a), Long(b)) => a == b,
            (Float(a), Float(b)) => a == b,
            (Double(a), Double(b)) => a == b,
            (Bytes(a), Bytes(b)) | (Fixed(a), Fixed(b)) => a == b,
            (String(a), String(b)) => a == b,
            (Enum(i, a), Enum(j, b)) => i == j && a == b,
            (Union(i, a), Union(j, b)) => i == j && a == b,
            (Union(_, a), b) | (b, Union(_, a)) => **a == *b,
            (Array(a), Array(b)) => a == b,
            (Scalars(a), Scalars(b)) => a.len() == b.len() && a.iter().eq(b.iter()),
            (Array(a), Scalars(b)) | (Scalars(b), Array(a)) => a.len() == b.len() && a.iter().cloned().eq(b.iter()),
            (Map(a), Map(b)) => a == b,
            (Record(a), Record(b)) => a == b,
            _ => false,
        }
    }
}

impl Datum {
    /// A record of these `(name, value)` pairs.
    pub fn record(pairs: Vec<(Name, Datum)>) -> Datum {
        Datum::Record(Fields::from(pairs))
    }

    /// An array's items: borrowed from a [`Datum::Array`], built from a
    /// [`Datum::Scalars`]; `None` for any other variant.
    pub fn array_items(&self) -> Option<Cow<'_, [Datum]>> {
        match self {
            Datum::Array(items) => Some(Cow::Borrowed(items)),
            Datum::Scalars(items) => Some(Cow::Owned(items.to_datums())),
            _ => None,
        }
    }

    /// The field `name` of a record.
    pub fn field(&self, name: &str) -> Option<&Datum> {
        match self {
            Datum::Record(fields) => fields.iter().find(|(n, _)| &***n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The variant's name, for "found" in errors.
    pub fn kind(&self) -> &'static str {
        match self {
            Datum::Null => "null",
            Datum::Boolean(_) => "boolean",
            Datum::Int(_) => "int",
            Datum::Long(_) => "long",
            Datum::Float(_) => "float",
            Datum::Double(_) => "double",
            Datum::Bytes(_) => "bytes",
            Datum::String(_) => "string",
            Datum::Fixed(_) => "fixed",
            Datum::Enum(..) => "enum",
            Datum::Union(..) => "union",
            Datum::Array(_) | Datum::Scalars(_) => "array",
            Datum::Map(_) => "map",
            Datum::Record(_) => "record",
        }
    }

    /// The value with every union wrapper removed (a union's value is bare).
    pub fn unwrapped(&self) -> &Datum {
        let mut d = self;
        while let Datum::Union(_, inner) = d {
            d = inner;
        }
        d
    }

    /// Appends the plain JSON of this datum to `out` (see the module doc).
    pub fn write_json(&self, out: &mut String) {
        match self {
            Datum::Null => out.push_str("null"),
            Datum::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
            Datum::Int(i) => out.push_str(&i.to_string()),
            Datum::Long(i) => out.push_str(&i.to_string()),
            Datum::Float(f) => float_json(f64::from(*f), Some(*f), out),
            Datum::Double(f) => float_json(*f, None, out),
            Datum::Bytes(b) | Datum::Fixed(b) => {
                let s: String = b.iter().map(|&byte| char::from(byte)).collect();
                string_json(&s, out);
            }
            Datum::String(s) => string_json(s, out),
            Datum::Enum(_, s) => string_json(s, out),
            Datum::Union(_, v) => v.write_json(out),
            Datum::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out);
                }
                out.push(']');
            }
            Datum::Scalars(items) => Datum::Array(items.to_datums()).write_json(out),
            Datum::Map(entries) => object_json(entries.iter().map(|(k, v)| (&**k, v)), out),
            Datum::Record(fields) => object_json(fields.iter().map(|(k, v)| (&**k, v)), out),
        }
    }

    /// The plain JSON as a fresh string.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }
}

impl fmt::Display for Datum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

fn float_json(v: f64, single: Option<f32>, out: &mut String) {
    if v.is_nan() {
        out.push_str("\"NaN\"");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "\"Infinity\"" } else { "\"-Infinity\"" });
    } else if let Some(f) = single {
        // The shortest digits that read back to the same f32.
        let s = f.to_string();
        out.push_str(&s);
        if !s.contains(['.', 'e']) {
            out.push_str(".0");
        }
    } else {
        let mut buf = Vec::new();
        write_f64(&mut buf, v);
        out.push_str(&String::from_utf8_lossy(&buf));
    }
}

fn object_json<'a>(entries: impl Iterator<Item = (&'a str, &'a Datum)>, out: &mut String) {
    out.push('{');
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            out.push(',');
        }
        string_json(k, out);
        out.push(':');
        v.write_json(out);
    }
    out.push('}');
}

fn string_json(s: &str, out: &mut String) {
    let mut buf = Vec::with_capacity(s.len() + 2);
    crate::codec::json::write_str(&mut buf, s);
    out.push_str(&String::from_utf8_lossy(&buf));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_plain() {
        let d = Datum::record(vec![
            ("u".into(), Datum::Union(1, Box::new(Datum::Long(-3)))),
            ("b".into(), Datum::Bytes(vec![0, 0x41, 0xff])),
            ("e".into(), Datum::Enum(2, "C".into())),
            ("f".into(), Datum::Float(0.1)),
            ("d".into(), Datum::Double(1e20)),
            ("n".into(), Datum::Double(f64::NAN)),
            (
                "m".into(),
                Datum::Map(vec![("k\"".into(), Datum::Array(vec![Datum::Null]))]),
            ),
        ]);
        assert_eq!(
            d.to_json(),
            r#"{"u":-3,"b":"\u0000Aÿ","e":"C","f":0.1,"d":1e+20,"n":"NaN","m":{"k\"":[null]}}"#
        );
    }

    #[test]
    fn fields_share_names_and_compare_by_name_and_value() {
        let names: FieldNames = Arc::new(vec!["a".into(), "b".into()]);
        let shared = Fields::new(names.clone(), vec![Datum::Int(1), Datum::Null]).unwrap();
        let again = Fields::new(names.clone(), vec![Datum::Int(1), Datum::Null]).unwrap();
        assert!(Arc::ptr_eq(shared.names(), again.names()));
        // Names built from pairs compare equal to shared ones with the same text.
        let pairs = Fields::from(vec![("a".into(), Datum::Int(1)), ("b".into(), Datum::Null)]);
        assert_eq!(shared, pairs);
        assert_eq!(shared.get(1), Some((&names[1], &Datum::Null)));
        assert_eq!(shared.iter().len(), 2);
        assert_eq!(shared.clone().into_pairs(), pairs.clone().into_pairs());
        // The comparison can fail: another value, another name, another count.
        assert_ne!(
            shared,
            Fields::new(names.clone(), vec![Datum::Int(2), Datum::Null]).unwrap()
        );
        assert_ne!(
            shared,
            Fields::from(vec![("a".into(), Datum::Int(1)), ("c".into(), Datum::Null)])
        );
        assert_ne!(shared, Fields::from(vec![("a".into(), Datum::Int(1))]));
        // A value per name, or no record.
        assert!(Fields::new(names.clone(), vec![Datum::Int(1)]).is_none());
        let mut edited = shared.clone();
        *edited.value_mut("b").unwrap() = Datum::Long(3);
        assert_eq!(Datum::Record(edited).field("b"), Some(&Datum::Long(3)));
        assert!(shared.clone().value_mut("z").is_none());
        // The shape keeps a datum at four words.
        assert_eq!(std::mem::size_of::<Datum>(), 32);
    }

    #[test]
    fn both_array_forms_compare_item_by_item() {
        let boxed = Datum::Array(vec![Datum::Long(1), Datum::Long(-2)]);
        let unboxed = Datum::Scalars(Scalars::Long(vec![1, -2]));
        assert_eq!(boxed, unboxed);
        assert_eq!(unboxed, boxed);
        assert_eq!(unboxed.to_json(), boxed.to_json());
        assert_eq!(
            unboxed.array_items().unwrap().as_ref(),
            boxed.array_items().unwrap().as_ref()
        );
        // The comparison can fail: another value, another length, another type.
        assert_ne!(Datum::Scalars(Scalars::Long(vec![1, -3])), boxed);
        assert_ne!(Datum::Scalars(Scalars::Long(vec![1])), boxed);
        assert_ne!(Datum::Scalars(Scalars::Int(vec![1, -2])), boxed);
        assert_ne!(
            Datum::Scalars(Scalars::Double(vec![f64::NAN])),
            Datum::Scalars(Scalars::Double(vec![f64::NAN]))
        );
        assert_eq!(Datum::Scalars(Scalars::Int(vec![])), Datum::Array(vec![]));
        assert_eq!(Datum::Null.array_items(), None);
        // A union's value equals its bare value, and only that.
        let u = Datum::Union(1, Box::new(Datum::Long(3)));
        assert_eq!(u, Datum::Long(3));
        assert_eq!(Datum::Long(3), u);
        assert_ne!(u, Datum::Long(4));
        assert_ne!(u, Datum::Int(3));
        assert_ne!(u, Datum::Union(2, Box::new(Datum::Long(3))));
    }
}
