//! The peers bench on a document payload (`--data`): the schema-driven
//! codecs of `wirebench::generic` beside the reference crates' dynamic
//! values, and on the catalog also beside the specialised catalog codecs.
//!
//! A payload is a JSON document with its schema: each `.json` file named by
//! `--data` (a directory: every `.json` in it), its schema inferred, or the
//! word `catalog`: `fixtures::catalog(N)` for each `--counts` N, read as
//! `schemas/catalog.avsc`.
//!
//! | format | ours | peer | target |
//! |---|---|---|---|
//! | JSON | `generic::json` encode / decode | serde_json `to_writer(&Value)` / `from_slice::<Value>` | ≥ 1.2× |
//! | MessagePack | `generic::msgpack` | rmpv `encode::write_value` / `decode::read_value` | ≥ 1.2× |
//! | Avro | `generic::avro` | apache-avro `to_avro_datum(Value)` / `from_avro_datum` | ≥ 2× |
//! | Protobuf | `generic::protobuf` | prost-reflect `DynamicMessage` (descriptors by protox from the derived `.proto`) | ≥ 1.0× |
//! | FlatBuffers | `generic::flatbuffers` | — (no generic peer: its figures stand alone) | — |
//! | catalog only: Protobuf, FlatBuffers | `generic::protobuf`, `generic::flatbuffers` | `Format::Protobuf`, `Format::Flatbuffers` (specialised) | ≥ 0.5× ("within 2×") |
//!
//! Each peer's value is built once from our bytes, outside the timing. Our
//! decoders validate against the schema; the peers' dynamic values do not
//! (serde_json, rmpv) or do (apache-avro, prost-reflect). The schema-driven
//! bytes follow the derived schema (docs/DATA-SCHEMAS.md), not the
//! hand-written `catalog.proto`/`.fbs`, so their sizes differ a little from
//! the specialised codecs'.
//!
//! Documents of at least [`NUMBER_TEXT_MIN`] doubles get two more JSON rows,
//! the part of the JSON work that is number text, alone: `dtoa` is our
//! spelling of each double (`float::text::double_into`) beside zmij's (the
//! formatter serde_json calls), `atof` our parse of those spellings
//! (`float::parse_or_std`, correctly rounded) beside
//! `serde_json::from_str::<f64>` (its default parse, best-effort: a comment
//! line counts the spellings it reads to another double than std's).

// apache-avro 0.22 deprecates its one-call datum functions in favour of
// GenericDatumReader/Writer; they do exactly the bare-datum work compared here.
#![allow(deprecated)]

use super::{Case, Ratio, Runner};
use prost::Message;
use std::hint::black_box;
use wirebench::codec::Format;
use wirebench::generic::{self, datum::Datum, derive, infer, schema::Schema};
use wirebench::model::Product;

/// One payload: a document, its schema, and for the catalog its products.
pub struct Doc {
    pub name: String,
    avsc: String,
    schema: Schema,
    datum: Datum,
    products: Option<Vec<Product>>,
}

/// The payloads `--data` names (see the module doc), in order.
pub fn docs(data: &[String], counts: &[usize]) -> Result<Vec<Doc>, String> {
    let mut out = Vec::new();
    for path in data {
        if path == "catalog" {
            let avsc = std::fs::read_to_string("schemas/catalog.avsc").map_err(|e| format!("catalog.avsc: {e}"))?;
            for &n in counts {
                let products = wirebench::fixtures::catalog(n).products;
                let mut text = Vec::new();
                Format::Json.encode(&products, &mut text).map_err(|e| e.to_string())?;
                out.push(doc(format!("catalog{n}"), &text, Some(avsc.clone()), Some(products))?);
            }
            continue;
        }
        let mut files = match std::fs::read_dir(path) {
            Ok(dir) => dir
                .filter_map(|e| e.ok())
                .map(|e| e.path().to_string_lossy().into_owned())
                .filter(|p| p.ends_with(".json"))
                .collect(),
            Err(_) => vec![path.clone()],
        };
        files.sort();
        for f in files {
            let text = std::fs::read(&f).map_err(|e| format!("{f}: {e}"))?;
            let name = f.rsplit('/').next().unwrap_or(&f).trim_end_matches(".json");
            out.push(doc(name.to_string(), &text, None, None).map_err(|e| format!("{f}: {e}"))?);
        }
    }
    Ok(out)
}

fn doc(name: String, text: &[u8], avsc: Option<String>, products: Option<Vec<Product>>) -> Result<Doc, String> {
    let avsc = match avsc {
        Some(a) => a,
        None => infer::infer(text).map_err(|e| e.to_string())?.schema,
    };
    let schema = Schema::parse(avsc.as_bytes()).map_err(|e| e.to_string())?;
    let datum = generic::json::decode(&schema, text).map_err(|e| e.to_string())?;
    Ok(Doc {
        name,
        avsc,
        schema,
        datum,
        products,
    })
}

/// A document with fewer doubles than this gets no `dtoa`/`atof` rows.
const NUMBER_TEXT_MIN: usize = 100;

/// Every double of `d`, in document order.
fn doubles(d: &Datum, out: &mut Vec<f64>) {
    match d {
        Datum::Double(v) => out.push(*v),
        Datum::Scalars(s) => out.extend(s.iter().filter_map(|x| match x {
            Datum::Double(v) => Some(v),
            _ => None,
        })),
        Datum::Union(_, v) => doubles(v, out),
        Datum::Array(items) => items.iter().for_each(|x| doubles(x, out)),
        Datum::Map(entries) => entries.iter().for_each(|(_, x)| doubles(x, out)),
        Datum::Record(fields) => fields.values().iter().for_each(|x| doubles(x, out)),
        _ => {}
    }
}

/// Ours beside one peer, interleaved: one summary row.
fn pair(r: &Runner, what: String, target: Option<f64>, ours: Case<'_>, peer: Case<'_>, out: &mut Vec<Ratio>) {
    let sides = r.group(vec![ours, peer]);
    out.push(Ratio::new(what, &sides[0], &sides[1], target));
}

/// The `dtoa` and `atof` rows (see the module doc) for a document of at
/// least [`NUMBER_TEXT_MIN`] finite doubles.
fn number_text_rows(r: &Runner, d: &Doc, out: &mut Vec<Ratio>) {
    use wirebench::codec::json::float::text::{TEXT_BUF, double_into};
    let mut vs = Vec::new();
    doubles(&d.datum, &mut vs);
    vs.retain(|v| v.is_finite());
    if vs.len() < NUMBER_TEXT_MIN {
        return;
    }
    let spellings: Vec<String> = vs
        .iter()
        .map(|&v| {
            let mut buf = [0u8; TEXT_BUF];
            let n = double_into(v, &mut buf);
            String::from_utf8_lossy(&buf[..n]).into_owned()
        })
        .collect();
    let bytes: usize = spellings.iter().map(String::len).sum();
    let (mut ours_out, mut theirs_out) = (Vec::with_capacity(bytes), Vec::with_capacity(bytes));
    let name = &d.name;
    let ours = Case::new(format!("Dtoa/json/{name}/ours"), bytes, Ok(()), || {
        ours_out.clear();
        let mut buf = [0u8; TEXT_BUF];
        for &v in black_box(&vs) {
            let n = double_into(v, &mut buf);
            ours_out.extend_from_slice(&buf[..n]);
        }
        black_box(&ours_out);
    });
    let peer = Case::new(format!("Dtoa/json/{name}/zmij"), bytes, Ok(()), || {
        theirs_out.clear();
        let mut buf = zmij::Buffer::new();
        for &v in black_box(&vs) {
            theirs_out.extend_from_slice(buf.format_finite(v).as_bytes());
        }
        black_box(&theirs_out);
    });
    let what = format!(
        "JSON dtoa, {name} ({} doubles): zmij (serde_json's formatter)",
        vs.len()
    );
    pair(r, what, Some(1.2), ours, peer, out);
    let ours = Case::new(format!("Atof/json/{name}/ours"), bytes, Ok(()), || {
        for t in black_box(&spellings) {
            black_box(wirebench::codec::json::float::parse_or_std(t));
        }
    });
    let peer = Case::new(format!("Atof/json/{name}/serde_json"), bytes, Ok(()), || {
        for t in black_box(&spellings) {
            black_box(serde_json::from_str::<f64>(t).ok());
        }
    });
    let inexact = spellings
        .iter()
        .filter(|t| serde_json::from_str::<f64>(t).ok() != t.parse::<f64>().ok())
        .count();
    let what = format!(
        "JSON atof, {name}: serde_json::from_str::<f64> (reads {inexact} of the shortest spellings to another double than std's)"
    );
    pair(r, what, Some(1.2), ours, peer, out);
}

/// Our schema-driven encoder of `f` on `d` as a case.
fn encode_case<'a>(f: Format, d: &'a Doc, bytes: &[u8]) -> Case<'a> {
    let mut out = Vec::with_capacity(bytes.len());
    Case::new(
        format!("Encode/{f}-schema/{}/ours", d.name),
        bytes.len(),
        Ok(()),
        move || {
            out.clear();
            generic::encode(f, &d.schema, black_box(&d.datum), &mut out).expect("encode");
        },
    )
}

/// Our schema-driven decoder of `f` on `bytes` as a case.
fn decode_case<'a>(f: Format, d: &'a Doc, bytes: &'a [u8]) -> Case<'a> {
    Case::new(
        format!("Decode/{f}-schema/{}/ours", d.name),
        bytes.len(),
        Ok(()),
        move || {
            black_box(generic::decode(f, &d.schema, black_box(bytes)).expect("decode"));
        },
    )
}

/// Every row of one document (see the module doc).
pub fn compare(r: &Runner, d: &Doc) -> Result<Vec<Ratio>, String> {
    let mut out = Vec::new();
    let enc = |f: Format| {
        let mut b = Vec::new();
        generic::encode(f, &d.schema, &d.datum, &mut b)
            .map(|()| b)
            .map_err(|e| format!("{}: {f}: {e}", d.name))
    };
    let name = &d.name;
    let row = |f: &str, op: &str, bytes: &[u8], peer: &str| format!("{f} {op}, {name} ({} B): {peer}", bytes.len());

    let json = enc(Format::Json)?;
    let value: serde_json::Value = serde_json::from_slice(&json).map_err(|e| e.to_string())?;
    let peer = Case::new(
        format!("Encode/json-schema/{name}/serde_json"),
        json.len(),
        Ok(()),
        || {
            let mut o = Vec::new();
            serde_json::to_writer(&mut o, black_box(&value)).expect("encode");
            black_box(o);
        },
    );
    let what = row("JSON", "encode", &json, "serde_json::Value");
    pair(r, what, Some(1.2), encode_case(Format::Json, d, &json), peer, &mut out);
    let peer = Case::new(
        format!("Decode/json-schema/{name}/serde_json"),
        json.len(),
        Ok(()),
        || {
            black_box(serde_json::from_slice::<serde_json::Value>(black_box(&json)).expect("decode"));
        },
    );
    let what = row("JSON", "decode", &json, "serde_json::Value");
    pair(r, what, Some(1.2), decode_case(Format::Json, d, &json), peer, &mut out);
    number_text_rows(r, d, &mut out);

    let mp = enc(Format::Msgpack)?;
    let value = rmpv::decode::read_value(&mut &mp[..]).map_err(|e| e.to_string())?;
    let peer = Case::new(format!("Encode/msgpack-schema/{name}/rmpv"), mp.len(), Ok(()), || {
        let mut o = Vec::new();
        rmpv::encode::write_value(&mut o, black_box(&value)).expect("encode");
        black_box(o);
    });
    let what = row("MessagePack", "encode", &mp, "rmpv::Value");
    pair(r, what, Some(1.2), encode_case(Format::Msgpack, d, &mp), peer, &mut out);
    let peer = Case::new(format!("Decode/msgpack-schema/{name}/rmpv"), mp.len(), Ok(()), || {
        black_box(rmpv::decode::read_value(&mut black_box(&mp[..])).expect("decode"));
    });
    let what = row("MessagePack", "decode", &mp, "rmpv::Value");
    pair(r, what, Some(1.2), decode_case(Format::Msgpack, d, &mp), peer, &mut out);

    let av = enc(Format::Avro)?;
    let aschema = apache_avro::Schema::parse_str(&d.avsc).map_err(|e| e.to_string())?;
    let value = apache_avro::from_avro_datum(&aschema, &mut &av[..], None).map_err(|e| e.to_string())?;
    let peer = Case::new(
        format!("Encode/avro-schema/{name}/apache-avro"),
        av.len(),
        Ok(()),
        || {
            black_box(apache_avro::to_avro_datum(&aschema, black_box(value.clone())).expect("encode"));
        },
    );
    let what = row("Avro", "encode", &av, "apache-avro Value (clone included)");
    pair(r, what, Some(2.0), encode_case(Format::Avro, d, &av), peer, &mut out);
    let peer = Case::new(
        format!("Decode/avro-schema/{name}/apache-avro"),
        av.len(),
        Ok(()),
        || {
            black_box(apache_avro::from_avro_datum(&aschema, &mut black_box(&av[..]), None).expect("decode"));
        },
    );
    let what = row("Avro", "decode", &av, "apache-avro Value");
    pair(r, what, Some(2.0), decode_case(Format::Avro, d, &av), peer, &mut out);

    let pb = enc(Format::Protobuf)?;
    let desc = dynamic_descriptor(&d.schema, name);
    let msg = desc
        .clone()
        .and_then(|desc| prost_reflect::DynamicMessage::decode(desc, pb.as_slice()).map_err(|e| e.to_string()));
    let probe = msg.as_ref().map(|_| ()).map_err(|e| format!("no peer: {e}"));
    let peer = Case::new(
        format!("Encode/protobuf-schema/{name}/prost-reflect"),
        pb.len(),
        probe.clone(),
        || {
            black_box(black_box(msg.as_ref().expect("probed")).encode_to_vec());
        },
    );
    let what = row("Protobuf", "encode", &pb, "prost-reflect DynamicMessage");
    pair(
        r,
        what,
        Some(1.0),
        encode_case(Format::Protobuf, d, &pb),
        peer,
        &mut out,
    );
    let peer = Case::new(
        format!("Decode/protobuf-schema/{name}/prost-reflect"),
        pb.len(),
        probe,
        || {
            let desc = desc.as_ref().expect("probed").clone();
            black_box(prost_reflect::DynamicMessage::decode(desc, black_box(pb.as_slice())).expect("decode"));
        },
    );
    let what = row("Protobuf", "decode", &pb, "prost-reflect DynamicMessage");
    pair(
        r,
        what,
        Some(1.0),
        decode_case(Format::Protobuf, d, &pb),
        peer,
        &mut out,
    );

    let fb = enc(Format::Flatbuffers)?;
    let sides = r.group(vec![
        encode_case(Format::Flatbuffers, d, &fb),
        decode_case(Format::Flatbuffers, d, &fb),
    ]);
    let none = Err("no generic peer".to_string());
    out.push(Ratio::new(
        row("FlatBuffers", "encode", &fb, "—"),
        &sides[0],
        &none,
        None,
    ));
    out.push(Ratio::new(
        row("FlatBuffers", "decode", &fb, "—"),
        &sides[1],
        &none,
        None,
    ));

    if let Some(products) = &d.products {
        for (f, ours) in [(Format::Protobuf, &pb), (Format::Flatbuffers, &fb)] {
            specialised(r, d, f, products, ours, &mut out)?;
        }
    }
    Ok(out)
}

/// The catalog's schema-driven codec of `f` beside its specialised one.
fn specialised(
    r: &Runner,
    d: &Doc,
    f: Format,
    products: &[Product],
    ours: &[u8],
    out: &mut Vec<Ratio>,
) -> Result<(), String> {
    let special = f.encode_to_vec(products).map_err(|e| e.to_string())?;
    let name = &d.name;
    let mut buf = Vec::with_capacity(special.len());
    let peer = Case::new(format!("Encode/{f}/{name}/specialised"), special.len(), Ok(()), || {
        buf.clear();
        f.encode(black_box(products), &mut buf).expect("encode");
    });
    let what = format!(
        "{f} encode, {name} ({} B; specialised {} B): specialised",
        ours.len(),
        special.len()
    );
    pair(r, what, Some(0.5), encode_case(f, d, ours), peer, out);
    let peer = Case::new(format!("Decode/{f}/{name}/specialised"), special.len(), Ok(()), || {
        black_box(f.decode(black_box(&special)).expect("decode"));
    });
    let what = format!("{f} decode, {name}: specialised");
    pair(r, what, Some(0.5), decode_case(f, d, ours), peer, out);
    Ok(())
}

/// The root message of the `.proto` derived from `schema`, compiled by protox.
fn dynamic_descriptor(schema: &Schema, tag: &str) -> Result<prost_reflect::MessageDescriptor, String> {
    let proto = derive::derive(schema, derive::Target::Proto)?;
    let dir = std::env::temp_dir().join(format!("wirebench-peers-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("doc.proto"), &proto).map_err(|e| e.to_string())?;
    let pool = protox::Compiler::new([&dir])
        .and_then(|mut c| c.open_file("doc.proto").map(|c| c.descriptor_pool()))
        .map_err(|e| format!("{e:?}"));
    let _ = std::fs::remove_dir_all(&dir);
    let root = proto
        .lines()
        .find_map(|l| l.strip_prefix("// Root message: "))
        .ok_or("no root message line")?;
    pool?
        .get_message_by_name(root)
        .ok_or_else(|| format!("no message {root}"))
}
