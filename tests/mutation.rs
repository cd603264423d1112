//! Hostile input at scale, deterministically and with std only: seeded
//! mutations — bit flips, interesting bytes, insertions, deletions, copied
//! ranges, truncations, splices and length-field tampering — of the golden
//! payloads, their gzip and the captured requests (`fixtures/requests/`),
//! 225,000 cases in all, each checked by the same properties as the
//! fuzz targets (`support/oracle.rs`: no panic, errors inside the input,
//! valid results that round-trip, the allocation bound, a parser whose
//! answer does not depend on how the bytes were split). Coverage-guided
//! fuzzing (`make fuzz`) searches further; what it finds is kept in
//! `fixtures/hostile/fuzz/` and checked here, so CI keeps guarding it.
//!
//! A failure names the seed file and the case number; rerun one case with
//! `MUTATION_CASE=<n> cargo test --test mutation <test>`.

mod support;
use support::{mutate, oracle};

use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use wirebench::codec::Format;
use wirebench::http::parse::{self, ErrorKind as HttpErrorKind};
use wirebench::measure::alloc::CountingAlloc;
use wirebench::prng::Rng;

/// Counts allocations per thread so the oracle checks the allocation bound.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

const SEED: u64 = 0x6d75_7461_7465; // "mutate"

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs `check` on `cases` mutants of each seed (mutant k of seed s uses
/// the seed `SEED ^ s ^ k`) and returns how many were checked. A failing case
/// is reported with its seed file and number.
fn run_mutants(name: &str, seeds: &[(String, Vec<u8>)], cases: u64, check: impl Fn(&[u8])) -> u64 {
    let only: Option<u64> = std::env::var("MUTATION_CASE").ok().and_then(|s| s.parse().ok());
    let mut checked = 0;
    for (s, (file, seed)) in seeds.iter().enumerate() {
        let other = &seeds[(s + 1) % seeds.len()].1;
        for k in 0..cases {
            if only.is_some_and(|o| o != k) {
                continue;
            }
            let mut rng = Rng::new(SEED ^ ((s as u64) << 32) ^ k);
            let input = mutate::mutate(&mut rng, seed, other);
            if catch_unwind(AssertUnwindSafe(|| check(&input))).is_err() {
                panic!(
                    "{name}: mutant {k} of {file} broke a property (input {} bytes: {input:02x?})",
                    input.len()
                );
            }
            checked += 1;
        }
    }
    checked
}

fn golden_seeds(format: Format) -> Vec<(String, Vec<u8>)> {
    [1, 3]
        .iter()
        .map(|n| {
            let file = format!("catalog-{n}.{}", format.extension());
            let bytes = read(&fixtures().join("golden").join(&file));
            (file, bytes)
        })
        .collect()
}

/// 24,000 mutants per decoder; the outcomes must be varied (the mutants
/// reach past the first byte) and some must still decode.
fn decoder(format: Format) {
    let seeds = golden_seeds(format);
    let errors = std::cell::RefCell::new(HashSet::new());
    let oks = std::cell::Cell::new(0u64);
    let n = run_mutants(format.name(), &seeds, 12_000, |input| {
        match oracle::decode(format, input) {
            Ok(_) => oks.set(oks.get() + 1),
            Err(e) => {
                errors.borrow_mut().insert(std::mem::discriminant(&e.kind));
            }
        }
    });
    assert_eq!(n, 24_000);
    let kinds = errors.borrow().len();
    println!(
        "{}: {n} mutants, {} decoded, {kinds} error kinds",
        format.name(),
        oks.get()
    );
    assert!(
        kinds >= 4,
        "{}: only {kinds} kinds of error: the mutants stop early",
        format.name()
    );
    assert!(
        oks.get() >= 100,
        "{}: only {} mutants decoded",
        format.name(),
        oks.get()
    );
}

#[test]
fn json_mutants() {
    decoder(Format::Json);
}

#[test]
fn msgpack_mutants() {
    decoder(Format::Msgpack);
}

#[test]
fn avro_mutants() {
    decoder(Format::Avro);
}

#[test]
fn protobuf_mutants() {
    decoder(Format::Protobuf);
}

#[test]
fn flatbuffers_mutants() {
    decoder(Format::Flatbuffers);
}

/// 40,000 mutants of the five 1- and 3-product payloads' gzip.
#[test]
fn gunzip_mutants() {
    let seeds: Vec<(String, Vec<u8>)> = Format::ALL
        .iter()
        .flat_map(|&f| golden_seeds(f))
        .map(|(file, bytes)| {
            let mut gz = Vec::new();
            wirebench::gzip::compress(&bytes, 6, &mut gz);
            (format!("{file}.gz"), gz)
        })
        .collect();
    let n = run_mutants("gunzip", &seeds, 4_000, oracle::gunzip);
    assert_eq!(n, 40_000);
}

/// 45,000 mutants of the captured requests (each checked at every split
/// point, pipelined, under two sets of limits).
#[test]
fn http_request_mutants() {
    let dir = fixtures().join("requests");
    let mut seeds: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), read(&p)))
        .collect();
    seeds.sort();
    assert_eq!(seeds.len(), 9, "fixtures/requests/ changed: update the case count");
    let n = run_mutants("http", &seeds, 5_000, oracle::http_requests);
    assert_eq!(n, 45_000);
}

/// Mutants of decoded catalogs' cross-format round trip: 5 formats × 2 seeds
/// × 2,000, where the first byte of each case picks the source format.
#[test]
fn roundtrip_mutants() {
    let seeds: Vec<(String, Vec<u8>)> = Format::ALL
        .iter()
        .enumerate()
        .flat_map(|(i, &f)| {
            golden_seeds(f)
                .into_iter()
                .map(move |(file, bytes)| (file, [&[i as u8][..], &bytes].concat()))
        })
        .collect();
    // The mutations may change the format byte too: then another decoder
    // reads the payload, which is one more hostile input.
    let n = run_mutants("roundtrip", &seeds, 2_000, oracle::roundtrip);
    assert_eq!(n, 20_000);
}

/// What each fuzz finding in `fixtures/hostile/fuzz/` broke, asserted; every
/// file there must be listed here, and every file passes the oracle of the
/// target named by its prefix.
#[test]
fn fuzz_findings_stay_fixed() {
    let dir = fixtures().join("hostile/fuzz");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let listed = [
        "flatbuffers-error-offset-past-input-name-uoffset.bin",
        "http_request-431-or-400-depending-on-read-split.bin",
        "protobuf-1000-empty-products-alloc-430x.bin",
    ];
    assert_eq!(files, listed, "list each finding here with what it asserts");
    for file in &files {
        let bytes = read(&dir.join(file));
        let target = file.split('-').next().unwrap();
        match target {
            "http_request" => oracle::http_requests(&bytes),
            "gunzip" => oracle::gunzip(&bytes),
            "roundtrip" => oracle::roundtrip(&bytes),
            name => drop(oracle::decode(Format::from_name(name).unwrap(), &bytes)),
        }
    }

    // A name uoffset pointing 31 KB past a 568-byte buffer: the error is
    // placed at the offset's own position, not at byte 31832 it points to.
    let fb = read(&dir.join(listed[0]));
    let e = Format::Flatbuffers.decode(&fb).unwrap_err();
    assert!(e.offset < fb.len(), "{e}");
    assert_eq!(
        e.to_string(),
        "flatbuffers: bytes 31832..31836 in products[0].name lie outside the 568-byte buffer at byte 88"
    );

    // A header line over the (small) header limit ending in a bare LF: the
    // answer must not depend on where a read stops: whole or cut before the
    // LF, it is 431, because the size limit is checked before the line ending.
    let http = read(&dir.join(listed[1]));
    let whole = parse::parse(&http, &oracle::SMALL_LIMITS).unwrap_err();
    assert_eq!(whole.kind, HttpErrorKind::HeadersTooLarge { limit: 256 });
    let cut = http.iter().rposition(|&b| b == b'\n').unwrap();
    assert_eq!(parse::parse(&http[..cut], &oracle::SMALL_LIMITS), Err(whole));

    // 1,000 empty products (2 bytes each): handing prost the whole catalog
    // would build all 1,000 messages (430× the input) before validation saw
    // the first; the first product must fail before the next is read.
    let pb = read(&dir.join(listed[2]));
    let e = Format::Protobuf.decode(&pb).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid data: products[0].id: must be >= 1, found 0 at byte 0"
    );
}

/// The hand-made hostile files (`fixtures/hostile/*`) keep every property too.
#[test]
fn hostile_files_keep_every_property() {
    let dir = fixtures().join("hostile");
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let format = Format::from_name(name.split('-').next().unwrap()).unwrap();
        let _ = oracle::decode(format, &read(&path));
        seen.push(name);
    }
    seen.sort();
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(Result::unwrap)
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "fixtures/hostile/ holds no files");
    assert_eq!(seen, files, "every file in fixtures/hostile/ is checked");
}
