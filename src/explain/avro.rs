//! Avro annotator: the binary encoding of one `Catalog` datum, walked by
//! schema (schemas/catalog.avsc) rather than by our decoder.
//!
//! Avro writes no field names, no types and no field tags: the reader must
//! hold the writer's schema, and the schema's field order *is* the layout.
//! Integers are zigzag varints (-1 → `01`, 1 → `02`, 64 → `80 01`), strings a
//! varint length then UTF-8, doubles 8 bytes little-endian, arrays a sequence
//! of blocks (a count, that many items, … then a 0 count; a negative count is
//! followed by the block's size in bytes), a union an index of its branch.
//!
//! ```text
//! 02            block of 1 item (zigzag 1)
//! 54            id: long 42 (zigzag 84)
//! 14 53 4b …    sku: string length 10, then the bytes
//! ```

use super::span::{Category, ExplainError, Failed, Span, Walker, plural, preview};
use super::value::Value;

/// Walks one Catalog datum.
pub fn annotate(bytes: &[u8]) -> Result<(Vec<Span>, Value), Failed> {
    let mut w = Walker::new(bytes);
    let r = (|| {
        let products = array(&mut w, "products", product)?;
        Ok(Value::Record(vec![("products".into(), Value::List(products))]))
    })();
    w.finish(r)
}

/// Reads a zigzag varint without recording a span; returns (value, raw).
pub(super) fn zigzag(w: &mut Walker<'_>, what: &str) -> Result<(i64, u64), ExplainError> {
    let at = w.pos;
    let mut raw: u64 = 0;
    for i in 0..10 {
        let b = w.u8(what)?;
        if i == 9 && b > 1 {
            break;
        }
        raw |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Ok((((raw >> 1) as i64) ^ -((raw & 1) as i64), raw));
        }
    }
    Err(w.err(at, format!("{what}: varint longer than 64 bits")))
}

fn long(w: &mut Walker<'_>, name: &str) -> Result<Value, ExplainError> {
    let at = w.pos;
    let (v, raw) = zigzag(w, name)?;
    w.span(at, Category::Value, format!("{name}: long {v} (zigzag {raw})"));
    Ok(Value::Int(v))
}

fn int(w: &mut Walker<'_>, name: &str) -> Result<Value, ExplainError> {
    let at = w.pos;
    let (v, raw) = zigzag(w, name)?;
    if i32::try_from(v).is_err() {
        return Err(w.err(at, format!("{name}: {v} does not fit an Avro int")));
    }
    w.span(at, Category::Value, format!("{name}: int {v} (zigzag {raw})"));
    Ok(Value::Int(v))
}

fn string(w: &mut Walker<'_>, name: &str) -> Result<Value, ExplainError> {
    let at = w.pos;
    let (len, _) = zigzag(w, name)?;
    let n = usize::try_from(len).map_err(|_| w.err(at, format!("{name}: negative string length {len}")))?;
    w.span(at, Category::Structure, format!("{name}: string length {n}"));
    let body = w.pos;
    let raw = w.take(n, name)?;
    let s = std::str::from_utf8(raw).map_err(|e| w.err(body + e.valid_up_to(), "invalid UTF-8 in string"))?;
    let s = s.to_string();
    w.span(body, Category::Value, preview(&s));
    Ok(Value::Str(s))
}

/// Reads an array as blocks, calling `item` for each element.
fn array(
    w: &mut Walker<'_>,
    name: &str,
    item: fn(&mut Walker<'_>, usize) -> Result<Value, ExplainError>,
) -> Result<Vec<Value>, ExplainError> {
    let mut items = Vec::new();
    loop {
        let at = w.pos;
        let (count, _) = zigzag(w, name)?;
        if count == 0 {
            w.span(at, Category::Structure, format!("{name}: end of array (block count 0)"));
            return Ok(items);
        }
        let n = count.unsigned_abs();
        if count < 0 {
            let (size, _) = zigzag(w, name)?;
            w.span(
                at,
                Category::Structure,
                format!(
                    "{name}: block of {}, {size} bytes (negative count)",
                    plural(n, "item", "items")
                ),
            );
        } else {
            w.span(
                at,
                Category::Structure,
                format!("{name}: block of {}", plural(n, "item", "items")),
            );
        }
        // Each item takes at least one byte.
        if n > (w.bytes.len() - w.pos) as u64 {
            return Err(w.err(
                at,
                format!(
                    "{name}: block of {n} items cannot fit in the {} bytes left",
                    w.bytes.len() - w.pos
                ),
            ));
        }
        w.depth += 1;
        for _ in 0..n {
            items.push(item(w, items.len())?);
        }
        w.depth -= 1;
    }
}

fn product(w: &mut Walker<'_>, _index: usize) -> Result<Value, ExplainError> {
    let outer = w.begin_product();
    let mut f: Vec<(String, Value)> = Vec::with_capacity(17);
    let mut put = |w: &mut Walker<'_>,
                   name: &'static str,
                   read: &dyn Fn(&mut Walker<'_>, &str) -> Result<Value, ExplainError>| {
        w.field = name;
        let v = read(w, name)?;
        f.push((name.to_string(), v));
        Ok::<(), ExplainError>(())
    };
    // A record has no framing bytes of its own: it is just its fields in order.
    put(w, "id", &long)?;
    put(w, "sku", &string)?;
    put(w, "name", &string)?;
    put(w, "description", &string)?;
    put(w, "price_cents", &long)?;
    put(w, "currency", &string)?;
    put(w, "rating", &|w, name| {
        let at = w.pos;
        let v = f64::from_le_bytes(w.take(8, name)?.try_into().unwrap_or_default());
        w.span(
            at,
            Category::Value,
            format!("{name}: double {v:?} (8 bytes little-endian)"),
        );
        Ok(Value::Float(v))
    })?;
    put(w, "review_count", &int)?;
    put(w, "in_stock", &|w, name| {
        let at = w.pos;
        let b = w.u8(name)?;
        if b > 1 {
            return Err(w.err(at, format!("{name}: boolean byte must be 0 or 1, found {b}")));
        }
        w.span(at, Category::Value, format!("{name}: boolean {}", b == 1));
        Ok(Value::Bool(b == 1))
    })?;
    put(w, "stock", &int)?;
    put(w, "status", &|w, name| {
        let at = w.pos;
        let (i, _) = zigzag(w, name)?;
        let symbol = ["ACTIVE", "DRAFT", "DISCONTINUED"]
            .get(usize::try_from(i).unwrap_or(usize::MAX))
            .ok_or_else(|| w.err(at, format!("{name}: enum index {i} is not a Status symbol")))?;
        w.span(at, Category::Value, format!("{name}: enum index {i} = {symbol}"));
        Ok(Value::Enum(i))
    })?;
    put(w, "tags", &|w, _| {
        Ok(Value::List(array(w, "tags", |w, _| string(w, "tag"))?))
    })?;
    put(w, "dimensions", &|w, _| {
        let mut d = Vec::with_capacity(4);
        for name in ["width_mm", "height_mm", "depth_mm", "weight_g"] {
            d.push((name.to_string(), int(w, name)?));
        }
        Ok(Value::Record(d))
    })?;
    put(w, "variants", &|w, _| Ok(Value::List(array(w, "variants", variant)?)))?;
    put(w, "discount_percent", &|w, name| {
        let at = w.pos;
        let (branch, _) = zigzag(w, name)?;
        match branch {
            0 => {
                w.span(
                    at,
                    Category::Structure,
                    format!("{name}: union branch 0 = null (no value bytes)"),
                );
                Ok(Value::Null)
            }
            1 => {
                w.span(at, Category::Structure, format!("{name}: union branch 1 = int"));
                int(w, name)
            }
            other => Err(w.err(at, format!("{name}: union index {other} is not 0 (null) or 1 (int)"))),
        }
    })?;
    put(w, "created_at_ms", &long)?;
    put(w, "image_url", &string)?;
    w.end_product(outer);
    Ok(Value::Record(f))
}

fn variant(w: &mut Walker<'_>, _index: usize) -> Result<Value, ExplainError> {
    Ok(Value::Record(vec![
        ("sku".to_string(), string(w, "variant sku")?),
        ("color".to_string(), string(w, "color")?),
        ("size".to_string(), string(w, "size")?),
        ("price_cents".to_string(), long(w, "price_cents")?),
        ("stock".to_string(), int(w, "stock")?),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_catalog_is_one_zero_byte() {
        let (spans, v) = annotate(&[0x00]).unwrap();
        assert_eq!(spans[0].meaning, "products: end of array (block count 0)");
        assert_eq!(v.to_catalog().unwrap().products.len(), 0);
    }

    #[test]
    fn errors_point_at_the_first_bad_byte() {
        // One product whose id varint runs past the end.
        let e = annotate(&[0x02, 0x80]).unwrap_err();
        assert_eq!(e.error.to_string(), "id needs 1 bytes but only 0 remain at byte 2");
        let e = annotate(&[0x7e]).unwrap_err();
        assert_eq!(
            e.error.to_string(),
            "products: block of 63 items cannot fit in the 0 bytes left at byte 0"
        );
    }
}
