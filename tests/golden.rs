//! Golden files: every encoder reproduces `fixtures/golden/catalog-{1,3,100}.<ext>`
//! byte for byte, and every decoder reads each file back equal to the fixture.
//!
//! Golden files change only on an explicit bless:
//! `UPDATE_GOLDEN=1 cargo test --test golden` (or `make bless`), then review
//! the diff. A test never rewrites an expected file on its own.

use std::path::PathBuf;
use wirebench::codec::Format;
use wirebench::fixtures;

/// Catalog sizes with committed golden encodings.
const COUNTS: [usize; 3] = [1, 3, 100];

fn golden_path(format: Format, count: usize) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/golden")
        .join(format!("catalog-{count}.{}", format.extension()))
}

fn bless() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1")
}

fn check(format: Format) {
    for count in COUNTS {
        let catalog = fixtures::catalog(count);
        let ours = format
            .encode_to_vec(&catalog.products)
            .unwrap_or_else(|e| panic!("{format} encode: {e}"));
        let path = golden_path(format, count);
        if bless() {
            std::fs::write(&path, &ours).unwrap();
            eprintln!("blessed {}", path.display());
        }
        let golden = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; run `UPDATE_GOLDEN=1 cargo test --test golden` to create it",
                path.display()
            )
        });
        if ours != golden {
            let at = ours
                .iter()
                .zip(&golden)
                .position(|(a, b)| a != b)
                .unwrap_or(ours.len().min(golden.len()));
            panic!(
                "{format} count {count}: encoder output differs from {} at byte {at} (ours {} bytes, golden {} bytes)",
                path.display(),
                ours.len(),
                golden.len()
            );
        }
        let decoded = format
            .decode(&golden)
            .unwrap_or_else(|e| panic!("{format} decode {}: {e}", path.display()));
        assert_eq!(
            decoded, catalog,
            "{format} count {count}: decoded golden differs from the fixture"
        );
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

/// `fixtures/catalog.json` is exactly what our generator and JSON encoder produce.
#[test]
fn canonical_fixture_file_is_fresh() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(fixtures::CANONICAL_PATH);
    let mut ours = Format::Json
        .encode_to_vec(&fixtures::catalog(fixtures::CANONICAL_COUNT).products)
        .unwrap();
    ours.push(b'\n');
    if bless() {
        std::fs::write(&path, &ours).unwrap();
    }
    let file = std::fs::read(&path).expect("fixtures/catalog.json missing: run `make fixtures`");
    assert!(
        file == ours,
        "fixtures/catalog.json is stale: run `make fixtures` and review the diff"
    );
    let loaded = fixtures::load_file(&path).unwrap();
    assert_eq!(loaded, fixtures::catalog(fixtures::CANONICAL_COUNT));
}
