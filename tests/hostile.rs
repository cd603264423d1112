//! Hostile input: every truncation point and every single-byte change of the
//! small golden files returns an error or a valid catalog — never a panic —
//! for every decoder and for gunzip. Format-specific crafted inputs (huge
//! length prefixes, deep nesting, bad UTF-8…) live beside each codec's tests
//! and in `fixtures/hostile/`.

mod support;
use support::memlimit;

use std::path::PathBuf;
use wirebench::codec::Format;

fn golden(format: Format, count: usize) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/golden")
        .join(format!("catalog-{count}.{}", format.extension()));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Decodes `bytes`; an `Ok` must be a catalog that passes validation.
fn survive(format: Format, bytes: &[u8], what: &str) {
    let result = std::panic::catch_unwind(|| format.decode(bytes));
    match result {
        Err(_) => panic!("{format}: decoder panicked on {what}"),
        Ok(Ok(c)) => {
            if let Err(e) = c.validate() {
                panic!("{format}: {what} decoded to an invalid catalog: {e}");
            }
        }
        Ok(Err(_)) => {}
    }
}

fn walk(format: Format) {
    for count in [1, 3] {
        let bytes = golden(format, count);
        for cut in 0..bytes.len() {
            let r = std::panic::catch_unwind(|| format.decode(&bytes[..cut]));
            match r {
                Err(_) => panic!("{format} count {count}: panicked on truncation at {cut}"),
                // A prefix may only decode if the format allows it (e.g. Protobuf's
                // field-wise messages); then it must still be valid.
                Ok(Ok(c)) => c
                    .validate()
                    .unwrap_or_else(|e| panic!("{format} truncated at {cut}: {e}")),
                Ok(Err(_)) => {}
            }
        }
        // Every single-byte change on the 1-product file; a spread of changes on
        // the 3-product file keeps debug-mode test time reasonable.
        let values: Vec<u8> = if count == 1 {
            (0..=255).collect()
        } else {
            vec![0x00, 0x01, 0x7f, 0x80, 0xff]
        };
        let mut mutated = bytes.clone();
        for i in 0..bytes.len() {
            for &v in &values {
                if v == bytes[i] {
                    continue;
                }
                mutated[i] = v;
                survive(format, &mutated, &format!("count {count} byte {i} set to {v:#04x}"));
                mutated[i] = bytes[i];
            }
            mutated[i] = bytes[i] ^ 0x01;
            survive(format, &mutated, &format!("count {count} byte {i} xor 0x01"));
            mutated[i] = bytes[i];
        }
    }
}

#[test]
fn json() {
    walk(Format::Json);
}

#[test]
fn msgpack() {
    walk(Format::Msgpack);
}

#[test]
fn protobuf() {
    walk(Format::Protobuf);
}

#[test]
fn avro() {
    walk(Format::Avro);
}

#[test]
fn flatbuffers() {
    walk(Format::Flatbuffers);
}

/// gunzip: every truncation and every single-byte change of a gzip member is
/// an error (CRC-32 and ISIZE catch what deflate does not) or the exact input.
#[test]
fn gunzip() {
    let plain = golden(Format::Json, 1);
    let mut gz = Vec::new();
    wirebench::gzip::compress(&plain, wirebench::gzip::DEFAULT_LEVEL, &mut gz);
    assert_eq!(wirebench::gzip::decompress(&gz, 1 << 20).unwrap(), plain);
    for cut in 0..gz.len() {
        assert!(
            wirebench::gzip::decompress(&gz[..cut], 1 << 20).is_err(),
            "truncation at {cut} accepted"
        );
    }
    let mut m = gz.clone();
    for i in 0..gz.len() {
        for v in 0..=255u8 {
            if v == gz[i] {
                continue;
            }
            m[i] = v;
            let r = std::panic::catch_unwind(|| wirebench::gzip::decompress(&m, 1 << 20));
            match r {
                Err(_) => panic!("gunzip panicked with byte {i} set to {v:#04x}"),
                Ok(Ok(out)) => assert_eq!(out, plain, "byte {i} = {v:#04x} decoded to different data"),
                Ok(Err(_)) => {}
            }
        }
        m[i] = gz[i];
    }
    let mut trailing = gz.clone();
    trailing.push(0);
    assert!(
        wirebench::gzip::decompress(&trailing, 1 << 20).is_err(),
        "trailing garbage accepted"
    );
}

/// Every file in `fixtures/hostile/` (named `<format>-<what>.<ext>`) decodes
/// to an error — with the address space capped at 1 GiB, so a decoder that
/// allocated what a 2^31 or 2^63 length prefix asks for would abort instead.
#[cfg(unix)]
#[test]
fn hostile_files_are_errors_without_allocating() {
    memlimit::run_child_under_1gib("hostile_files_child");
}

#[test]
#[ignore = "run by hostile_files_are_errors_without_allocating under `ulimit -v`"]
fn hostile_files_child() {
    memlimit::assert_limit_in_force();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/hostile");
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            continue; // fixtures/hostile/fuzz: fuzz findings, checked by tests/mutation.rs
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let format = Format::ALL
            .into_iter()
            .find(|f| name.starts_with(&format!("{}-", f.name())))
            .unwrap_or_else(|| panic!("{name}: name must start with a format"));
        let bytes = std::fs::read(&path).unwrap();
        assert!(format.decode(&bytes).is_err(), "{name} decoded");
        seen.push(name);
    }
    seen.sort();
    assert_eq!(seen, hostile_files(&dir), "every file in fixtures/hostile/ is checked");
}

/// The regular files of `dir`, sorted by name (counted apart from the walk
/// that checks them, so a skipped file fails the test).
fn hostile_files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(Result::unwrap)
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(!names.is_empty(), "{} holds no files", dir.display());
    names
}
