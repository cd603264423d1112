//! The value tree the walkers that read without a schema build: JSON and
//! MessagePack (maps keyed by the names found in the payload).
//! [`super::typed::read`] reads the tree by the Avro schema into plain JSON,
//! the annotators' common answer.

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
    List(Vec<Value>),
    /// Named fields in the order they were read.
    Record(Vec<(String, Value)>),
}
