//! Schema-walk helpers every schema-driven codec shares: the nesting limit,
//! what a record field the input lacks becomes, which union branch a datum
//! takes, and errors from [`crate::codec`]'s cursor and varint readers turned
//! into [`GenericError`]s at a JSON Pointer.
//!
//! Conventions (docs/DATA.md, "Conventions"):
//!
//! - a record field absent from the input takes the field's default; without
//!   one, a field whose type is a union with `null` is `null`; otherwise the
//!   field is missing ([`GenericErrorKind::MissingField`]);
//! - a datum that is not a [`Datum::Union`] written where the schema has a
//!   union takes the first branch that accepts it ([`branch_for`]).

use super::datum::{Datum, Fields};
use super::error::{GenericError, GenericErrorKind};
use super::schema::{Field, Node, NodeId, Record, Schema};
use crate::codec::{DecodeError, ErrorKind};

/// Deepest nesting of records, arrays, maps and unions in one datum, the same
/// for every format (the resolving reader's limit).
pub const MAX_DEPTH: usize = super::resolve::MAX_DATUM_DEPTH;

/// The index of the `null` branch of a union, if it has one.
pub fn null_branch(schema: &Schema, branches: &[NodeId]) -> Option<u32> {
    branches
        .iter()
        .position(|&b| matches!(schema.node(b), Node::Null))
        .map(|i| i as u32)
}

/// What a record field absent from the input reads as: its default, else
/// `null` for a union with a null branch, else `None` (missing).
pub fn absent_field(schema: &Schema, field: &Field) -> Option<Datum> {
    if let Some(d) = &field.default {
        return Some(d.clone());
    }
    match schema.node(field.ty) {
        Node::Union(branches) => null_branch(schema, branches).map(|i| Datum::Union(i, Box::new(Datum::Null))),
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
        let missing = |f: &Field| {
            GenericError::new(
                "",
                at,
                GenericErrorKind::MissingField {
                    field: f.key().to_string(),
                },
            )
        };
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

/// A decode error of [`crate::codec`]'s readers at `pointer`.
#[cold]
pub fn from_decode(pointer: &str, e: DecodeError) -> GenericError {
    let kind = match e.kind {
        ErrorKind::Eof { expected } => GenericErrorKind::Eof {
            expected: expected.to_string(),
        },
        ErrorKind::Unexpected { expected, found } => GenericErrorKind::Unexpected {
            expected: expected.to_string(),
            found,
        },
        ErrorKind::LengthExceedsInput { what, len, remaining } => GenericErrorKind::LengthExceedsInput {
            what: what.to_string(),
            len,
            remaining,
        },
        ErrorKind::InvalidUtf8 => GenericErrorKind::InvalidUtf8,
        ErrorKind::DepthLimit { limit } => GenericErrorKind::DepthLimit { limit },
        ErrorKind::OutOfRange { what, value } => GenericErrorKind::OutOfRange {
            what: what.to_string(),
            value,
        },
        ErrorKind::TrailingBytes { count } => GenericErrorKind::TrailingBytes { count },
        ErrorKind::MissingField { field } => GenericErrorKind::MissingField {
            field: field.to_string(),
        },
        ErrorKind::DuplicateField { field } => GenericErrorKind::DuplicateField {
            field: field.to_string(),
        },
        other => GenericErrorKind::Unexpected {
            expected: "valid input".to_string(),
            found: other.to_string(),
        },
    };
    GenericError::new(pointer, Some(e.offset), kind)
}

/// The error for a datum that does not fit `node` (encoding).
#[cold]
pub fn mismatch(schema: &Schema, node: NodeId, pointer: &str, datum: &Datum) -> GenericError {
    GenericError::unexpected(pointer, None, schema.describe(node), datum.kind())
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
}
