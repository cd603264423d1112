//! Verifying a FlatBuffer and converting it into validated domain types.
//!
//! FlatBuffers has no parse step: the generated accessors read fields in
//! place by following offsets. On untrusted bytes that is only sound after the
//! crate's verifier has walked the whole buffer once: every offset in bounds,
//! every scalar aligned, every string UTF-8 and NUL-terminated, every
//! `(required)` field present. [`verified_root`] runs it with limits derived
//! from the buffer's size (see [`verifier_options`]); after that, [`checked`]
//! copies every field into our [`Catalog`] and validates it. This is the
//! path [`decode`](super::decode) takes for every buffer the one pass
//! (`onepass.rs`) declines, so every error is found and worded here.
//!
//! Errors keep what the verifier knows: its `ErrorTrace` becomes a path such
//! as `products[2].variants[0].sku`, and its position becomes the byte offset.

use super::generated::wirebench as fb;
use crate::codec::ids::UniqueIds;
use crate::codec::{DecodeError, ErrorKind};
use crate::model::{self, Catalog, Dimensions, MAX_TAGS, MAX_VARIANTS, Product, Status, Variant};
use flatbuffers::{ErrorTraceDetail, InvalidFlatbuffer, VerifierOptions};

/// The 4-byte file identifier at bytes 4..8 (schema `file_identifier`).
pub const IDENTIFIER: &[u8; 4] = b"WBCT";

/// Deepest table nesting in our schema: Catalog → Product → Variant. The
/// verifier walks the schema's types and ours has no recursive type, so no
/// buffer can reach a deeper table; the limit states the bound anyway (and
/// would catch a schema change that adds recursion).
pub const MAX_DEPTH: usize = 3;

/// How much larger than the buffer its "apparent size" (every object counted
/// each time it is reached, so a string shared by a thousand offsets counts a
/// thousand times) may be. Our builder shares only vtables (each table visit
/// re-counts its vtable), so real buffers stay well below: measured 1.21× for
/// `fixtures::catalog(1000)`, 1.15× at worst over the 300 round-trip seeds,
/// 1.36× for products whose strings and lists are all empty (the worst case:
/// the vtable is large next to the data). The cap stops a small buffer from
/// decoding into gigabytes of copied strings.
pub const APPARENT_SIZE_FACTOR: usize = 2;

const LIBRARY: &str = "flatbuffers";

/// The verifier limits for a buffer of `len` bytes. Every table starts with a
/// 4-byte vtable offset and each of ours holds at least one 4-byte field, so
/// a well-formed buffer has at most `len / 8` tables.
pub fn verifier_options(len: usize) -> VerifierOptions {
    VerifierOptions {
        max_depth: MAX_DEPTH,
        max_tables: len / 8 + 1,
        max_apparent_size: len.saturating_mul(APPARENT_SIZE_FACTOR),
        ignore_missing_null_terminator: false,
    }
}

/// Checks the file identifier and runs the verifier; returns the root table.
pub fn verified_root(bytes: &[u8]) -> Result<fb::Catalog<'_>, DecodeError> {
    let Some(ident) = bytes.get(4..8) else {
        return Err(DecodeError::eof(
            bytes.len(),
            "4-byte root offset and 4-byte file identifier",
        ));
    };
    if ident != IDENTIFIER {
        return Err(DecodeError::unexpected(
            4,
            "file identifier \"WBCT\"",
            format!("{:?}", String::from_utf8_lossy(ident)),
        ));
    }
    let opts = verifier_options(bytes.len());
    fb::root_as_catalog_with_opts(&opts, bytes).map_err(|e| verifier_error(&e, &opts, bytes.len()))
}

/// [`decode`](super::decode) by the crate's verifier over the whole buffer, then a copy of
/// each product, validated before the next: every error, with its position.
pub fn checked(bytes: &[u8]) -> Result<Catalog, DecodeError> {
    let root = verified_root(bytes)?;
    let list = root.products();
    // The verifier proved 4 bytes per element are in the buffer.
    let mut products = Vec::with_capacity(list.len());
    let mut ids = UniqueIds::new();
    // Each product is checked before the next is copied: offsets may share
    // one table or string many times over, so copying first could cost far
    // more than the buffer (the verifier's apparent-size limit bounds how
    // much).
    for (index, p) in list.iter().enumerate() {
        let product = product(p, index)?;
        if !ids.insert(product.id, || products.iter().map(|q: &Product| q.id)) {
            let e = model::duplicate_id(index, product.id);
            return Err(DecodeError::invalid(p._tab.loc(), e));
        }
        products.push(product);
    }
    Ok(Catalog { products })
}

/// What the copy and the checked view both check on a verified product
/// table before reading it: its lists within the model's maximum (reported
/// at the table, `at`), and its status a known one (reported at the field).
pub(super) fn lists_and_status(p: &fb::Product<'_>, index: usize, at: usize) -> Result<Status, DecodeError> {
    for (field, count, max) in [
        ("tags", p.tags().len(), MAX_TAGS),
        ("variants", p.variants().len(), MAX_VARIANTS),
    ] {
        if count > max {
            let e = model::too_many_items(index, field, max, format_args!("found {count}"));
            return Err(DecodeError::invalid(at, e));
        }
    }
    let raw = p.status().0;
    Status::from_index(i64::from(raw)).ok_or_else(|| {
        DecodeError::new(
            field_position(&p._tab, fb::Product::VT_STATUS),
            ErrorKind::UnknownEnum {
                what: "Status",
                value: raw.to_string(),
            },
        )
    })
}

/// Copies one verified product table into a domain [`Product`] and
/// validates it. A list over the model's maximum is refused before it is
/// copied.
fn product(p: fb::Product<'_>, index: usize) -> Result<Product, DecodeError> {
    let at = p._tab.loc();
    let (tags, variants) = (p.tags(), p.variants());
    let status = lists_and_status(&p, index, at)?;
    let d = p.dimensions();
    let product = Product {
        id: p.id(),
        sku: p.sku().to_owned(),
        name: p.name().to_owned(),
        description: p.description().to_owned(),
        price_cents: p.price_cents(),
        currency: p.currency().to_owned(),
        rating: p.rating(),
        review_count: p.review_count(),
        in_stock: p.in_stock(),
        stock: p.stock(),
        status,
        tags: tags.iter().map(str::to_owned).collect(),
        dimensions: Dimensions {
            width_mm: d.width_mm(),
            height_mm: d.height_mm(),
            depth_mm: d.depth_mm(),
            weight_g: d.weight_g(),
        },
        variants: variants
            .iter()
            .map(|v| Variant {
                sku: v.sku().to_owned(),
                color: v.color().to_owned(),
                size: v.size().to_owned(),
                price_cents: v.price_cents(),
                stock: v.stock(),
            })
            .collect(),
        discount_percent: p.discount_percent(),
        created_at_ms: p.created_at_ms(),
        image_url: p.image_url().to_owned(),
    };
    product.validate(index).map_err(|e| DecodeError::invalid(at, e))?;
    Ok(product)
}

/// Absolute byte position of a field of a verified table (the table itself if
/// the field is absent and reads as its default).
pub(crate) fn field_position(table: &flatbuffers::Table<'_>, voffset: flatbuffers::VOffsetT) -> usize {
    table.loc() + usize::from(table.vtable().get(voffset))
}

/// Turns the verifier's trace (innermost first) into a path like
/// `products[2].variants[0].sku`, and returns the innermost position.
fn trace_path(trace: &[ErrorTraceDetail]) -> (String, Option<usize>) {
    let mut path = String::new();
    for d in trace.iter().rev() {
        match d {
            ErrorTraceDetail::VectorElement { index, .. } => {
                path.push('[');
                path.push_str(&index.to_string());
                path.push(']');
            }
            ErrorTraceDetail::TableField { field_name, .. }
            | ErrorTraceDetail::UnionVariant {
                variant: field_name, ..
            } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(field_name);
            }
        }
    }
    let position = trace.first().map(|d| match d {
        ErrorTraceDetail::VectorElement { position, .. }
        | ErrorTraceDetail::TableField { position, .. }
        | ErrorTraceDetail::UnionVariant { position, .. } => *position,
    });
    (path, position)
}

/// "in products[0].tags" or "in the root table".
fn place(path: &str) -> String {
    if path.is_empty() {
        "in the root table".to_string()
    } else {
        format!("in {path}")
    }
}

/// Maps a verifier error to a [`DecodeError`] at the position it names.
#[cold]
fn verifier_error(e: &InvalidFlatbuffer, opts: &VerifierOptions, len: usize) -> DecodeError {
    // Offsets the verifier reports may lie past the buffer (that is often the
    // error); an error's offset never does, so those point at the end.
    let library = |at: usize, message: String| {
        DecodeError::new(
            at.min(len),
            ErrorKind::Library {
                library: LIBRARY,
                message,
            },
        )
    };
    match e {
        InvalidFlatbuffer::Utf8Error { error, range, .. } => {
            DecodeError::new(range.start + error.valid_up_to(), ErrorKind::InvalidUtf8)
        }
        InvalidFlatbuffer::DepthLimitReached => DecodeError::new(0, ErrorKind::DepthLimit { limit: opts.max_depth }),
        InvalidFlatbuffer::TooManyTables => library(
            0,
            format!("more than {} tables in a {len}-byte buffer", opts.max_tables),
        ),
        InvalidFlatbuffer::ApparentSizeTooLarge => library(
            0,
            format!(
                "objects reached through shared offsets add up to more than {} bytes ({APPARENT_SIZE_FACTOR}× the buffer)",
                opts.max_apparent_size
            ),
        ),
        InvalidFlatbuffer::MissingRequiredField { required, error_trace } => {
            let (path, at) = trace_path(error_trace.as_ref());
            let field = if path.is_empty() {
                required.to_string()
            } else {
                format!("{path}.{required}")
            };
            library(at.unwrap_or(0), format!("missing required field {field}"))
        }
        InvalidFlatbuffer::MissingNullTerminator { range, error_trace } => {
            let (path, _) = trace_path(error_trace.as_ref());
            library(
                range.end,
                format!(
                    "string of {} bytes {} lacks its NUL terminator",
                    range.len(),
                    place(&path)
                ),
            )
        }
        InvalidFlatbuffer::Unaligned {
            position,
            unaligned_type,
            error_trace,
        } => {
            let (path, _) = trace_path(error_trace.as_ref());
            library(
                *position,
                format!("{unaligned_type} {} is not aligned to its size", place(&path)),
            )
        }
        InvalidFlatbuffer::RangeOutOfBounds { range, error_trace } => {
            // Where the range starts if that is inside the buffer; else at
            // the field or element whose offset points out; without a trace,
            // the root offset at byte 0 is the one that does.
            let (path, at) = trace_path(error_trace.as_ref());
            let inside = (range.start < len).then_some(range.start);
            library(
                inside.or(at).unwrap_or(0),
                format!(
                    "bytes {}..{} {} lie outside the {len}-byte buffer",
                    range.start,
                    range.end,
                    place(&path)
                ),
            )
        }
        InvalidFlatbuffer::SignedOffsetOutOfBounds {
            soffset,
            position,
            error_trace,
        } => {
            let (path, _) = trace_path(error_trace.as_ref());
            library(
                *position,
                format!("vtable offset {soffset} {} points outside the buffer", place(&path)),
            )
        }
        InvalidFlatbuffer::InconsistentUnion { field, error_trace, .. } => {
            let (path, at) = trace_path(error_trace.as_ref());
            library(
                at.unwrap_or(0),
                format!(
                    "union {field} {} has a type without a value or the reverse",
                    place(&path)
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both paths (the checked copy here and the one pass) accept exactly
    /// what `Product::validate` accepts: each rule broken alone (and at its
    /// boundary) gives validate's error, each boundary value kept is accepted.
    #[test]
    fn both_paths_apply_the_model_rules() {
        use crate::fixtures;
        type Mutation = fn(&mut Product);
        let mutations: &[Mutation] = &[
            |_| {},
            |p| p.id = 0,
            |p| p.id = 1,
            |p| p.id = -5,
            |p| p.sku = "SKU-é".into(),
            |p| p.sku = String::new(),
            |p| p.price_cents = -1,
            |p| p.price_cents = 0,
            |p| p.currency = "usd".into(),
            |p| p.currency = "USDX".into(),
            |p| p.currency = "US".into(),
            |p| p.rating = f64::NAN,
            |p| p.rating = f64::INFINITY,
            |p| p.rating = -0.1,
            |p| p.rating = 5.0,
            |p| p.rating = 5.01,
            |p| p.rating = 0.0,
            |p| p.review_count = -1,
            |p| p.stock = -1,
            |p| p.stock = 0,
            |p| p.dimensions.width_mm = -1,
            |p| p.dimensions.height_mm = i32::MIN,
            |p| p.dimensions.depth_mm = -1,
            |p| p.dimensions.weight_g = -1,
            |p| p.dimensions.weight_g = 0,
            |p| p.discount_percent = Some(0),
            |p| p.discount_percent = Some(1),
            |p| p.discount_percent = Some(90),
            |p| p.discount_percent = Some(91),
            |p| p.discount_percent = None,
            |p| p.variants = vec![p.variants[0].clone(); 3],
            |p| p.variants.iter_mut().for_each(|v| v.price_cents = -1),
            |p| p.variants.iter_mut().for_each(|v| v.stock = -1),
            |p| p.variants.iter_mut().for_each(|v| v.price_cents = 0),
            |p| {
                p.id = 0;
                p.stock = -1;
            },
        ];
        for (i, m) in mutations.iter().enumerate() {
            let mut p = fixtures::product(1);
            p.variants = vec![Variant {
                sku: "V-1".into(),
                color: "red".into(),
                size: "M".into(),
                price_cents: 100,
                stock: 2,
            }];
            m(&mut p);
            let mut bytes = Vec::new();
            super::super::encode(std::slice::from_ref(&p), &mut bytes).unwrap();
            // The checked path, and `decode` (the one pass for a valid catalog).
            for got in [checked(&bytes), super::super::decode(&bytes)] {
                match (got, p.validate(0)) {
                    (Ok(c), Ok(())) => assert_eq!(c.products, [p.clone()], "mutation {i}"),
                    (Err(got), Err(want)) => {
                        assert!(
                            matches!(&got.kind, ErrorKind::Invalid(e) if *e == want),
                            "mutation {i}: {got}"
                        )
                    }
                    (got, want) => panic!("mutation {i}: decode {got:?}, validate {want:?}"),
                }
            }
        }
    }

    #[test]
    fn trace_becomes_a_path() {
        use std::borrow::Cow;
        let trace = [
            ErrorTraceDetail::TableField {
                field_name: Cow::Borrowed("sku"),
                position: 120,
            },
            ErrorTraceDetail::VectorElement { index: 1, position: 80 },
            ErrorTraceDetail::TableField {
                field_name: Cow::Borrowed("variants"),
                position: 60,
            },
            ErrorTraceDetail::VectorElement { index: 2, position: 20 },
            ErrorTraceDetail::TableField {
                field_name: Cow::Borrowed("products"),
                position: 12,
            },
        ];
        assert_eq!(
            trace_path(&trace),
            ("products[2].variants[1].sku".to_string(), Some(120))
        );
        assert_eq!(trace_path(&[]), (String::new(), None));
    }
}
