//! The schema-driven codecs on seeded random schemas and data
//! (`wirebench::generic::random`): every format round-trips every datum and
//! writes canonical bytes; the reference crates (serde_json, rmpv,
//! apache-avro) read our bytes back and write bytes we read back to the same
//! datum; every truncation and byte change of a sample is an error or a
//! datum, never a panic.

// apache-avro 0.22 deprecates from_avro_datum/to_avro_datum in favour of
// GenericDatumReader/Writer; they still read and write one bare datum.
#![allow(deprecated)]

use wirebench::codec::Format;
use wirebench::generic::{self, datum::Datum, random, schema::Schema};

const FORMATS: [Format; 3] = [Format::Json, Format::Msgpack, Format::Avro];
const SEEDS: u64 = 300;

fn enc(format: Format, schema: &Schema, d: &Datum) -> Vec<u8> {
    let mut out = Vec::new();
    generic::encode(format, schema, d, &mut out).unwrap_or_else(|e| panic!("{}: {e}", format.name()));
    out
}

#[test]
fn random_schemas_and_data_round_trip_in_every_format() {
    for seed in 0..SEEDS {
        let (text, schema) = random::schema(seed);
        for k in 0..4 {
            let d = random::datum(&schema, seed * 10 + k);
            for format in FORMATS {
                let bytes = enc(format, &schema, &d);
                let back = generic::decode(format, &schema, &bytes)
                    .unwrap_or_else(|e| panic!("seed {seed}/{k} {}: {e}\n{text}\n{d:?}", format.name()));
                assert_eq!(back, d, "seed {seed}/{k} {}\n{text}", format.name());
                assert_eq!(enc(format, &schema, &back), bytes, "seed {seed}/{k} {}", format.name());
            }
        }
    }
}

#[test]
fn self_test_round_trip_notices_a_changed_value() {
    // The round-trip comparison can fail: one changed byte reads as another datum.
    let schema = Schema::parse(br#"{"type":"record","name":"R","fields":[{"name":"a","type":"long"}]}"#).unwrap();
    let d = Datum::record(vec![("a".into(), Datum::Long(1))]);
    for format in FORMATS {
        let mut bytes = enc(format, &schema, &d);
        let last = bytes
            .iter()
            .rposition(|&b| b == b'1' || b == 0x01 || b == 0x02)
            .unwrap();
        bytes[last] += 1;
        let back = generic::decode(format, &schema, &bytes).unwrap();
        assert_ne!(back, d, "{}", format.name());
    }
}

fn serde_value_to_text(v: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

#[test]
fn serde_json_reads_our_json_and_we_read_its() {
    for seed in 0..SEEDS {
        let (text, schema) = random::schema(seed);
        let d = random::datum(&schema, seed);
        let ours = enc(Format::Json, &schema, &d);
        let v: serde_json::Value = serde_json::from_slice(&ours).unwrap_or_else(|e| {
            panic!(
                "seed {seed}: serde_json refuses our JSON: {e}\n{}",
                String::from_utf8_lossy(&ours)
            )
        });
        // serde_json writes its own spelling (map keys sorted, its float
        // digits); we read it back to the same datum.
        let theirs = serde_value_to_text(&v);
        let back = generic::decode(Format::Json, &schema, &theirs)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}\n{}", String::from_utf8_lossy(&theirs)));
        // serde_json without `float_roundtrip` may read a double one ulp off.
        assert!(
            same(&normalise_maps(&back), &normalise_maps(&d)),
            "seed {seed}\n{text}\n{back:?}\n{d:?}"
        );
    }
}

/// Equal, doubles within two ulps.
fn same(a: &Datum, b: &Datum) -> bool {
    if let (Some(x), Some(y)) = (a.array_items(), b.array_items()) {
        return x.len() == y.len() && x.iter().zip(y.iter()).all(|(x, y)| same(x, y));
    }
    match (a, b) {
        (Datum::Double(x), Datum::Double(y)) => x == y || (x.to_bits() as i64 - y.to_bits() as i64).abs() <= 2,
        (Datum::Union(i, x), Datum::Union(j, y)) => i == j && same(x, y),
        // A union's value and its bare form are one value (datum.rs).
        (Datum::Union(_, x), y) | (y, Datum::Union(_, x)) => same(x, y),
        (Datum::Map(x), Datum::Map(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, x), (l, y))| k == l && same(x, y))
        }
        (Datum::Record(x), Datum::Record(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, x), (l, y))| k == l && same(x, y))
        }
        _ => a == b,
    }
}

/// Map entries sorted by key (serde_json's `Value` map is a `BTreeMap`).
fn normalise_maps(d: &Datum) -> Datum {
    match d {
        Datum::Map(m) => {
            let mut m: Vec<(String, Datum)> = m.iter().map(|(k, v)| (k.clone(), normalise_maps(v))).collect();
            m.sort_by(|a, b| a.0.cmp(&b.0));
            Datum::Map(m)
        }
        Datum::Record(f) => Datum::Record(f.iter().map(|(k, v)| (k.clone(), normalise_maps(v))).collect()),
        Datum::Array(xs) => Datum::Array(xs.iter().map(normalise_maps).collect()),
        Datum::Union(i, v) => Datum::Union(*i, Box::new(normalise_maps(v))),
        other => other.clone(),
    }
}

#[test]
fn rmpv_reads_our_msgpack_and_writes_the_same_bytes() {
    for seed in 0..SEEDS {
        let (text, schema) = random::schema(seed);
        let d = random::datum(&schema, seed);
        let ours = enc(Format::Msgpack, &schema, &d);
        let v = rmpv::decode::read_value(&mut &ours[..]).unwrap_or_else(|e| panic!("seed {seed}: rmpv: {e}\n{text}"));
        let mut theirs = Vec::new();
        rmpv::encode::write_value(&mut theirs, &v).unwrap();
        assert_eq!(theirs, ours, "seed {seed}: rmpv writes other bytes\n{text}");
    }
}

#[test]
fn apache_avro_reads_our_avro_and_we_read_its() {
    for seed in 0..SEEDS {
        let (text, schema) = random::schema(seed);
        let d = random::datum(&schema, seed);
        let ours = enc(Format::Avro, &schema, &d);
        let theirs_schema =
            apache_avro::Schema::parse_str(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        let v = apache_avro::from_avro_datum(&theirs_schema, &mut &ours[..], None)
            .unwrap_or_else(|e| panic!("seed {seed}: apache-avro: {e}\n{text}"));
        // Its maps are hash maps: the entries come back in another order.
        let theirs = apache_avro::to_avro_datum(&theirs_schema, v).unwrap();
        let back =
            generic::decode(Format::Avro, &schema, &theirs).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(normalise_maps(&back), normalise_maps(&d), "seed {seed}\n{text}");
    }
}

#[test]
fn every_truncation_and_byte_change_is_an_error_or_a_datum() {
    for seed in 0..40 {
        let (_, schema) = random::schema(seed);
        let d = random::datum(&schema, seed);
        for format in FORMATS {
            let bytes = enc(format, &schema, &d);
            for cut in 0..bytes.len() {
                // A prefix that still decodes must be a whole value on its own.
                if let Ok(v) = generic::decode(format, &schema, &bytes[..cut]) {
                    let again = enc(format, &schema, &v);
                    assert!(
                        again.len() <= cut || format == Format::Json,
                        "seed {seed} {} cut {cut}",
                        format.name()
                    );
                }
            }
            for i in 0..bytes.len() {
                for flip in [0x01u8, 0x80, 0xff] {
                    let mut b = bytes.clone();
                    b[i] ^= flip;
                    if let Ok(v) = generic::decode(format, &schema, &b) {
                        // What decodes, encodes.
                        let mut out = Vec::new();
                        let _ = generic::encode(format, &schema, &v, &mut out);
                    }
                }
            }
        }
    }
}

#[test]
fn self_test_truncating_a_record_is_an_error() {
    let schema = Schema::parse(
        br#"{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]}"#,
    )
    .unwrap();
    let d = Datum::record(vec![
        ("a".into(), Datum::Long(300)),
        ("b".into(), Datum::String("xyz".into())),
    ]);
    for format in FORMATS {
        let bytes = enc(format, &schema, &d);
        for cut in 0..bytes.len() {
            assert!(
                generic::decode(format, &schema, &bytes[..cut]).is_err(),
                "{} cut {cut}",
                format.name()
            );
        }
    }
}

/// `Datum::Scalars` (the decoders' unboxed arrays of `int`, `long` and
/// `double`) is written by every encoder exactly as the same items boxed
/// in a `Datum::Array`: the same bytes, or the same error, including items
/// of another numeric type than the schema's; and the bytes read back.
#[test]
fn unboxed_arrays_are_written_as_their_boxed_items_in_every_format() {
    use wirebench::generic::datum::Scalars;
    let schema = Schema::parse(
        br#"{"type":"record","name":"R","fields":[
            {"name":"xs","type":{"type":"array","items":"double"}},
            {"name":"ls","type":{"type":"array","items":"long"}},
            {"name":"is","type":{"type":"array","items":"int"}},
            {"name":"o","type":["null",{"type":"array","items":"double"}]},
            {"name":"m","type":{"type":"map","values":{"type":"array","items":"long"}}}]}"#,
    )
    .unwrap();
    let record = |xs: Scalars, ls: Scalars, is: Scalars, boxed: bool| {
        let wrap = |s: Scalars| {
            if boxed {
                Datum::Array(s.to_datums())
            } else {
                Datum::Scalars(s)
            }
        };
        Datum::record(vec![
            ("xs".into(), wrap(xs.clone())),
            ("ls".into(), wrap(ls.clone())),
            ("is".into(), wrap(is)),
            ("o".into(), wrap(xs)),
            ("m".into(), Datum::Map(vec![("k".into(), wrap(ls))])),
        ])
    };
    let cases = [
        (
            Scalars::Double(vec![0.0, -0.0, 1.5, -2.25e-300, 1e300, f64::MIN_POSITIVE, 5e-324]),
            Scalars::Long(vec![0, -1, 1, 63, -64, 64, i64::MAX, i64::MIN]),
            Scalars::Int(vec![0, -1, 127, 128, -33, i32::MAX, i32::MIN]),
        ),
        (Scalars::Double(vec![]), Scalars::Long(vec![]), Scalars::Int(vec![])),
        // Items of another numeric type than the schema's.
        (
            Scalars::Long(vec![3]),
            Scalars::Int(vec![7, -7]),
            Scalars::Long(vec![1]),
        ),
        (
            Scalars::Double(vec![1.0, f64::NAN]),
            Scalars::Long(vec![5]),
            Scalars::Int(vec![2]),
        ),
    ];
    let mut written = 0;
    for (xs, ls, is) in cases {
        let unboxed = record(xs.clone(), ls.clone(), is.clone(), false);
        let boxed = record(xs, ls, is, true);
        for format in Format::ALL {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let ra = generic::encode(format, &schema, &unboxed, &mut a).map_err(|e| e.to_string());
            let rb = generic::encode(format, &schema, &boxed, &mut b).map_err(|e| e.to_string());
            assert_eq!(ra, rb, "{}: {unboxed}", format.name());
            assert_eq!(a, b, "{}: {unboxed}", format.name());
            if ra.is_ok() {
                let back = generic::decode(format, &schema, &a).unwrap_or_else(|e| panic!("{}: {e}", format.name()));
                let nan_free = !format!("{boxed}").contains("NaN");
                assert!(
                    !nan_free || back == boxed,
                    "{}: wrote {unboxed}, read {back}",
                    format.name()
                );
                written += 1;
            }
        }
    }
    // Every format wrote the first two cases; the check is not vacuous.
    assert!(written >= 10, "{written}");
}
