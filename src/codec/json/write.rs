//! The compact JSON writer: keys in field order (docs/SPEC.md, "Field order"), no whitespace, one `Vec`.
//!
//! Every key, with its quotes, colon and the comma before it, is a constant
//! byte string (`,"sku":`), so writing a record is a series of
//! `extend_from_slice` calls with values in between. Strings are copied in
//! runs: [`find_special`] skips eight unescaped bytes at a time and only the
//! bytes [`ESCAPE`] marks are written one by one. No allocation happens per
//! field; the output `Vec` grows (rarely) and that is all.

use super::number::{write_f64, write_i64};
use super::tables::{ESCAPE, HEX_DIGITS, UU, find_special};
use crate::codec::EncodeError;
use crate::model::{Product, Variant};

/// A rough per-product size (the canonical fixture averages a bit under
/// this), used once to reserve the output so it rarely has to grow.
const TYPICAL_PRODUCT_BYTES: usize = 640;

/// Appends `{"products":[…]}`; on error `out` is left as it was.
pub fn encode(products: &[Product], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    // JSON has no NaN or infinity: refuse before writing anything.
    if let Some(p) = products.iter().find(|p| !p.rating.is_finite()) {
        return Err(EncodeError::Unrepresentable {
            what: "rating",
            value: format!("{} (JSON numbers are finite)", p.rating),
        });
    }
    out.reserve(16 + products.len().saturating_mul(TYPICAL_PRODUCT_BYTES));
    out.extend_from_slice(b"{\"products\":[");
    for (i, p) in products.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_product(p, out);
    }
    out.extend_from_slice(b"]}");
    Ok(())
}

fn write_product(p: &Product, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"id\":");
    write_i64(p.id, out);
    out.extend_from_slice(b",\"sku\":");
    write_str(&p.sku, out);
    out.extend_from_slice(b",\"name\":");
    write_str(&p.name, out);
    out.extend_from_slice(b",\"description\":");
    write_str(&p.description, out);
    out.extend_from_slice(b",\"price_cents\":");
    write_i64(p.price_cents, out);
    out.extend_from_slice(b",\"currency\":");
    write_str(&p.currency, out);
    out.extend_from_slice(b",\"rating\":");
    write_f64(p.rating, out);
    out.extend_from_slice(b",\"review_count\":");
    write_i64(i64::from(p.review_count), out);
    out.extend_from_slice(if p.in_stock {
        b",\"in_stock\":true,\"stock\":"
    } else {
        b",\"in_stock\":false,\"stock\":"
    });
    write_i64(i64::from(p.stock), out);
    out.extend_from_slice(b",\"status\":\"");
    out.extend_from_slice(p.status.as_str().as_bytes()); // lowercase ASCII, nothing to escape
    out.extend_from_slice(b"\",\"tags\":[");
    for (i, t) in p.tags.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(t, out);
    }
    let d = &p.dimensions;
    out.extend_from_slice(b"],\"dimensions\":{\"width_mm\":");
    write_i64(i64::from(d.width_mm), out);
    out.extend_from_slice(b",\"height_mm\":");
    write_i64(i64::from(d.height_mm), out);
    out.extend_from_slice(b",\"depth_mm\":");
    write_i64(i64::from(d.depth_mm), out);
    out.extend_from_slice(b",\"weight_g\":");
    write_i64(i64::from(d.weight_g), out);
    out.extend_from_slice(b"},\"variants\":[");
    for (i, v) in p.variants.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_variant(v, out);
    }
    out.extend_from_slice(b"],\"discount_percent\":");
    match p.discount_percent {
        Some(d) => write_i64(i64::from(d), out),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"created_at_ms\":");
    write_i64(p.created_at_ms, out);
    out.extend_from_slice(b",\"image_url\":");
    write_str(&p.image_url, out);
    out.push(b'}');
}

fn write_variant(v: &Variant, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"sku\":");
    write_str(&v.sku, out);
    out.extend_from_slice(b",\"color\":");
    write_str(&v.color, out);
    out.extend_from_slice(b",\"size\":");
    write_str(&v.size, out);
    out.extend_from_slice(b",\"price_cents\":");
    write_i64(v.price_cents, out);
    out.extend_from_slice(b",\"stock\":");
    write_i64(i64::from(v.stock), out);
    out.push(b'}');
}

/// Appends `s` as a JSON string: runs of plain bytes copied whole, `"` `\`
/// and control characters escaped the way serde_json does (`\n`, `\u0007`).
#[inline]
pub fn write_str(s: &str, out: &mut Vec<u8>) {
    let s = s.as_bytes();
    out.push(b'"');
    let mut run = 0;
    loop {
        let i = find_special(s, run);
        let Some(&b) = s.get(i) else { break };
        out.extend_from_slice(&s[run..i]);
        let esc = ESCAPE[b as usize];
        if esc == UU {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX_DIGITS[(b >> 4) as usize],
                HEX_DIGITS[(b & 0xF) as usize],
            ]);
        } else {
            out.extend_from_slice(&[b'\\', esc]);
        }
        run = i + 1;
    }
    out.extend_from_slice(&s[run..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(s: &str, want: &str) {
        let mut out = Vec::new();
        write_str(s, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    #[test]
    fn strings_escape_exactly_rfc_8259_section_7() {
        check("", r#""""#);
        check("plain", r#""plain""#);
        check("a\"b\\c", r#""a\"b\\c""#);
        check("\n\r\t\u{8}\u{c}", r#""\n\r\t\b\f""#);
        check("\u{0}\u{7}\u{1f}", r#""\u0000\u0007\u001f""#);
        check("/\u{7f}é😀", "\"/\u{7f}é😀\"");
        check("0123456789abcdef\"", r#""0123456789abcdef\"""#);
    }

    #[test]
    fn non_finite_rating_is_refused_and_out_untouched() {
        let mut p = crate::fixtures::product(1);
        p.rating = f64::INFINITY;
        let mut out = b"keep".to_vec();
        let err = encode(&[p], &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "rating inf (JSON numbers are finite) cannot be represented"
        );
        assert_eq!(out, b"keep");
    }

    #[test]
    fn empty_catalog() {
        let mut out = Vec::new();
        encode(&[], &mut out).unwrap();
        assert_eq!(out, br#"{"products":[]}"#);
    }
}
