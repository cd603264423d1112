//! `explain`: for every format and every golden file, the annotated spans
//! cover every byte exactly once and in order, the per-category counts add up
//! to the payload size, and the annotator — an independent reader — decodes
//! the same catalog as the real decoder. The annotated dumps of the count-1
//! catalogs are golden files (`fixtures/golden/catalog-1.<ext>.explain.txt`,
//! bless with `UPDATE_GOLDEN=1 cargo test --test explain`).

use std::path::PathBuf;
use wirebench::codec::Format;
use wirebench::explain::{self, Category, Summary};
use wirebench::fixtures;

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/golden")
}

fn golden(format: Format, count: usize) -> Vec<u8> {
    let path = golden_dir().join(format!("catalog-{count}.{}", format.extension()));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn check(format: Format) {
    for count in [1, 3, 100] {
        let bytes = golden(format, count);
        let ex = explain::explain(format, &bytes).unwrap_or_else(|f| panic!("{format} count {count}: {}", f.error));
        // Every byte exactly once, in order.
        let mut at = 0;
        for s in &ex.spans {
            assert_eq!(
                s.offset, at,
                "{format} count {count}: span {:?} does not start where the last ended",
                s
            );
            assert!(s.len > 0, "{format}: empty span {s:?}");
            at += s.len;
        }
        assert_eq!(
            at,
            bytes.len(),
            "{format} count {count}: spans end at {at} of {}",
            bytes.len()
        );
        // Categories and fields add up to the payload.
        let sum = Summary::of(&ex);
        assert_eq!(
            sum.by_category.iter().sum::<usize>(),
            bytes.len(),
            "{format} count {count}: categories"
        );
        assert_eq!(
            sum.by_field.iter().map(|(_, n)| n).sum::<usize>(),
            bytes.len(),
            "{format} count {count}: fields"
        );
        // The independent reader agrees with the decoder and the fixture.
        let ours = ex
            .value
            .to_catalog()
            .unwrap_or_else(|e| panic!("{format} count {count}: {e}"));
        let decoded = format.decode(&bytes).unwrap();
        assert_eq!(ours, decoded, "{format} count {count}: annotator and decoder disagree");
        assert_eq!(
            ours,
            fixtures::catalog(count),
            "{format} count {count}: annotator differs from fixture"
        );
    }
    // The count-1 annotated dump is a golden file.
    let text = explain::explain_text(format, &golden(format, 1), true).unwrap_or_else(|u| panic!("{}", u.error));
    let path = golden_dir().join(format!("catalog-1.{}.explain.txt", format.extension()));
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; bless with UPDATE_GOLDEN=1 cargo test --test explain",
            path.display()
        )
    });
    assert!(
        text == want,
        "{format}: annotated dump differs from {}; review and bless",
        path.display()
    );
}

/// Truncations and byte changes of the count-1 golden never panic the annotator.
fn hostile(format: Format) {
    let bytes = golden(format, 1);
    for cut in 0..bytes.len() {
        let r = std::panic::catch_unwind(|| explain::explain(format, &bytes[..cut]).is_ok());
        assert!(r.is_ok(), "{format}: annotator panicked on truncation at {cut}");
    }
    let mut m = bytes.clone();
    for i in 0..bytes.len() {
        for v in [0x00, 0x7f, 0x80, 0xff, bytes[i] ^ 1] {
            m[i] = v;
            let r = std::panic::catch_unwind(|| {
                if let Ok(ex) = explain::explain(format, &m) {
                    // Whatever it accepts, it still accounts for every byte.
                    assert_eq!(ex.spans.iter().map(|s| s.len).sum::<usize>(), m.len());
                }
            });
            assert!(r.is_ok(), "{format}: annotator failed with byte {i} set to {v:#04x}");
        }
        m[i] = bytes[i];
    }
}

#[test]
fn json() {
    check(Format::Json);
    hostile(Format::Json);
}

#[test]
fn msgpack() {
    check(Format::Msgpack);
    hostile(Format::Msgpack);
}

#[test]
fn protobuf() {
    check(Format::Protobuf);
    hostile(Format::Protobuf);
}

#[test]
fn avro() {
    check(Format::Avro);
    hostile(Format::Avro);
}

#[test]
fn flatbuffers() {
    check(Format::Flatbuffers);
    hostile(Format::Flatbuffers);
}

/// Keys exist only in the self-describing formats; padding only in FlatBuffers.
#[test]
fn categories_tell_the_formats_apart() {
    let key = Category::ALL.iter().position(|c| *c == Category::Key).unwrap();
    let pad = Category::ALL.iter().position(|c| *c == Category::Padding).unwrap();
    for format in Format::ALL {
        let sum = Summary::of(&explain::explain(format, &golden(format, 3)).unwrap());
        let self_describing = matches!(format, Format::Json | Format::Msgpack);
        assert_eq!(
            sum.by_category[key] > 0,
            self_describing,
            "{format}: keys {}",
            sum.by_category[key]
        );
        if format != Format::Flatbuffers {
            assert_eq!(sum.by_category[pad], 0, "{format}: padding");
        }
    }
}

/// The cross-format table lists every field and sums to each payload's size.
#[test]
fn compare_table_covers_every_field() {
    let products = fixtures::catalog(1).products;
    let table = explain::compare_text(&products).unwrap();
    for f in explain::PRODUCT_FIELDS {
        assert!(table.contains(&format!("| {f} |")), "missing row {f}:\n{table}");
    }
    for format in Format::ALL {
        let size = format.encode_to_vec(&products).unwrap().len();
        assert!(
            table.contains(&format!("**{size}**")),
            "{format} total {size} missing:\n{table}"
        );
    }
}

/// A payload that does not parse still shows what did, and names the first bad byte.
#[test]
fn errors_point_at_the_first_bad_byte() {
    let err = explain::explain_text(Format::Json, br#"{"products":[{"id":1,}]}"#, true).unwrap_err();
    assert_eq!(err.error.to_string(), "expected a string key at byte 21");
    assert!(err.partial.contains("integer 1"), "{}", err.partial);
    for format in Format::ALL {
        let bytes = golden(format, 1);
        let cut = &bytes[..bytes.len() - 1];
        if let Err(e) = explain::explain_text(format, cut, true) {
            assert!(
                e.error.offset <= cut.len(),
                "{format}: error offset {} past the input",
                e.error.offset
            );
        }
    }
}
