//! The schema-driven Protobuf and FlatBuffers codecs (`src/generic/`):
//! round trips on seeded random schemas and datums, the proto3 presence
//! conventions, hostile input (truncations, byte flips, forged lengths,
//! depth), and errors that name the value and the offset.

mod support;

use support::random_schema::{SchemaGen, datum, same};
use wirebench::generic::datum::{Datum, Scalars};
use wirebench::generic::error::{GenericError, GenericErrorKind};
use wirebench::generic::schema::Schema;
use wirebench::generic::{flatbuffers as fbs, protobuf as pb};
use wirebench::prng::Rng;

type Encode = fn(&Schema, &Datum, &mut Vec<u8>) -> Result<(), GenericError>;
type Decode = fn(&Schema, &[u8]) -> Result<Datum, GenericError>;

const FORMATS: [(&str, Encode, Decode); 2] = [
    ("protobuf", pb::encode, pb::decode),
    ("flatbuffers", fbs::encode, fbs::decode),
];

/// (schema text, schema, datums) for seed `seed`.
fn sample(seed: u64) -> (String, Schema, Vec<Datum>) {
    let text = SchemaGen::new(seed).record(4);
    let schema = Schema::parse(text.as_bytes()).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
    let mut rng = Rng::new(seed ^ 0x5eed);
    let data = (0..4).map(|_| datum(&schema, schema.root(), &mut rng, 0)).collect();
    (text, schema, data)
}

#[test]
fn random_schemas_round_trip() {
    let mut checked = 0;
    for seed in 0..400 {
        let (text, schema, data) = sample(seed);
        for d in &data {
            for (name, enc, dec) in FORMATS {
                let mut out = Vec::new();
                enc(&schema, d, &mut out).unwrap_or_else(|e| panic!("{name} seed {seed}: encode: {e}\n{text}\n{d}"));
                let back =
                    dec(&schema, &out).unwrap_or_else(|e| panic!("{name} seed {seed}: decode: {e}\n{text}\n{d}"));
                assert!(same(d, &back), "{name} seed {seed}:\n{text}\nwrote {d}\nread  {back}");
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 400 * 4 * 2);
}

/// The comparison the round trip relies on can fail.
#[test]
fn same_tells_floats_apart_by_bits() {
    assert!(!same(&Datum::Double(0.0), &Datum::Double(-0.0)));
    assert!(same(&Datum::Float(f32::NAN), &Datum::Float(f32::NAN)));
    assert!(!same(
        &Datum::record(vec![("a".into(), Datum::Int(1))]),
        &Datum::record(vec![("a".into(), Datum::Int(2))])
    ));
    let nan = Datum::Scalars(Scalars::Double(vec![f64::NAN]));
    assert!(same(&nan, &Datum::Array(vec![Datum::Double(f64::NAN)])));
    assert!(!same(&nan, &Datum::Array(vec![Datum::Double(-f64::NAN)])));
    assert!(same(&Datum::Union(1, Box::new(nan.clone())), &nan));
    assert!(!same(&Datum::Union(1, Box::new(nan)), &Datum::Null));
}

fn schema(text: &str) -> Schema {
    Schema::parse(text.as_bytes()).unwrap()
}

const SCALARS: &str = r#"{"type":"record","name":"R","fields":[
    {"name":"b","type":"boolean"},{"name":"i","type":"int"},{"name":"l","type":"long"},
    {"name":"s","type":"string"},{"name":"d","type":"double"},
    {"name":"o","type":["null","long"]}]}"#;

fn scalars(b: bool, i: i32, l: i64, s: &str, d: f64, o: Option<i64>) -> Datum {
    Datum::record(vec![
        ("b".into(), Datum::Boolean(b)),
        ("i".into(), Datum::Int(i)),
        ("l".into(), Datum::Long(l)),
        ("s".into(), Datum::String(s.into())),
        ("d".into(), Datum::Double(d)),
        (
            "o".into(),
            match o {
                None => Datum::Union(0, Box::new(Datum::Null)),
                Some(v) => Datum::Union(1, Box::new(Datum::Long(v))),
            },
        ),
    ])
}

#[test]
fn proto3_defaults_are_not_written_and_optional_zero_is() {
    let s = schema(SCALARS);
    let mut out = Vec::new();
    pb::encode(&s, &scalars(false, 0, 0, "", 0.0, None), &mut out).unwrap();
    assert_eq!(out, b"");
    out.clear();
    pb::encode(&s, &scalars(false, 0, 0, "", 0.0, Some(0)), &mut out).unwrap();
    assert_eq!(out, [0x30, 0x00], "optional 0 is present: field 6, varint 0");
    out.clear();
    pb::encode(&s, &scalars(true, -1, 150, "ab", -0.0, None), &mut out).unwrap();
    let mut want = vec![0x08, 0x01, 0x10];
    want.extend([0xff; 9]);
    want.push(0x01);
    want.extend([0x18, 0x96, 0x01, 0x22, 0x02, b'a', b'b', 0x29]);
    want.extend((-0.0f64).to_le_bytes());
    assert_eq!(out, want);
    assert!(same(
        &pb::decode(&s, &out).unwrap(),
        &scalars(true, -1, 150, "ab", -0.0, None)
    ));
}

#[test]
fn flatbuffers_defaults_are_not_written_and_optional_zero_is() {
    let s = schema(SCALARS);
    let mut zero = Vec::new();
    fbs::encode(&s, &scalars(false, 0, 0, "", 0.0, None), &mut zero).unwrap();
    let mut some = Vec::new();
    fbs::encode(&s, &scalars(false, 0, 0, "", 0.0, Some(0)), &mut some).unwrap();
    assert!(
        some.len() > zero.len(),
        "the optional 0 takes room: {} vs {}",
        some.len(),
        zero.len()
    );
    assert_eq!(fbs::decode(&s, &some).unwrap(), scalars(false, 0, 0, "", 0.0, Some(0)));
    assert_eq!(fbs::decode(&s, &zero).unwrap(), scalars(false, 0, 0, "", 0.0, None));
}

#[test]
fn protobuf_reads_what_proto3_writers_may_write() {
    let s = schema(
        r#"{"type":"record","name":"R","fields":[
        {"name":"xs","type":{"type":"array","items":"int"}},
        {"name":"r","type":{"type":"record","name":"In","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]}},
        {"name":"u","type":["null","int","string"]},
        {"name":"m","type":{"type":"map","values":"int"}}]}"#,
    );
    let bytes = [
        0x08, 0x01, // xs unpacked: 1
        0x0a, 0x02, 0x02, 0x03, // xs packed: 2, 3
        0x12, 0x02, 0x08, 0x05, // r { a: 5 }
        0xf8, 0x01, 0x07, // unknown field 31, varint
        0x12, 0x02, 0x10, 0x06, // r { b: 6 }: merged
        0x18, 0x09, // u_int = 9
        0x22, 0x01, b'z', // u_string = "z": the last member wins
        0x2a, 0x05, 0x0a, 0x01, b'k', 0x10, 0x01, // m {k: 1}
        0x2a, 0x05, 0x0a, 0x01, b'k', 0x10, 0x02, // m {k: 2}: last value wins
        0x2a, 0x00, // m entry with key "" and value 0
    ];
    let d = pb::decode(&s, &bytes).unwrap();
    assert_eq!(
        d.to_json(),
        r#"{"xs":[1,2,3],"r":{"a":5,"b":6},"u":"z","m":{"k":2,"":0}}"#
    );
}

fn kind(r: Result<Datum, GenericError>) -> GenericError {
    r.expect_err("decoding must fail")
}

#[test]
fn protobuf_errors_name_pointer_and_offset() {
    let s = schema(
        r#"{"type":"record","name":"R","fields":[{"name":"items","type":{"type":"array","items":
        {"type":"record","name":"I","fields":[{"name":"name","type":"string"},{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}}]}}}]}"#,
    );
    // items[1].name is not UTF-8.
    let bytes = [0x0a, 0x00, 0x0a, 0x03, 0x0a, 0x01, 0xff];
    let e = kind(pb::decode(&s, &bytes));
    assert_eq!(
        (e.pointer.as_str(), e.offset, &e.kind),
        ("/items/1/name", Some(6), &GenericErrorKind::InvalidUtf8)
    );
    // items[0].e = 2 names no symbol.
    let e = kind(pb::decode(&s, &[0x0a, 0x02, 0x10, 0x02]));
    assert_eq!(e.pointer, "/items/0/e");
    assert!(e.to_string().contains("found 2"), "{e}");
    // A length beyond the input is refused before anything is sliced.
    let e = kind(pb::decode(&s, &[0x0a, 0xff, 0xff, 0xff, 0xff, 0x07]));
    assert!(
        matches!(e.kind, GenericErrorKind::LengthExceedsInput { len: 0x7fff_ffff, .. }),
        "{e}"
    );
    assert_eq!(e.offset, Some(1));
    // A packed double array whose length is not a multiple of 8.
    let ds =
        schema(r#"{"type":"record","name":"R","fields":[{"name":"xs","type":{"type":"array","items":"double"}}]}"#);
    let e = kind(pb::decode(&ds, &[0x0a, 0x07, 0, 0, 0, 0, 0, 0, 0]));
    assert_eq!((e.pointer.as_str(), e.offset), ("/xs", Some(2)), "{e}");
    let mut both = vec![0x0a, 0x08];
    both.extend(1.5f64.to_le_bytes());
    both.push(0x09);
    both.extend((-2.0f64).to_le_bytes());
    assert_eq!(
        pb::decode(&ds, &both).unwrap().to_json(),
        r#"{"xs":[1.5,-2.0]}"#,
        "packed then unpacked"
    );
    // A wire type other than the field's.
    let e = kind(pb::decode(&s, &[0x08, 0x01]));
    assert!(e.to_string().contains("wire type"), "{e}");
}

#[test]
fn depth_is_bounded() {
    let s = schema(r#"{"type":"record","name":"N","fields":[{"name":"next","type":["null","N"]}]}"#);
    // 200 nested messages: field 1 LEN wrapping the next.
    let mut bytes: Vec<u8> = Vec::new();
    for _ in 0..200 {
        let mut outer = vec![0x0a];
        let mut len = Vec::new();
        prost::encoding::encode_varint(bytes.len() as u64, &mut len);
        outer.extend(len);
        outer.extend(&bytes);
        bytes = outer;
    }
    let e = kind(pb::decode(&s, &bytes));
    assert!(matches!(e.kind, GenericErrorKind::DepthLimit { .. }), "{e}");
    // And the same depth as a datum, for both encoders.
    let mut d = Datum::record(vec![("next".into(), Datum::Union(0, Box::new(Datum::Null)))]);
    for _ in 0..200 {
        d = Datum::record(vec![("next".into(), Datum::Union(1, Box::new(d)))]);
    }
    for (name, enc, _) in FORMATS {
        let e = enc(&s, &d, &mut Vec::new()).expect_err(name);
        assert!(matches!(e.kind, GenericErrorKind::DepthLimit { .. }), "{name}: {e}");
    }
    // 50 deep is fine for both.
    let mut d = Datum::record(vec![("next".into(), Datum::Union(0, Box::new(Datum::Null)))]);
    for _ in 0..50 {
        d = Datum::record(vec![("next".into(), Datum::Union(1, Box::new(d)))]);
    }
    for (name, enc, dec) in FORMATS {
        let mut out = Vec::new();
        enc(&s, &d, &mut out).unwrap();
        assert_eq!(dec(&s, &out).unwrap(), d, "{name}");
    }
}

/// Every prefix and many single-byte changes of valid payloads decode or
/// fail cleanly (the test harness turns a panic into a failure).
#[test]
fn truncations_and_flips_never_panic() {
    let mut rng = Rng::new(7);
    let mut failures = [0usize; 2];
    for seed in 0..60 {
        let (_, schema, data) = sample(seed);
        for d in &data {
            for (f, (_, enc, dec)) in FORMATS.iter().enumerate() {
                let mut out = Vec::new();
                enc(&schema, d, &mut out).unwrap();
                for cut in 0..out.len() {
                    failures[f] += usize::from(dec(&schema, &out[..cut]).is_err());
                }
                for _ in 0..32 {
                    if out.is_empty() {
                        break;
                    }
                    let mut m = out.clone();
                    let i = rng.below(m.len() as u64) as usize;
                    m[i] ^= 1 << rng.below(8);
                    let _ = dec(&schema, &m);
                }
            }
        }
    }
    // Truncation must be caught somewhere (the checks can fail).
    assert!(failures[0] > 100 && failures[1] > 100, "{failures:?}");
}

#[test]
fn flatbuffers_rejects_forged_offsets_and_strings() {
    let s = schema(
        r#"{"type":"record","name":"R","fields":[{"name":"s","type":"string"},{"name":"xs","type":{"type":"array","items":"long"}}]}"#,
    );
    let d = Datum::record(vec![
        ("s".into(), Datum::String("hello".into())),
        ("xs".into(), Datum::Array(vec![Datum::Long(1), Datum::Long(2)])),
    ]);
    let mut out = Vec::new();
    fbs::encode(&s, &d, &mut out).unwrap();
    assert_eq!(fbs::decode(&s, &out).unwrap(), d);
    // Make the string invalid UTF-8.
    let at = out.windows(5).position(|w| w == b"hello").unwrap();
    let mut bad = out.clone();
    bad[at + 1] = 0xff;
    let e = kind(fbs::decode(&s, &bad));
    assert_eq!(
        (e.pointer.as_str(), &e.kind),
        ("/s", &GenericErrorKind::InvalidUtf8),
        "{e}"
    );
    // A root offset past the end.
    let mut bad = out.clone();
    bad[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(fbs::decode(&s, &bad).is_err());
    // The vector's count (2, before the longs 1 and 2) forged huge: refused
    // by the range check.
    let mut pattern = 2u32.to_le_bytes().to_vec();
    pattern.extend(1u64.to_le_bytes());
    let pos = out.windows(12).position(|w| w == pattern).unwrap();
    let mut bad = out.clone();
    bad[pos..pos + 4].copy_from_slice(&0x1000_0000u32.to_le_bytes());
    let e = kind(fbs::decode(&s, &bad));
    assert_eq!(e.pointer, "/xs", "{e}");
    assert!(fbs::decode(&s, &[]).is_err());
}

#[test]
fn encoders_name_the_value_that_does_not_fit() {
    let s = schema(r#"{"type":"record","name":"R","fields":[{"name":"xs","type":{"type":"array","items":"long"}}]}"#);
    let d = Datum::record(vec![(
        "xs".into(),
        Datum::Array(vec![Datum::Long(1), Datum::String("x".into())]),
    )]);
    for (name, enc, _) in FORMATS {
        let e = enc(&s, &d, &mut Vec::new()).expect_err(name);
        assert_eq!(e.pointer, "/xs/1", "{name}: {e}");
        assert!(e.to_string().contains("expected long, found string"), "{name}: {e}");
    }
    let missing = Datum::record(vec![]);
    for (name, enc, _) in FORMATS {
        let e = enc(&s, &missing, &mut Vec::new()).expect_err(name);
        assert_eq!(e.kind, GenericErrorKind::MissingField { field: "xs".into() }, "{name}");
    }
}

#[test]
fn non_record_roots_round_trip() {
    for text in [
        r#"{"type":"array","items":"double"}"#,
        r#"["null","string",{"type":"array","items":"int"}]"#,
        r#"{"type":"map","values":["null","long"]}"#,
        r#""string""#,
    ] {
        let s = schema(text);
        let mut rng = Rng::new(3);
        for _ in 0..20 {
            let d = datum(&s, s.root(), &mut rng, 0);
            for (name, enc, dec) in FORMATS {
                let mut out = Vec::new();
                enc(&s, &d, &mut out).unwrap();
                assert!(same(&dec(&s, &out).unwrap(), &d), "{name} {text} {d}");
            }
        }
    }
}
