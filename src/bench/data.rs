//! `sizes --data FILE.json` and `codec-bench --data FILE.json`: the same
//! measurements on a user's own document, through the schema-driven codecs
//! of [`crate::generic`] (schema from `--schema S.avsc`, else inferred).
//!
//! `sizes --data` writes CSV (to stdout, or `--out FILE`), one row per
//! format: `format,raw_bytes,gzip1_bytes,gzip6_bytes,gzip9_bytes,encode_us,decode_us`.
//! Sizes are exact; the times are the median of `--reps` batches of at least
//! `--batch` each. `codec-bench --data` writes Go benchmark lines (to
//! stdout, or `--out FILE`; `make bench DATA=` names `data-codec.txt`) named `Data/{format}/encode` and
//! `Data/{format}/decode`, measured like the catalog's rows
//! ([`super::interleave`]). Formats without a schema-driven codec in the build
//! are skipped with a note on stderr.

use super::{Case, Line, calibrate_op, measure};
use crate::cli::{Args, parse_duration};
use crate::codec::Format;
use crate::generic::{self, input};
use crate::measure::stats::median;
use std::fmt::Write as _;
use std::hint::black_box;

/// The formats to measure: `--formats`, else every one with a codec.
fn formats(args: &mut Args) -> Result<Vec<Format>, String> {
    let asked = args.list::<Format>("--formats")?.unwrap_or(Format::ALL.to_vec());
    Ok(asked
        .into_iter()
        .filter(|&f| {
            let ok = generic::supports(f);
            if !ok {
                eprintln!("note: no schema-driven {} codec in this build; skipped", f.name());
            }
            ok
        })
        .collect())
}

/// `wirebench sizes --data FILE.json [--schema S.avsc] [--formats LIST] [--reps N] [--batch D] [--out FILE]`.
pub fn cli_sizes(data: &str, args: &mut Args) -> Result<(), String> {
    let schema = args.value("--schema")?;
    let formats = formats(args)?;
    let reps = args.parse_or("--reps", 5usize)?.max(1);
    let batch = parse_duration(&args.value("--batch")?.unwrap_or("5ms".into()))?;
    let out = args.value("--out")?.unwrap_or("-".into());
    let stamp = crate::measure::run::RunStamp::from_flag(args.value("--run-id")?)?;
    args.finish()?;
    let loaded = input::load(data, schema.as_deref())?;
    let mut csv = stamp.header("# ");
    csv += "format,raw_bytes,gzip1_bytes,gzip6_bytes,gzip9_bytes,encode_us,decode_us\n";
    for f in formats {
        let mut bytes = Vec::new();
        generic::encode(f, &loaded.schema, &loaded.datum, &mut bytes).map_err(|e| format!("{data}: {f}: {e}"))?;
        let gz = |level: u8| {
            let mut out = Vec::new();
            crate::gzip::compress(&bytes, level, &mut out);
            out.len()
        };
        let mut enc = || {
            let mut out = Vec::with_capacity(bytes.len());
            let r = generic::encode(f, &loaded.schema, black_box(&loaded.datum), &mut out);
            black_box((r.is_ok(), out));
        };
        let mut dec = || {
            black_box(generic::decode(f, &loaded.schema, black_box(&bytes)).is_ok());
        };
        let encode_us = per_op_us(batch, reps, &mut enc);
        let decode_us = per_op_us(batch, reps, &mut dec);
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{encode_us:.3},{decode_us:.3}",
            f.name(),
            bytes.len(),
            gz(1),
            gz(6),
            gz(9)
        );
    }
    csv += &crate::measure::run::RunStamp::footer("# ");
    crate::measure::results::write_output(&out, &csv)
}

/// Median µs per operation over `reps` batches of at least `batch`.
fn per_op_us(batch: std::time::Duration, reps: usize, op: &mut impl FnMut()) -> f64 {
    let n = calibrate_op(batch, op);
    let times: Vec<f64> = (0..reps).map(|_| measure(n, op).ns_per_op() / 1000.0).collect();
    median(&times).unwrap_or(0.0)
}

/// `wirebench codec-bench --data FILE.json [--schema S.avsc] [--formats LIST] [--benchtime D] [--count N] [--out FILE]`.
pub fn cli_codec_bench(data: &str, args: &mut Args) -> Result<(), String> {
    let schema = args.value("--schema")?;
    let formats = formats(args)?;
    let benchtime = parse_duration(&args.value("--benchtime")?.unwrap_or("300ms".into()))?;
    let count = args.parse_or("--count", 5usize)?.max(1);
    let out = args.value("--out")?.unwrap_or("-".into());
    let stamp = crate::measure::run::RunStamp::from_flag(args.value("--run-id")?)?;
    args.finish()?;
    let loaded = input::load(data, schema.as_deref())?;
    let environment = crate::measure::env::capture();
    let mut text = super::go_header(&environment.cpu);
    text += &stamp.header("");
    let _ = writeln!(text, "benchtime: {benchtime:?}\ncount: {count}\ndata: {data}");
    let mut encoded = Vec::new();
    for f in formats {
        let mut bytes = Vec::new();
        generic::encode(f, &loaded.schema, &loaded.datum, &mut bytes).map_err(|e| format!("{data}: {f}: {e}"))?;
        encoded.push((f, bytes));
    }
    // Every format's encode and decode, interleaved round by round (super::interleave).
    let loaded = &loaded;
    let mut cases = Vec::new();
    for (f, bytes) in &encoded {
        let f = *f;
        cases.push(Case::new(
            format!("Data/{}/encode", f.name()),
            bytes.len(),
            count,
            move || {
                let mut out = Vec::with_capacity(bytes.len());
                let r = generic::encode(f, &loaded.schema, black_box(&loaded.datum), &mut out);
                black_box((r.is_ok(), out));
            },
        ));
        cases.push(Case::new(
            format!("Data/{}/decode", f.name()),
            bytes.len(),
            count,
            move || {
                black_box(generic::decode(f, &loaded.schema, black_box(bytes)).is_ok());
            },
        ));
    }
    let (runs, samples) = super::interleave_calibrated(benchtime, &mut cases, |r, of| {
        eprintln!("codec-bench: data round {r} of {of} done")
    });
    for (c, rs) in cases.iter().zip(&runs) {
        for r in rs {
            let _ = writeln!(text, "{}", Line::from_run(&c.name, r, c.payload));
        }
    }
    text.extend(samples.iter().map(|s| s.line("")));
    text += &crate::measure::run::RunStamp::footer("");
    crate::measure::results::write_output(&out, &text)
}
