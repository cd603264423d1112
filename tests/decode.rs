//! `wirebench decode FORMAT FILE`, run as a process: plain JSON for every
//! format, any Avro schema with `--writer-schema`, resolution with
//! `--reader-schema`, and exit status 2 with the error when the schemas do
//! not resolve or the input is hostile.

mod support;
use std::path::PathBuf;
use std::process::Command;
use wirebench::codec::Format;
use wirebench::generic::datum::Datum;
use wirebench::generic::schema::Schema;

fn decode(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .arg("decode")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn every_format_prints_the_same_plain_json() {
    let scratch = support::scratch::Scratch::new("decode-every_format_prints_the_");
    let c = wirebench::fixtures::catalog(2);
    let mut outputs = Vec::new();
    for f in Format::ALL {
        let p = scratch.file(&format!("c.{}", f.extension()), f.encode_to_vec(&c.products).unwrap());
        let (code, out, err) = decode(&[f.name(), p.to_str().unwrap()]);
        assert_eq!(code, 0, "{f}: {err}");
        outputs.push(out);
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]), "{outputs:?}");
    let v: serde_json::Value = serde_json::from_str(&outputs[0]).unwrap();
    assert_eq!(v["products"][1]["sku"], "SKU-000002");
    assert_eq!(
        v["products"][0]["status"].as_str().unwrap().to_uppercase(),
        v["products"][0]["status"]
    );
}

#[test]
fn any_avro_schema_prints_plain_json() {
    let scratch = support::scratch::Scratch::new("decode-any_avro_schema_prints_p");
    let schema = r#"{"type":"record","name":"T","fields":[
        {"name":"b","type":"bytes"},
        {"name":"f","type":{"type":"fixed","name":"F","size":2}},
        {"name":"e","type":{"type":"enum","name":"E","symbols":["X","Y"]}},
        {"name":"u","type":["null","string"]},
        {"name":"m","type":{"type":"map","values":"float"}}]}"#;
    let s = Schema::parse(schema.as_bytes()).unwrap();
    let datum = Datum::record(vec![
        ("b".into(), Datum::Bytes(vec![0, 255])),
        ("f".into(), Datum::Fixed(vec![b'h', 0xe9])),
        ("e".into(), Datum::Enum(1, "Y".into())),
        ("u".into(), Datum::Union(1, Box::new(Datum::String("s".into())))),
        ("m".into(), Datum::Map(vec![("k".into(), Datum::Float(1.5))])),
    ]);
    let mut bytes = Vec::new();
    wirebench::generic::avro::encode(&s, &datum, &mut bytes).unwrap();
    let w = scratch.file("t.avsc", schema.as_bytes());
    let p = scratch.file("t.avro", &bytes);
    let (code, out, err) = decode(&["avro", p.to_str().unwrap(), "--writer-schema", w.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "{\"b\":\"\\u0000ÿ\",\"f\":\"hé\",\"e\":\"Y\",\"u\":\"s\",\"m\":{\"k\":1.5}}\n"
    );
    // A reader schema that promotes and defaults.
    let r = scratch.file(
        "r.avsc",
        br#"{"type":"record","name":"T","fields":[
            {"name":"m","type":{"type":"map","values":"double"}},
            {"name":"b","type":"string","default":""},
            {"name":"new","type":"long","default":7}]}"#,
    );
    let (code, out, err) = decode(&[
        "avro",
        p.to_str().unwrap(),
        "--writer-schema",
        w.to_str().unwrap(),
        "--reader-schema",
        r.to_str().unwrap(),
    ]);
    // bytes 00 ff are not UTF-8: bytes -> string refuses.
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("writer bytes promoted to a reader string are not valid UTF-8"),
        "{err}"
    );
}

#[test]
fn schemas_that_do_not_resolve_exit_2_with_the_field_path() {
    let scratch = support::scratch::Scratch::new("decode-schemas_that_do_not_reso");
    let cell = wirebench::evolve::run(
        wirebench::evolve::Step::WidenInt,
        wirebench::evolve::Row::Avro,
        wirebench::evolve::Direction::NewToOld,
    )
    .unwrap();
    let p = scratch.file("v2.avro", &cell.bytes);
    let root = env!("CARGO_MANIFEST_DIR");
    let v2 = format!("{root}/schemas/evolution/widen-int/catalog.avsc");
    let v1 = format!("{root}/schemas/catalog.avsc");
    let (code, _, err) = decode(&[
        "avro",
        p.to_str().unwrap(),
        "--writer-schema",
        &v2,
        "--reader-schema",
        &v1,
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("Catalog.products[].stock: writer type long cannot be read as reader type int"),
        "{err}"
    );
    let (code, out, _) = decode(&["avro", p.to_str().unwrap(), "--writer-schema", &v2]);
    assert_eq!(code, 0);
    assert!(out.contains("\"stock\":5000000000"), "{out}");
}

#[test]
fn hostile_schemas_and_payloads_are_errors() {
    let scratch = support::scratch::Scratch::new("decode-hostile_schemas_and_payl");
    let deep = scratch.file("deep.avsc", "[".repeat(100_000).as_bytes());
    let p = scratch.file("x.avro", [0xff; 64]);
    let (code, _, err) = decode(&["avro", p.to_str().unwrap(), "--writer-schema", deep.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("nesting deeper than 64 levels"), "{err}");
    let arr = scratch.file("a.avsc", br#"{"type":"array","items":"null"}"#);
    let huge = scratch.file("huge.avro", [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]);
    let (code, _, err) = decode(&["avro", huge.to_str().unwrap(), "--writer-schema", arr.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("exceeds what the input can justify"), "{err}");
    let (code, _, err) = decode(&["protobuf", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = decode(&["json", p.to_str().unwrap(), "--writer-schema", arr.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("for avro only"), "{err}");
}

/// Self-test of the scratch directories the tests write into: present while
/// in use, gone after a drop, also when the test panics.
#[test]
fn scratch_directories_are_removed_on_drop_and_on_panic() {
    let scratch = support::scratch::Scratch::new("decode-self-test");
    let p = scratch.file("x", b"1");
    assert!(p.is_file());
    let dir = scratch.path().to_path_buf();
    drop(scratch);
    assert!(!dir.exists(), "{} left behind", dir.display());
    let dir = std::sync::Mutex::new(PathBuf::new());
    let r = std::panic::catch_unwind(|| {
        let scratch = support::scratch::Scratch::new("decode-self-test-panic");
        *dir.lock().unwrap() = scratch.path().to_path_buf();
        panic!("deliberate");
    });
    assert!(r.is_err());
    let dir = dir.into_inner().unwrap();
    assert!(
        !dir.as_os_str().is_empty() && !dir.exists(),
        "{} left behind",
        dir.display()
    );
}
