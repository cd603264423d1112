//! Our MessagePack codec against rmp-serde, in both directions.
//!
//! - Our bytes equal `rmp_serde::to_vec_named` of the serde mirror, byte for
//!   byte, for the fixture catalogs, the edge products and 300 edge-case
//!   catalogs (a failure names the seed), from any starting capacity. No case differs legitimately: rmp writes non-negative
//!   signed integers in the unsigned family and negative ones in the signed
//!   family, smallest width each, and so do we.
//! - rmp-serde reads our bytes back equal; we read rmp-serde's named output
//!   back equal.
//! - rmp-serde's compact form (`to_vec`: records as arrays, no keys) is not
//!   something our decoder reads — docs/SPEC.md, "Formats": MessagePack is the keyed map — so
//!   it is checked to be *rejected* with a clear message, not decoded.
mod support;
use support::serde_mirror;

use serde_mirror::SCatalog;
use wirebench::codec::msgpack;
use wirebench::fixtures::{catalog, random_catalog};
use wirebench::model::Catalog;

fn ours(c: &Catalog) -> Vec<u8> {
    let mut out = Vec::new();
    msgpack::encode(&c.products, &mut out).unwrap();
    out
}

/// Both directions for one catalog; `what` names it in failures.
fn check(c: &Catalog, what: &str) {
    let mine = ours(c);
    let theirs = rmp_serde::to_vec_named(&SCatalog::from(c)).unwrap();
    if mine != theirs {
        let at = mine.iter().zip(&theirs).position(|(a, b)| a != b);
        panic!(
            "{what}: our bytes differ from rmp-serde at byte {at:?} (ours {} bytes, theirs {})",
            mine.len(),
            theirs.len()
        );
    }
    let read_by_rmp: SCatalog = rmp_serde::from_slice(&mine).unwrap_or_else(|e| panic!("{what}: rmp-serde: {e}"));
    let read_by_rmp = Catalog::from(read_by_rmp);
    assert_eq!(read_by_rmp, *c, "{what}: rmp-serde read ours differently");
    let read_by_us = msgpack::decode(&theirs).unwrap_or_else(|e| panic!("{what}: we failed on rmp-serde's bytes: {e}"));
    assert_eq!(read_by_us, *c, "{what}: we read rmp-serde's bytes differently");
    for (a, b) in c.products.iter().zip(&read_by_us.products) {
        assert_eq!(a.rating.to_bits(), b.rating.to_bits(), "{what}: rating of id {}", a.id);
    }
}

#[test]
fn fixture_catalogs_equal_rmp_serde() {
    for n in [0, 1, 100, 1000] {
        check(&catalog(n), &format!("catalog({n})"));
    }
}

#[test]
fn random_catalogs_equal_rmp_serde() {
    for seed in 0..300 {
        check(&random_catalog(seed), &format!("random_catalog({seed})"));
    }
}

/// Our bytes equal rmp-serde's whatever the buffer's starting capacity (so
/// growth happens at every point of a product), after bytes already in the
/// buffer (it appends), and for the edge products (64 KiB strings, extreme
/// integers).
#[test]
fn any_capacity_and_edge_products() {
    serde_mirror::any_capacity_equals(
        |p, out| msgpack::encode(p, out).unwrap(),
        |c| rmp_serde::to_vec_named(c).unwrap(),
    );
}

#[test]
fn compact_array_form_is_rejected_with_a_clear_error() {
    let c = catalog(1);
    let compact = rmp_serde::to_vec(&SCatalog::from(&c)).unwrap();
    // to_vec writes the catalog as a fixarray of 1 field: `91`.
    assert_eq!(compact[0], 0x91);
    assert_eq!(
        msgpack::decode(&compact).unwrap_err().to_string(),
        "expected the catalog map, found fixarray (0x91) at byte 0"
    );
}
