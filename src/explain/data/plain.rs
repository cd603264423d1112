//! Plain JSON as the data annotators write what they read: the spelling of
//! [`Datum::write_json`] (record fields under their schema names, unions
//! bare, enums as their symbol, bytes as code points 0–255, floats as their
//! shortest round-trip digits, NaN and infinities as strings), so the
//! annotators' reading and the schema-driven decoders' compare as text. The
//! scalars are spelled by `write_json` itself, through one-value datums; the
//! annotators build no tree of them.

use crate::generic::datum::Datum;

pub fn string(s: &str, out: &mut String) {
    Datum::String(s.to_string()).write_json(out);
}

pub fn bytes(b: &[u8], out: &mut String) {
    Datum::Bytes(b.to_vec()).write_json(out);
}

pub fn double(v: f64, out: &mut String) {
    Datum::Double(v).write_json(out);
}

pub fn float(v: f32, out: &mut String) {
    Datum::Float(v).write_json(out);
}
