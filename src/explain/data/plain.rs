//! Plain JSON as the data annotators write what they read: the spelling of
//! [`crate::generic::datum::Datum::write_json`] (record fields under their
//! schema names, unions bare, enums as their symbol, bytes as code points
//! 0–255, floats as their shortest round-trip digits, NaN and infinities as
//! strings), so the annotators' reading and the schema-driven decoders'
//! compare as text without the annotators building a datum.

use crate::codec::json::{write_f64, write_str};

pub fn string(s: &str, out: &mut String) {
    let mut buf = Vec::with_capacity(s.len() + 2);
    write_str(s, &mut buf);
    out.push_str(&String::from_utf8_lossy(&buf));
}

pub fn bytes(b: &[u8], out: &mut String) {
    let s: String = b.iter().map(|&byte| char::from(byte)).collect();
    string(&s, out);
}

fn special(v: f64, out: &mut String) -> bool {
    if v.is_nan() {
        out.push_str("\"NaN\"");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "\"Infinity\"" } else { "\"-Infinity\"" });
    } else {
        return false;
    }
    true
}

pub fn double(v: f64, out: &mut String) {
    if !special(v, out) {
        let mut buf = Vec::new();
        write_f64(v, &mut buf);
        out.push_str(&String::from_utf8_lossy(&buf));
    }
}

pub fn float(v: f32, out: &mut String) {
    if !special(f64::from(v), out) {
        let s = v.to_string();
        out.push_str(&s);
        if !s.contains(['.', 'e']) {
            out.push_str(".0");
        }
    }
}
