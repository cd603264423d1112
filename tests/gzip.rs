//! gzip framing (RFC 1952): round trips at every level, exact header bytes,
//! interop with a member written by GNU gzip and one built by hand with every
//! optional header field, errors as `(input, "message at byte N")`, a bomb
//! that stops at `max_output` without allocating past it, and every
//! truncation / byte change of a named member.

mod support;
use support::serde_mirror;

use wirebench::gzip::{self, DEFAULT_LEVEL};

/// The canonical fixture as compact JSON, written by serde_json from the
/// serde mirror (so this test does not depend on our JSON encoder).
fn fixture_json(count: usize) -> Vec<u8> {
    let catalog = wirebench::fixtures::catalog(count);
    serde_json::to_vec(&serde_mirror::SCatalog::from(&catalog)).unwrap()
}

/// `printf 'hello, wirebench\n' > hello.txt; touch -d @1700000000 hello.txt; gzip -9 -c hello.txt`
/// (GNU gzip 1.12): FNAME "hello.txt", MTIME 1700000000, XFL 2, OS 3 (Unix).
const GNU_HELLO: [u8; 47] = [
    0x1f, 0x8b, 0x08, 0x08, 0x00, 0xf1, 0x53, 0x65, 0x02, 0x03, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x2e, //
    0x74, 0x78, 0x74, 0x00, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0x28, 0xcf, 0x2c, 0x4a, 0x4d, //
    0x4a, 0xcd, 0x4b, 0xce, 0xe0, 0x02, 0x00, 0x5f, 0xaa, 0x1c, 0x17, 0x11, 0x00, 0x00, 0x00,
];
const HELLO: &[u8] = b"hello, wirebench\n";

fn gz(data: &[u8], level: u8) -> Vec<u8> {
    let mut out = Vec::new();
    gzip::compress(data, level, &mut out);
    out
}

#[test]
fn round_trip_at_every_level() {
    let json = fixture_json(1000);
    let mut sizes = Vec::new();
    for (level, xfl) in [(0, 0), (1, 4), (6, 0), (9, 2), (10, 2)] {
        let packed = gz(&json, level);
        assert_eq!(
            packed[..10],
            [0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, xfl, 0xff],
            "level {level}: header"
        );
        let n = json.len() as u32;
        assert_eq!(packed[packed.len() - 4..], n.to_le_bytes(), "level {level}: ISIZE");
        let crc = wirebench::crc32::crc32(&json).to_le_bytes();
        assert_eq!(packed[packed.len() - 8..packed.len() - 4], crc, "level {level}: CRC32");
        assert_eq!(gzip::decompress(&packed, json.len()).unwrap(), json, "level {level}");
        sizes.push(packed.len());
    }
    // Level 0 is stored blocks (a little larger than the input); the rest compress.
    assert!(sizes[0] > json.len(), "level 0 sizes {sizes:?}");
    assert!(sizes[2] < json.len() / 5, "level 6 sizes {sizes:?}");
}

#[test]
fn empty_input_is_the_documented_twenty_bytes() {
    assert_eq!(
        gz(b"", DEFAULT_LEVEL),
        [
            0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff, // header
            0x03, 0x00, // empty final fixed-Huffman block
            0, 0, 0, 0, 0, 0, 0, 0 // CRC32 0, ISIZE 0
        ]
    );
    assert_eq!(gzip::decompress(&gz(b"", 6), 0).unwrap(), b"");
}

#[test]
fn compress_appends_and_decompress_into_appends() {
    let mut out = b"prefix".to_vec();
    gzip::compress(HELLO, 6, &mut out);
    assert_eq!(&out[..6], b"prefix");
    assert_eq!(gzip::decompress(&out[6..], 100).unwrap(), HELLO);

    let mut buf = b">".to_vec();
    gzip::decompress_into(&GNU_HELLO, 100, &mut buf).unwrap();
    assert_eq!(buf, b">hello, wirebench\n");
    // On error the buffer is restored to what it held before.
    let err = gzip::decompress_into(&GNU_HELLO, 5, &mut buf).unwrap_err();
    assert_eq!(
        err.to_string(),
        "gzip: decompressed data exceeds the limit of 5 bytes at byte 28"
    );
    assert_eq!(buf, b">hello, wirebench\n");
}

#[test]
fn reads_gnu_gzip_output() {
    assert_eq!(gzip::decompress(&GNU_HELLO, 1 << 20).unwrap(), HELLO);
}

/// A member with FTEXT, FEXTRA, FNAME, FCOMMENT and FHCRC, built by hand
/// around our own deflate stream.
fn every_header_field() -> Vec<u8> {
    let ours = gz(HELLO, 6);
    let deflate_and_trailer = &ours[10..];
    let mut m = vec![0x1f, 0x8b, 0x08, 0x1f, 0x00, 0xf1, 0x53, 0x65, 0x00, 0x03];
    m.extend_from_slice(&[4, 0, b'A', b'p', 0, 0]); // XLEN 4: subfield "Ap", length 0
    m.extend_from_slice(b"hello.txt\0");
    m.extend_from_slice(b"a comment\0");
    let hcrc = wirebench::crc32::crc32(&m) as u16;
    m.extend_from_slice(&hcrc.to_le_bytes());
    m.extend_from_slice(deflate_and_trailer);
    m
}

#[test]
fn reads_every_optional_header_field() {
    let m = every_header_field();
    assert_eq!(gzip::decompress(&m, 100).unwrap(), HELLO);
    // Concatenated members are one stream (RFC 1952 §2.2), each one checked.
    let mut two = m.clone();
    two.extend_from_slice(&GNU_HELLO);
    assert_eq!(gzip::decompress(&two, 100).unwrap(), [HELLO, HELLO].concat());
    assert_eq!(
        gzip::decompress(&two, 20).unwrap_err().to_string(),
        "gzip: decompressed data exceeds the limit of 20 bytes at byte 91"
    );
}

fn with(base: &[u8], edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut v = base.to_vec();
    edit(&mut v);
    v
}

#[test]
fn errors_say_what_and_where() {
    let g = &GNU_HELLO[..];
    let hand = every_header_field();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![], "unexpected end of input, expected gzip header at byte 0"),
        (
            g[..5].to_vec(),
            "unexpected end of input, expected 10-byte gzip header at byte 5",
        ),
        (
            with(g, |v| v[..2].copy_from_slice(b"PK")),
            "expected gzip magic 1f 8b, found 50 4b at byte 0",
        ),
        (
            with(g, |v| v[2] = 7),
            "unsupported compression method 7 (only 8 = deflate exists) at byte 2",
        ),
        (with(g, |v| v[3] |= 0x20), "reserved FLG bits set in 0x28 at byte 3"),
        (
            g[..15].to_vec(),
            "unexpected end of input, expected zero byte ending FNAME at byte 15",
        ),
        (
            with(&hand, |v| v[10] = 200),
            "unexpected end of input, expected FEXTRA field (XLEN bytes) at byte 65",
        ),
        (
            with(&hand, |v| v[30] ^= 1),
            "header CRC-16 mismatch: stored 0x25d3, computed 0xf676 at byte 36",
        ),
        (with(g, |v| v[20] = 0x07), "corrupt deflate data at byte 21"),
        (
            g[..30].to_vec(),
            "unexpected end of input, expected more deflate data (the stream ends before its final block) at byte 30",
        ),
        (
            g[..46].to_vec(),
            "unexpected end of input, expected 8-byte gzip trailer (CRC32, ISIZE) at byte 46",
        ),
        (
            with(g, |v| v[39] ^= 1),
            "CRC-32 mismatch: trailer says 0x171caa5e, data has 0x171caa5f at byte 39",
        ),
        (
            with(g, |v| v[43] = 18),
            "ISIZE mismatch: trailer says 18 bytes, data has 17 at byte 43",
        ),
        (
            with(g, |v| v.push(0)),
            "1 trailing bytes after the last gzip member at byte 47",
        ),
        (
            with(g, |v| v.extend_from_slice(b"garbage")),
            "7 trailing bytes after the last gzip member at byte 47",
        ),
        (
            with(g, |v| v.extend_from_slice(&[0x1f, 0x8b])),
            "unexpected end of input, expected 10-byte gzip header at byte 49",
        ),
    ];
    for (input, want) in cases {
        let got = gzip::decompress(&input, 1 << 20).map(|_| ()).unwrap_err().to_string();
        assert_eq!(got, format!("gzip: {want}"), "input {input:02x?}");
    }
}

#[test]
fn output_limit_is_exact() {
    let json = fixture_json(3);
    let packed = gz(&json, 6);
    assert_eq!(gzip::decompress(&packed, json.len()).unwrap(), json);
    let err = gzip::decompress(&packed, json.len() - 1).unwrap_err();
    assert_eq!(
        err.kind,
        gzip::GzipErrorKind::TooLarge {
            max_output: json.len() - 1
        }
    );
}

/// 64 MiB of zeros deflate to ~64 KiB; with a 1 MiB limit the reader stops at
/// the limit. The output buffer's capacity afterwards is the largest buffer
/// the reader grew to (`decompress_into` keeps it): about the limit, not 64 MiB.
#[test]
fn gzip_bomb_stops_at_the_limit() {
    let zeros = vec![0u8; 64 << 20];
    let packed = gz(&zeros, 1);
    drop(zeros);
    assert!(packed.len() < 1 << 20, "bomb is {} bytes", packed.len());
    let mut out = Vec::new();
    let err = gzip::decompress_into(&packed, 1 << 20, &mut out).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("gzip: decompressed data exceeds the limit of 1048576 bytes at byte "),
        "{err}"
    );
    assert!(out.is_empty());
    assert!(out.capacity() <= 2 << 20, "grew to {} bytes", out.capacity());
}

/// Every truncation of a member with header fields is an error; every single
/// byte change is an error or yields exactly the original data.
#[test]
fn every_truncation_and_byte_change_of_a_named_member() {
    for member in [GNU_HELLO.to_vec(), every_header_field()] {
        for cut in 0..member.len() {
            assert!(gzip::decompress(&member[..cut], 1 << 20).is_err(), "cut at {cut}");
        }
        let mut m = member.clone();
        for i in 0..member.len() {
            for v in 0..=255u8 {
                m[i] = v;
                match gzip::decompress(&m, 1 << 20) {
                    Ok(out) => assert_eq!(out, HELLO, "byte {i} = {v:#04x}"),
                    Err(_) => assert_ne!(v, member[i], "unchanged input rejected"),
                }
            }
            m[i] = member[i];
        }
    }
}

/// A reused [`gzip::Compressor`] writes exactly what a fresh one writes, member
/// after member (its deflate state is reset, not carried over), and its
/// default level is the server's level 6.
#[test]
fn reused_compressor_matches_a_fresh_one() {
    let long: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let inputs: [&[u8]; 5] = [b"", b"a", b"{\"message\":\"pong\"}", &long, b"a"];
    for level in [1, gzip::DEFAULT_LEVEL, 9] {
        let mut reused = gzip::Compressor::new(level);
        for data in inputs {
            let mut ours = Vec::new();
            reused.compress(data, &mut ours);
            let mut fresh = Vec::new();
            gzip::compress(data, level, &mut fresh);
            assert_eq!(ours, fresh, "level {level}, input of {} bytes", data.len());
            assert_eq!(gzip::decompress(&ours, 1 << 20).unwrap(), data);
        }
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    gzip::Compressor::default().compress(&long, &mut a);
    gzip::compress(&long, gzip::DEFAULT_LEVEL, &mut b);
    assert_eq!(a, b, "default level is DEFAULT_LEVEL");
}
