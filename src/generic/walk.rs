//! Schema-walk helpers every schema-driven codec shares: the nesting limit,
//! what a record field the input lacks becomes ([`absent_field`]), the zero
//! value of a node that a binary format did not write ([`zero`]), which
//! union branch a datum takes, a datum record's field by name, an enum
//! datum's symbol, and the duplicate-key check of a decoded map.
//!
//! Conventions (docs/DATA.md, "Conventions"):
//!
//! - a record field absent from the input takes the field's default; without
//!   one, a field whose type is a union with `null` is `null`; otherwise the
//!   field is missing ([`super::error::GenericErrorKind::MissingField`]);
//! - a datum that is not a [`Datum::Union`] written where the schema has a
//!   union takes the first branch that accepts it ([`branch_for`]).

use super::datum::{Datum, Fields, Name};
use super::error::{GenericError, bad_symbol, mismatch};
use super::schema::{EnumType, Field, Node, NodeId, Record, Schema};
use std::borrow::Cow;

/// Deepest nesting of records, arrays, maps and unions in one datum, the same
/// for every format (the resolving reader's limit).
pub const MAX_DEPTH: usize = super::resolve::MAX_DATUM_DEPTH;

/// What a record field absent from the input reads as: its default, else
/// `null` for a union with a null branch, else `None` (missing).
pub fn absent_field(schema: &Schema, field: &Field) -> Option<Datum> {
    if let Some(d) = &field.default {
        return Some(d.clone());
    }
    match schema.node(field.ty) {
        Node::Union(_) => schema
            .null_branch(field.ty)
            .map(|i| Datum::Union(i, Box::new(Datum::Null))),
        Node::Null => Some(Datum::Null),
        _ => None,
    }
}

/// A record's fields collected as a decoder reads them: pushed straight into
/// schema order while the input follows it (the common case, no extra
/// allocation), into slots once it does not. [`RecordFields::finish`] fills
/// absent fields by [`absent_field`].
pub struct RecordFields<'s> {
    schema: &'s Schema,
    record: &'s Record,
    out: Vec<Datum>,
    slots: Option<Vec<Option<Datum>>>,
}

impl<'s> RecordFields<'s> {
    pub fn new(schema: &'s Schema, record: &'s Record) -> RecordFields<'s> {
        RecordFields {
            schema,
            record,
            out: Vec::with_capacity(record.fields.len()),
            slots: None,
        }
    }

    /// Whether field `index` was already read (a repeated key).
    pub fn has(&self, index: usize) -> bool {
        match &self.slots {
            None => index < self.out.len(),
            Some(slots) => slots[index].is_some(),
        }
    }

    /// The field after the last one read, where an in-order input goes next.
    pub fn next_index(&self) -> usize {
        if self.slots.is_none() {
            self.out.len()
        } else {
            usize::MAX
        }
    }

    /// Stores field `index` (not yet read: check [`RecordFields::has`]).
    pub fn put(&mut self, index: usize, v: Datum) {
        if self.slots.is_none() && index == self.out.len() {
            self.out.push(v);
            return;
        }
        let slots = self.slots.get_or_insert_with(|| {
            let mut slots: Vec<Option<Datum>> = vec![None; self.record.fields.len()];
            for (i, v) in self.out.drain(..).enumerate() {
                slots[i] = Some(v);
            }
            slots
        });
        slots[index] = Some(v);
    }

    /// The record of `values`, one per field in schema order, named by the
    /// schema's shared names.
    fn fields(record: &Record, values: Vec<Datum>) -> Fields {
        Fields::new(record.names.clone(), values).expect("a value per field")
    }

    /// The fields in schema order; an absent field without a default or a
    /// null branch is missing (offset `at`, the record's start).
    pub fn finish(mut self, at: Option<usize>) -> Result<Fields, GenericError> {
        let fields = &self.record.fields;
        let missing = |f: &Field| GenericError::missing_field(f.key(), at);
        match self.slots.take() {
            None => {
                for f in &fields[self.out.len()..] {
                    let v = absent_field(self.schema, f).ok_or_else(|| missing(f))?;
                    self.out.push(v);
                }
                Ok(Self::fields(self.record, self.out))
            }
            Some(slots) => {
                let mut out = Vec::with_capacity(fields.len());
                for (f, slot) in fields.iter().zip(slots) {
                    let v = match slot {
                        Some(v) => v,
                        None => absent_field(self.schema, f).ok_or_else(|| missing(f))?,
                    };
                    out.push(v);
                }
                Ok(Self::fields(self.record, out))
            }
        }
    }
}

/// Whether `datum` has the shape of `node` at its top level (records, arrays
/// and maps are not looked into).
pub fn accepts(schema: &Schema, node: NodeId, datum: &Datum) -> bool {
    match (schema.node(node), datum) {
        (Node::Null, Datum::Null)
        | (Node::Boolean, Datum::Boolean(_))
        | (Node::Int, Datum::Int(_))
        | (Node::Long, Datum::Long(_))
        | (Node::Float, Datum::Float(_))
        | (Node::Double, Datum::Double(_))
        | (Node::Bytes, Datum::Bytes(_))
        | (Node::String, Datum::String(_))
        | (Node::Array(_), Datum::Array(_) | Datum::Scalars(_))
        | (Node::Map(_), Datum::Map(_))
        | (Node::Record(_), Datum::Record(_)) => true,
        (Node::Fixed(f), Datum::Fixed(b)) => b.len() == f.size,
        (Node::Enum(e), Datum::Enum(i, _)) => (*i as usize) < e.symbols.len(),
        (Node::Union(branches), Datum::Union(i, _)) => (*i as usize) < branches.len(),
        _ => false,
    }
}

/// The union branch `datum` is written with: the one it names when it is a
/// [`Datum::Union`] (checked), else the first that [`accepts`] it.
pub fn branch_for<'d>(schema: &Schema, branches: &[NodeId], datum: &'d Datum) -> Option<(u32, &'d Datum)> {
    match datum {
        Datum::Union(i, inner) => {
            let b = *branches.get(*i as usize)?;
            accepts(schema, b, inner).then_some((*i, &**inner))
        }
        d => branches
            .iter()
            .position(|&b| accepts(schema, b, d))
            .map(|i| (i as u32, d)),
    }
}

/// The symbol `v` names: exactly, else the one symbol equal ignoring ASCII case.
pub fn enum_index(symbols: &[Name], v: &str) -> Option<u32> {
    if let Some(i) = symbols.iter().position(|s| &**s == v) {
        return Some(i as u32);
    }
    let mut hits = symbols.iter().enumerate().filter(|(_, s)| s.eq_ignore_ascii_case(v));
    match (hits.next(), hits.next()) {
        (Some((i, _)), None) => Some(i as u32),
        _ => None,
    }
}

/// Refuses a map whose keys repeat (keys already ascending pass in one scan;
/// others are sorted in a copy: no quadratic pass for a hostile object of
/// many keys).
pub fn check_unique_keys(entries: &[(String, Datum)], at: usize) -> Result<(), GenericError> {
    if entries.len() < 2 {
        return Ok(());
    }
    if entries.len() <= 8 {
        for (i, (k, _)) in entries.iter().enumerate() {
            if entries[..i].iter().any(|(j, _)| j == k) {
                return Err(GenericError::duplicate(k.as_str(), at));
            }
        }
        return Ok(());
    }
    // Keys in ascending order (ids, a sorted writer) are unique as they are.
    if entries.windows(2).all(|w| w[0].0 < w[1].0) {
        return Ok(());
    }
    let mut keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    match keys.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(GenericError::duplicate(w[0], at)),
        None => Ok(()),
    }
}

/// Finds the datum field `name` of a record: at `hint` when the datum is in
/// schema order (the common case), else by search.
pub fn record_field<'d>(fields: &'d Fields, hint: usize, name: &Name) -> Option<&'d Datum> {
    match fields.get(hint) {
        // The schema's own name (a decoded datum) first, then any equal one.
        Some((n, v)) if Name::ptr_eq(n, name) || n == name => Some(v),
        _ => fields.iter().find(|(n, _)| *n == name).map(|(_, v)| v),
    }
}

/// The index in `e` of an enum datum `(i, symbol)`: the symbol decides. The
/// datum's index is taken when it names that symbol in `e` (a datum of this
/// schema, spelled as the reader allows: ignoring ASCII case); otherwise the
/// symbol is looked up ([`enum_index`]), so a datum of another version of the
/// schema (the evolution lab writes v1 data with a v2 schema) is written by
/// symbol. A symbol `e` lacks is an error.
pub fn enum_symbol_index(e: &EnumType, i: u32, symbol: &str) -> Result<u32, GenericError> {
    let own = |names: &[Name]| {
        names
            .get(i as usize)
            .is_some_and(|s| std::ptr::eq(s.as_ptr(), symbol.as_ptr()) && s.len() == symbol.len())
    };
    match e.symbols.get(i as usize) {
        // The schema's own names (a decoded datum) first: no comparison.
        Some(_) if own(&e.symbols) || own(&e.lowercase) => Ok(i),
        Some(s) if s.eq_ignore_ascii_case(symbol) => Ok(i),
        _ => enum_index(&e.symbols, symbol).ok_or_else(|| bad_symbol(e, i, symbol)),
    }
}

/// The value of record field `f`, the `i`th of its record, in `fields`
/// ([`record_field`]); a field the datum lacks takes [`absent_field`].
pub fn field_value<'d>(
    schema: &Schema,
    fields: &'d Fields,
    i: usize,
    f: &Field,
) -> Result<Cow<'d, Datum>, GenericError> {
    match record_field(fields, i, &f.name) {
        Some(v) => Ok(Cow::Borrowed(v)),
        None => absent_field(schema, f)
            .map(Cow::Owned)
            .ok_or_else(|| GenericError::missing_field(&*f.name, None)),
    }
}

/// The branch a datum takes in a union ([`branch_for`]: the one a
/// [`Datum::Union`] names, else the first that accepts a bare datum).
pub fn branch<'d>(
    schema: &Schema,
    ty: NodeId,
    branches: &[NodeId],
    d: &'d Datum,
) -> Result<(u32, &'d Datum), GenericError> {
    branch_for(schema, branches, d).ok_or_else(|| match d {
        Datum::Union(b, v) => match branches.get(*b as usize) {
            Some(&bt) => mismatch(schema, bt, v),
            None => GenericError::unexpected(
                "",
                None,
                format!("a branch index below {}", branches.len()),
                b.to_string(),
            ),
        },
        _ => mismatch(schema, ty, d),
    })
}

/// The datum of a value of type `ty` that a format did not write (Protobuf's
/// and FlatBuffers' absent fields): false, 0, empty, the first symbol, the
/// record of zero fields, null for a union with a null branch. A `fixed` of
/// nonzero size and a union without null have none (an error), nor has a
/// record nested `limit` deep (a schema whose records contain themselves).
pub fn zero(schema: &Schema, ty: NodeId, depth: usize, limit: usize) -> Result<Datum, GenericError> {
    if depth >= limit {
        return Err(GenericError::depth_limit(limit, None));
    }
    Ok(match schema.node(ty) {
        Node::Fixed(f) if f.size == 0 => Datum::Fixed(Vec::new()),
        Node::Fixed(f) => {
            return Err(GenericError::unexpected(
                "",
                None,
                format!("{} bytes of {}", f.size, schema.describe(ty)),
                "no field",
            ));
        }
        Node::Record(r) => {
            let mut out = Vec::with_capacity(r.fields.len());
            for f in &r.fields {
                out.push(zero(schema, f.ty, depth + 1, limit).map_err(|e| super::error::nest(e, &f.name))?);
            }
            Datum::Record(Fields::new(r.names.clone(), out).expect("a value per field"))
        }
        Node::Union(_) => match schema.null_branch(ty) {
            Some(n) => Datum::Union(n, Box::new(Datum::Null)),
            None => return Err(GenericError::no_member(schema, ty)),
        },
        leaf => zero_leaf(leaf).unwrap_or(Datum::Null),
    })
}

/// The zero of a node every reader agrees on: null, false, 0, empty, the
/// first symbol; `None` for a `fixed`, a union and a record, whose zero is
/// the caller's rule ([`zero`]'s, or the lenient shape reader's in
/// `crate::evolve::shape`).
pub fn zero_leaf(node: &Node) -> Option<Datum> {
    Some(match node {
        Node::Null => Datum::Null,
        Node::Boolean => Datum::Boolean(false),
        Node::Int => Datum::Int(0),
        Node::Long => Datum::Long(0),
        Node::Float => Datum::Float(0.0),
        Node::Double => Datum::Double(0.0),
        Node::String => Datum::String(String::new()),
        Node::Bytes => Datum::Bytes(Vec::new()),
        Node::Enum(e) => Datum::Enum(0, e.symbols.first().cloned().unwrap_or_default()),
        Node::Array(_) => Datum::Array(Vec::new()),
        Node::Map(_) => Datum::Map(Vec::new()),
        Node::Fixed(_) | Node::Union(_) | Node::Record(_) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_fields_take_default_then_null_then_missing() {
        let s = Schema::parse(
            br#"{"type":"record","name":"R","fields":[
                {"name":"a","type":"int","default":7},
                {"name":"b","type":["int","null"]},
                {"name":"c","type":"int"}]}"#,
        )
        .unwrap();
        let Node::Record(r) = s.node(s.root()) else { panic!() };
        assert_eq!(absent_field(&s, &r.fields[0]), Some(Datum::Int(7)));
        assert_eq!(
            absent_field(&s, &r.fields[1]),
            Some(Datum::Union(1, Box::new(Datum::Null)))
        );
        assert_eq!(absent_field(&s, &r.fields[2]), None);
    }

    #[test]
    fn bare_datums_take_the_first_accepting_branch() {
        let s = Schema::parse(br#"["null","long","string"]"#).unwrap();
        let Node::Union(b) = s.node(s.root()) else { panic!() };
        assert_eq!(branch_for(&s, b, &Datum::Long(1)).map(|x| x.0), Some(1));
        assert_eq!(branch_for(&s, b, &Datum::Null).map(|x| x.0), Some(0));
        assert_eq!(branch_for(&s, b, &Datum::Int(1)), None);
        let wrong = Datum::Union(0, Box::new(Datum::Long(1)));
        assert_eq!(branch_for(&s, b, &wrong), None);
    }

    #[test]
    fn enums_match_case_only_when_unambiguous() {
        let syms: Vec<Name> = ["A", "a", "B"].iter().map(|&s| s.into()).collect();
        assert_eq!(enum_index(&syms, "a"), Some(1));
        assert_eq!(enum_index(&syms, "b"), Some(2));
        let syms2: Vec<Name> = ["AB", "Ab"].iter().map(|&s| s.into()).collect();
        assert_eq!(enum_index(&syms2, "ab"), None);
    }

    #[test]
    fn repeated_map_keys_are_refused_in_any_order() {
        let map =
            |keys: &[&str]| -> Vec<(String, Datum)> { keys.iter().map(|k| (k.to_string(), Datum::Null)).collect() };
        let ten: Vec<String> = (0..10).map(|i| format!("k{i}")).collect();
        let mut keys: Vec<&str> = ten.iter().map(|s| s.as_str()).collect();
        // Ascending: the one-scan path.
        assert!(check_unique_keys(&map(&keys), 0).is_ok());
        // A repeat next to its twin, ascending otherwise: not strictly ascending.
        keys[5] = "k4";
        let e = check_unique_keys(&map(&keys), 3).unwrap_err();
        assert_eq!(e.to_string(), "(root): duplicate field `k4` at byte 3");
        // Unordered, unique and repeated.
        let mut shuffled: Vec<&str> = ten.iter().rev().map(|s| s.as_str()).collect();
        assert!(check_unique_keys(&map(&shuffled), 0).is_ok());
        shuffled[0] = "k0";
        assert!(check_unique_keys(&map(&shuffled), 0).is_err());
    }
}
