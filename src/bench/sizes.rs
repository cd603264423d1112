//! `wirebench sizes`: raw and gzip payload sizes per format and count, and
//! what compressing costs in time, as CSV to stdout or `--out FILE`
//! (`make bench` writes `results/sizes.csv`).
//!
//! Columns: [`crate::measure::results::SIZES_HEADER`]. With `--data
//! FILE.json` the payload is your document ([`crate::payload`]) and the
//! columns are its own (`document_sizes`). The file opens with
//! the run stamp as `# key: value` comment lines and closes with its end
//! lines ([`crate::measure::run`]).
//!
//! Sizes are exact. Every time is per operation, over `--reps` batches
//! (default 6; at most 3 above 1,000 products), each calibrated to at least
//! `--batch` (default 5ms) like the codec harness: gzip of the raw payload
//! at levels 1, 6 (the server's default) and 9, and the client's side,
//! [`crate::gzip::decompress_into`] of that level's output. Each batch is
//! timed twice at once: wall time (`gzipL_us`, `gunzipL_us`, medians) and the
//! thread's on-CPU time (`gzipL_cpu_us`, `gunzipL_cpu_us`, medians, with
//! `gzipL_cpu_lo`/`_hi` the median's distribution-free 95% interval over the
//! batches; [`crate::measure::cpu::thread_cpu_ns`]; empty where the machine
//! has no thread clock): CPU time is what the report sets beside the server's
//! CPU per request, one kind for every level. Single-threaded, warm caches.
//! The encode is timed once, by the `Encode/{fmt}/{n}` row of `codec.txt`.

use super::calibrate;
use crate::cli::{Args, parse_duration};
use crate::codec::Format;
use crate::measure::stats::median;
use crate::payload::{Document, Payload};
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

const USAGE: &str = "\
wirebench sizes [FLAGS]
  --counts LIST    product counts (default 1,100,1000,10000)
  --formats LIST   formats (default all five)
  --reps N         timed batches per measurement; the median and its interval
                   are reported (default 6)
  --batch D        minimum time of one batch (default 5ms)
  --fixture FILE   measure a catalog from FILE (JSON) instead of the generator
  --data FILE      measure any JSON document through the schema-driven codecs
                   (with --schema S.avsc, else its inferred schema; --formats,
                   --reps, --batch, --out apply)
  --out FILE       output file, - for stdout (default: stdout; nothing is
                   written into results/ unless asked)
  --run-id ID      the run this file belongs to (default: $WB_RUN_ID, else a fresh id)
";

pub fn cli_sizes(args: &mut Args) -> Result<(), String> {
    if args.switch("--help") {
        print!("{USAGE}");
        return Ok(());
    }
    if let Some(data) = args.value("--data")? {
        return document_sizes(&data, args);
    }
    let counts = args.list::<usize>("--counts")?.unwrap_or(vec![1, 100, 1000, 10_000]);
    let formats = args.list::<Format>("--formats")?.unwrap_or(Format::ALL.to_vec());
    let reps = args.parse_or("--reps", 6usize)?.max(1);
    let batch = parse_duration(&args.value("--batch")?.unwrap_or("5ms".into()))?;
    let fixture = args.value("--fixture")?;
    let out = args.value("--out")?.unwrap_or("-".into());
    let stamp = crate::measure::run::RunStamp::from_flag(args.value("--run-id")?)?;
    args.finish()?;
    if counts.is_empty() || counts.contains(&0) {
        return Err("--counts: every count must be ≥ 1".into());
    }
    let max = counts.iter().copied().max().unwrap_or(1);
    let products = super::load_products(fixture.as_deref(), max)?;

    let mut csv = format!("{}{}\n", stamp.header("# "), crate::measure::results::SIZES_HEADER);
    let mut progress = crate::measure::progress::Progress::new(counts.len() * formats.len());
    for &n in &counts {
        for &f in &formats {
            let slice = &products[..n];
            let raw = match f.encode_to_vec(slice) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("sizes: {} skipping {f}/{n}: encode failed: {e}", progress.step());
                    continue;
                }
            };
            // Above 1,000 products one gzip -9 can take a second: fewer batches.
            let reps = if n > 1000 { reps.min(3) } else { reps };
            let mut gz = [0usize; 3];
            let mut zip = Vec::new();
            for (i, level) in [1u8, 6, 9].into_iter().enumerate() {
                let mut out = Vec::new();
                crate::gzip::compress(&raw, level, &mut out);
                gz[i] = out.len();
                zip.push(time(reps, batch, || {
                    out.clear();
                    crate::gzip::compress(black_box(&raw), level, &mut out);
                    assert_eq!(out.len(), gz[i]);
                }));
            }
            let mut unzip = Vec::new();
            for level in [1u8, 6, 9] {
                let mut gz_bytes = Vec::new();
                crate::gzip::compress(&raw, level, &mut gz_bytes);
                let mut back = Vec::with_capacity(raw.len());
                unzip.push(time(reps, batch, || {
                    back.clear();
                    crate::gzip::decompress_into(black_box(&gz_bytes), raw.len(), &mut back).expect("gunzip");
                    assert_eq!(back.len(), raw.len());
                }));
            }
            let per = |b: usize| b as f64 / n as f64;
            let cpu = |t: &Timing| t.cpu.map_or(String::new(), |c| format!("{:.3}", c.median));
            let ci = |t: &Timing| t.cpu.map_or(",".to_string(), |c| format!("{:.3},{:.3}", c.lo, c.hi));
            let _ = writeln!(
                csv,
                "{f},{n},{},{},{},{},{:.1},{:.1},{:.3},{:.3},{:.3},{},{:.3},{:.3},{:.3},{},{},{},{},{},{},{},{}",
                raw.len(),
                gz[0],
                gz[1],
                gz[2],
                per(raw.len()),
                per(gz[1]),
                zip[0].wall_us,
                zip[1].wall_us,
                zip[2].wall_us,
                cpu(&zip[1]),
                unzip[0].wall_us,
                unzip[1].wall_us,
                unzip[2].wall_us,
                cpu(&zip[0]),
                cpu(&zip[2]),
                ci(&zip[0]),
                ci(&zip[1]),
                ci(&zip[2]),
                cpu(&unzip[0]),
                cpu(&unzip[1]),
                cpu(&unzip[2]),
            );
            eprintln!(
                "sizes: {} {:<12} {n:>6}: raw {:>9} B, gzip6 {:>8} B, gzip6 {:>10.1} µs, gunzip6 {:>10.1} µs",
                progress.step(),
                f.name(),
                raw.len(),
                gz[1],
                zip[1].wall_us,
                unzip[1].wall_us
            );
        }
    }
    csv += &crate::measure::run::RunStamp::footer("# ");
    crate::measure::results::write_output(&out, &csv)
}

/// `sizes --data FILE.json [--schema S.avsc] [--formats LIST] [--reps N]
/// [--batch D] [--out FILE]`: one CSV row per format,
/// `format,raw_bytes,gzip1_bytes,gzip6_bytes,gzip9_bytes,encode_us,decode_us`
/// (`make bench DATA=` writes `data-sizes.csv`). Sizes are exact; the times
/// are the median of `--reps` batches of at least `--batch` each.
fn document_sizes(data: &str, args: &mut Args) -> Result<(), String> {
    let schema = args.value("--schema")?;
    let formats = args.list::<Format>("--formats")?.unwrap_or(Format::ALL.to_vec());
    let reps = args.parse_or("--reps", 5usize)?.max(1);
    let batch = parse_duration(&args.value("--batch")?.unwrap_or("5ms".into()))?;
    let out = args.value("--out")?.unwrap_or("-".into());
    let stamp = crate::measure::run::RunStamp::from_flag(args.value("--run-id")?)?;
    args.finish()?;
    let payload = Payload::document(Document::load(data, schema.as_deref())?);
    let mut csv = stamp.header("# ");
    csv += "format,raw_bytes,gzip1_bytes,gzip6_bytes,gzip9_bytes,encode_us,decode_us\n";
    for f in formats {
        let bytes = payload.encode_to_vec(f).map_err(|e| format!("{data}: {f}: {e}"))?;
        let gz = |level: u8| {
            let mut out = Vec::new();
            crate::gzip::compress(&bytes, level, &mut out);
            out.len()
        };
        let mut out = Vec::with_capacity(bytes.len());
        let encode_us = time(reps, batch, || {
            out.clear();
            black_box(payload.encode(f, &mut out).is_ok());
        })
        .wall_us;
        let decode_us = time(reps, batch, || {
            black_box(payload.decode(f, black_box(&bytes)).is_ok());
        })
        .wall_us;
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

/// One operation's times: the median wall µs per call over the batches,
/// and the on-CPU µs per call with its interval (None without a thread clock).
#[derive(Clone, Copy, Debug)]
struct Timing {
    wall_us: f64,
    cpu: Option<crate::measure::significance::MedianCi>,
}

/// Times `op` over `reps` batches, each calibrated to at least `batch`:
/// wall and on-CPU µs per call of every batch (module docs).
fn time(reps: usize, batch: Duration, mut op: impl FnMut()) -> Timing {
    let mut run = |n: u64| {
        let start = Instant::now();
        for _ in 0..n {
            op();
        }
        start.elapsed()
    };
    let (n, _) = calibrate(batch, &mut run);
    let mut wall = Vec::with_capacity(reps);
    let mut cpu = Vec::with_capacity(reps);
    for _ in 0..reps {
        let before = crate::measure::cpu::thread_cpu_ns();
        let w = run(n);
        let after = crate::measure::cpu::thread_cpu_ns();
        wall.push(w.as_secs_f64() * 1e6 / n as f64);
        if let (Some(a), Some(b)) = (before, after) {
            cpu.push(b.saturating_sub(a) as f64 / 1e3 / n as f64);
        }
    }
    let cpu = (cpu.len() == reps)
        .then(|| crate::measure::significance::median_ci(&cpu, crate::measure::significance::CONFIDENCE))
        .flatten();
    Timing {
        wall_us: median(&wall).unwrap_or(0.0),
        cpu,
    }
}
