//! Seeded round trips: hundreds of edge-case catalogs (`fixtures::random_catalog`)
//! through every format. A failure names the format and the seed, so
//! `random_catalog(seed)` reproduces it exactly.

use wirebench::codec::Format;
use wirebench::fixtures::random_catalog;

const SEEDS: u64 = 300;

fn check(format: Format) {
    let mut buf = Vec::new();
    for seed in 0..SEEDS {
        let catalog = random_catalog(seed);
        buf.clear();
        format
            .encode(&catalog.products, &mut buf)
            .unwrap_or_else(|e| panic!("{format} seed {seed}: encode: {e}"));
        let back = format
            .decode(&buf)
            .unwrap_or_else(|e| panic!("{format} seed {seed}: decode: {e}"));
        // Bitwise float comparison: PartialEq would let -0.0 == 0.0 slip through.
        for (a, b) in catalog.products.iter().zip(&back.products) {
            assert_eq!(
                a.rating.to_bits(),
                b.rating.to_bits(),
                "{format} seed {seed}: rating of id {}",
                a.id
            );
        }
        assert_eq!(back, catalog, "{format} seed {seed}");
    }
}

#[test]
fn json() {
    check(Format::Json);
}

#[test]
fn msgpack() {
    check(Format::Msgpack);
}

#[test]
fn protobuf() {
    check(Format::Protobuf);
}

#[test]
fn avro() {
    check(Format::Avro);
}

#[test]
fn flatbuffers() {
    check(Format::Flatbuffers);
}

/// The generator really reaches the boundaries the round trips claim to cover.
#[test]
fn random_catalogs_cover_the_boundaries() {
    let mut long_string = false;
    let mut empty_string = false;
    let mut widths = std::collections::BTreeSet::new();
    for seed in 0..SEEDS {
        for p in random_catalog(seed).products {
            long_string |= p.description.len() > 65_536 || p.name.len() > 65_536;
            empty_string |= p.name.is_empty() || p.description.is_empty();
            widths.insert(p.created_at_ms);
        }
    }
    assert!(long_string, "no string over 64 KiB");
    assert!(empty_string, "no empty string");
    for v in [i64::MIN, -33, -32, 127, 128, 65_536, i64::MAX] {
        assert!(widths.contains(&v), "created_at_ms never hits {v}");
    }
}
