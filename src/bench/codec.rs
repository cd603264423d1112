//! `wirebench codec-bench`: encode/decode rows per format and count →
//! `results/codec.txt` (Go benchmark format, see [`super`]).
//!
//! Rows, for every count in `--counts` (default 1, 100, 1,000, 10,000):
//!
//! | row | what one operation is |
//! |---|---|
//! | `Encode/{fmt}/{n}` | `Format::encode` of the first n products into a reused, cleared buffer: what the server does per request, including building the FlatBuffers objects from our domain types |
//! | `Decode/{fmt}/{n}` | `Format::decode`: parse + validation + conversion to our domain types, and dropping them |
//! | `DecodeBorrowed/{fmt}/{n}` | `Format::decode_view`: the same parse and validation, every error the owned decoder finds, into a view that borrows the payload (no `String`, no `Vec`) |
//! | `Memcpy/{fmt}/{n}` | copying that format's payload into a preallocated buffer: the physical floor |
//! | `FlatbuffersVerify/{n}` | the FlatBuffers verifier alone |
//! | `FlatbuffersDirect/{n}` | verify + read every field in place, no conversion |
//! | `ProtobufDecodeGenerated/{n}` | prost decoding into its generated types only |
//! | `ProtobufEncodePrebuilt/{n}` | prost encoding of messages built before the timer started |
//!
//! With `--data FILE.json [--schema S.avsc]` the payload is your document
//! instead ([`crate::payload`], schema-driven codecs): rows
//! `Data/{fmt}/encode` and `Data/{fmt}/decode`, measured the same way, and a
//! `data: FILE` header line (`make bench DATA=` writes `data-codec.txt`).
//!
//! Counts above 1,000 are the scaling check: only Encode, Decode and
//! DecodeBorrowed run there,
//! with at most `--scale-count` (default 3) batches, to keep `make bench` short.
//!
//! Every row of every count is measured interleaved ([`super::interleave`]):
//! round after round, one batch of each row, so a row's batches span the
//! whole run. The lines are written when the last round is done, grouped
//! by row in the order above; stderr shows each round as it ends. Before
//! every [`super::CALIBRATE_EVERY`]-th batch of a round the calibration
//! workload is timed (`crate::measure::calibration`); its `calibration:`
//! lines follow the result lines.

use super::{Case, Line, hooks, load_products};
use crate::cli::{Args, parse_duration};
use crate::codec::Format;
use crate::model::Product;
use crate::payload::{Document, Payload};
use std::hint::black_box;
use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

const USAGE: &str = "\
wirebench codec-bench [FLAGS]
  --benchtime D      minimum time of one measured batch (default 300ms)
  --count N          batches (result lines) per row (default 5)
  --scale-count N    batches per row for counts above 1000 (default 3)
  --counts LIST      product counts (default 1,100,1000,10000)
  --formats LIST     formats (default all five)
  --fixture FILE     measure a catalog from FILE (JSON) instead of the generator
  --data FILE        measure any JSON document through the schema-driven codecs
                     (with --schema S.avsc, else its inferred schema) instead of
                     the catalog; --counts and --fixture do not apply
  --filter TEXT      run only the rows whose name contains TEXT (e.g. Decode/json/1000)
  --out FILE         output file, - for stdout (default: stdout; nothing is
                     written into results/ unless asked)
  --env FILE         also write environment.json here (default: beside --out; none for stdout)
  --run-id ID        the run this file belongs to (default: $WB_RUN_ID, else a fresh id)
  --processes P      spread the rounds over P processes run one after another,
                     each calibrating its rows again (default 1)
  --slow-row NAME=PCT  test hook for `wirebench ab`: row NAME runs PCT% more
                     iterations of its own operation inside every measured
                     batch than it reports, so it measures PCT% slower
";

pub fn cli_codec_bench(args: &mut Args) -> Result<(), String> {
    if args.switch("--help") {
        print!("{USAGE}");
        return Ok(());
    }
    let benchtime = parse_duration(&args.value("--benchtime")?.unwrap_or("300ms".into()))?;
    let count = args.parse_or("--count", 5usize)?.max(1);
    let scale_count = args.parse_or("--scale-count", 3usize)?.max(1);
    let counts = args.list::<usize>("--counts")?.unwrap_or(vec![1, 100, 1000, 10_000]);
    let formats = args.list::<Format>("--formats")?.unwrap_or(Format::ALL.to_vec());
    let fixture = args.value("--fixture")?;
    let filter = args.value("--filter")?;
    let out = args.value("--out")?.unwrap_or("-".into());
    let env = args.value("--env")?;
    let stamp = crate::measure::run::RunStamp::from_flag(args.value("--run-id")?)?;
    let processes = args.parse_or("--processes", 1usize)?.max(1);
    let slow = args.value("--slow-row")?;
    let slow_row = slow.as_deref().map(hooks::SlowRow::parse).transpose()?;
    let data = args.value("--data")?;
    let schema = args.value("--schema")?;
    args.finish()?;
    if counts.is_empty() || counts.contains(&0) {
        return Err("--counts: every count must be ≥ 1".into());
    }
    let payloads = match &data {
        Some(path) => {
            if fixture.is_some() {
                return Err("--data measures your document; --fixture is for the catalog".into());
            }
            vec![Payload::document(Document::load(path, schema.as_deref())?)]
        }
        None if schema.is_some() => return Err("--schema goes with --data FILE.json".into()),
        None => {
            let max = counts.iter().copied().max().unwrap_or(1);
            let catalog = Payload::catalog(Arc::new(load_products(fixture.as_deref(), max)?));
            counts.iter().filter_map(|&n| catalog.with_count(n)).collect()
        }
    };
    // A document's run goes beside the catalog's (`make bench DATA=`):
    // its environment.json only when asked.
    let env = env.or_else(|| data.as_ref().map(|_| "none".to_string()));
    let mut environment = crate::measure::env::capture();
    environment.run_id = stamp.id.clone();
    environment.run_start = stamp.start.clone();
    if let Some(path) = env_path(&out, env.as_deref()) {
        crate::measure::results::write_output(&path, &environment.to_json())?;
    }
    if !crate::measure::alloc::installed() {
        eprintln!("codec-bench: no counting allocator installed; B/op and allocs/op will read 0");
    }
    // Timed batches run with counting off; `bench` switches it on only for
    // its separate counting runs.
    crate::measure::alloc::set_counting(false);

    let mut sink = Sink::open(&out, filter)?;
    sink.write(&super::go_header(&environment.cpu))?;
    sink.write(&stamp.header(""))?;
    sink.write(&format!("benchtime: {benchtime:?}\ncount: {count}\n"))?;
    if let Some(data) = &data {
        sink.write(&format!("data: {data}\n"))?;
    }
    let start = Instant::now();
    if processes > 1 {
        sink.write(&format!("processes: {processes}\n"))?;
        let mut child_args = vec![
            "--benchtime".to_string(),
            format!("{}ns", benchtime.as_nanos()),
            "--counts".into(),
            counts.iter().map(usize::to_string).collect::<Vec<_>>().join(","),
            "--formats".into(),
            formats.iter().map(|f| f.name()).collect::<Vec<_>>().join(","),
            "--run-id".into(),
            stamp.id.clone(),
        ];
        for (flag, v) in [
            ("--fixture", &fixture),
            ("--filter", &sink.filter),
            ("--slow-row", &slow),
            ("--data", &data),
            ("--schema", &schema),
        ] {
            if let Some(v) = v {
                child_args.extend([flag.to_string(), v.clone()]);
            }
        }
        let exe = std::env::current_exe().map_err(|e| format!("codec-bench: which binary am I: {e}"))?;
        let shares = super::processes::split(count, scale_count.min(count), processes);
        let outputs = super::processes::run_children(&exe, &child_args, &shares)?;
        let merged = super::processes::merge(&outputs)?;
        for (name, lines) in &merged.rows {
            eprintln!(
                "codec-bench: {name:<38} {} batches from {} processes",
                lines.len(),
                shares.len()
            );
            sink.write(&lines.iter().map(|l| format!("{l}\n")).collect::<String>())?;
        }
        return sink.finish(&merged.calibration, start);
    }
    let mut cases = all_rows(&payloads, &formats, count, scale_count, sink.filter.clone());
    if let Some(slow) = slow_row {
        let case = cases
            .iter_mut()
            .find(|c| c.name == slow.name)
            .ok_or_else(|| format!("--slow-row: no row named {:?} among the rows run", slow.name))?;
        case.slow = Some(slow);
    }
    eprintln!(
        "codec-bench: calibrating {} rows to {benchtime:?}, then up to {count} interleaved rounds",
        cases.len()
    );
    let rounds = cases.iter().map(|c| c.batches).max().unwrap_or(0);
    let mut progress = crate::measure::progress::Progress::new(rounds);
    let (runs, samples) = super::interleave_calibrated(benchtime, &mut cases, |r, of| {
        eprintln!("codec-bench: {} round {r} of {of} done", progress.step())
    });
    for (c, r) in cases.iter().zip(&runs) {
        let lines: Vec<Line> = r.iter().map(|b| Line::from_run(&c.name, b, c.payload)).collect();
        sink.lines(&lines)?;
    }
    sink.finish(&samples, start)
}

/// Every row of each payload × `formats` in file order (module docs),
/// `count` batches each (`scale_count` above 1,000 products); `filter`
/// keeps the rows whose name contains it.
fn all_rows<'a>(
    payloads: &'a [Payload],
    formats: &[Format],
    count: usize,
    scale_count: usize,
    filter: Option<String>,
) -> Vec<Case<'a>> {
    let mut cases = Rows {
        cases: Vec::new(),
        filter,
    };
    for payload in payloads {
        let small = payload.products().is_none_or(|p| p.len() <= 1000);
        let batches = if small { count } else { scale_count.min(count) };
        for &f in formats {
            format_rows(&mut cases, batches, f, payload, small);
        }
        if let Some(products) = payload.products().filter(|_| small) {
            extra_rows(&mut cases, batches, formats, products);
        }
    }
    cases.cases
}

/// The names of the rows `codec-bench` runs on `payloads`, in file order
/// (what `wirebench ab` chooses from).
pub fn row_names(payloads: &[Payload]) -> Vec<String> {
    all_rows(payloads, &Format::ALL, 1, 1, None)
        .into_iter()
        .map(|c| c.name)
        .collect()
}

/// Where environment.json goes: `--env`, else beside a file output.
fn env_path(out: &str, env: Option<&str>) -> Option<String> {
    match env {
        Some("none") => None,
        Some(p) => Some(p.to_string()),
        None if out == "-" => None,
        None => {
            let dir = std::path::Path::new(out).parent().unwrap_or(std::path::Path::new(""));
            Some(dir.join("environment.json").to_string_lossy().into_owned())
        }
    }
}

/// Result lines go to the file row by row, with a short line per row to stderr.
struct Sink {
    out: Box<dyn Write>,
    path: String,
    /// `--filter`: only rows whose name contains it run.
    filter: Option<String>,
}

impl Sink {
    fn open(path: &str, filter: Option<String>) -> Result<Sink, String> {
        let out: Box<dyn Write> = if path == "-" {
            Box::new(std::io::stdout())
        } else {
            if let Some(dir) = std::path::Path::new(path)
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
            {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            Box::new(std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?)
        };
        Ok(Sink {
            out,
            path: path.to_string(),
            filter,
        })
    }

    fn write(&mut self, text: &str) -> Result<(), String> {
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| format!("{}: {e}", self.path))
    }

    fn lines(&mut self, lines: &[Line]) -> Result<(), String> {
        if let Some(first) = lines.first() {
            let ns: Vec<f64> = lines.iter().map(|l| l.ns_per_op).collect();
            let med = crate::measure::stats::median(&ns).unwrap_or(0.0);
            eprintln!(
                "codec-bench: {:<36} {:>12.0} ns/op (median of {})",
                first.name,
                med,
                lines.len()
            );
        }
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        self.write(&text)
    }

    /// The calibration lines and the run stamp's end lines.
    fn finish(mut self, samples: &[crate::measure::calibration::Sample], start: Instant) -> Result<(), String> {
        self.write(&samples.iter().map(|s| s.line("")).collect::<String>())?;
        eprintln!("codec-bench: done in {:.0?}", start.elapsed());
        self.write(&crate::measure::run::RunStamp::footer(""))
    }
}

/// The rows to measure, in file order; `--filter` leaves rows out.
struct Rows<'a> {
    cases: Vec<Case<'a>>,
    filter: Option<String>,
}

impl<'a> Rows<'a> {
    fn row(&mut self, batches: usize, name: String, payload: usize, op: impl FnMut() + 'a) {
        if self.filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            return;
        }
        self.cases.push(Case::new(name, payload, batches, op));
    }
}

fn skip(name: &str, why: &str) {
    eprintln!("codec-bench: skipping {name}: {why}");
}

/// Encode and Decode of one format, and for the catalog DecodeBorrowed and
/// (for small counts) Memcpy. A catalog's rows are named
/// `{Row}/{format}/{count}`, a document's `Data/{format}/{encode|decode}`.
fn format_rows<'a>(rows: &mut Rows<'a>, batches: usize, f: Format, payload: &'a Payload, small: bool) {
    let name = |row: &str| match payload.products() {
        Some(p) => format!("{row}/{f}/{}", p.len()),
        None => format!("Data/{f}/{}", row.to_lowercase()),
    };
    let bytes: Rc<[u8]> = match payload.encode_to_vec(f) {
        Ok(b) => b.into(),
        Err(e) => {
            skip(&name("Encode"), &format!("encode failed: {e}"));
            return;
        }
    };
    let len = bytes.len();

    let mut buf = Vec::with_capacity(len);
    rows.row(batches, name("Encode"), len, move || {
        buf.clear();
        payload.encode(f, &mut buf).expect("encode");
        assert_eq!(buf.len(), len);
        black_box(&buf);
    });

    let n = payload.products().map_or(1, <[Product]>::len);
    match payload.decode(f, &bytes) {
        Err(e) => skip(&name("Decode"), &e),
        Ok(got) if got != n => skip(&name("Decode"), "wrong product count"),
        Ok(_) => {
            let bytes = bytes.clone();
            rows.row(batches, name("Decode"), len, move || {
                let got = payload.decode(f, black_box(&bytes)).expect("decode");
                assert_eq!(got, n);
            })
        }
    }
    if payload.products().is_none() {
        return;
    }

    match f.decode_view(&bytes) {
        Err(e) => skip(&format!("DecodeBorrowed/{f}/{n}"), &e.to_string()),
        Ok(v) if v.len() != n => skip(&format!("DecodeBorrowed/{f}/{n}"), "wrong product count"),
        Ok(_) => {
            let bytes = bytes.clone();
            rows.row(batches, format!("DecodeBorrowed/{f}/{n}"), len, move || {
                let v = f.decode_view(black_box(&bytes)).expect("decode_view");
                assert_eq!(v.len(), n);
                black_box(v);
            })
        }
    }

    if small {
        let mut dst = vec![0u8; len];
        let last = bytes.last().copied();
        rows.row(batches, format!("Memcpy/{f}/{n}"), len, move || {
            dst.copy_from_slice(black_box(&bytes));
            assert_eq!(dst.last().copied(), last);
            black_box(&mut dst);
        });
    }
}

/// The rows that separate wire cost from conversion cost.
fn extra_rows<'a>(rows: &mut Rows<'a>, batches: usize, formats: &[Format], products: &'a [Product]) {
    let n = products.len();
    if formats.contains(&Format::Flatbuffers) {
        if let Ok(bytes) = Format::Flatbuffers.encode_to_vec(products) {
            let len = bytes.len();
            let name = format!("FlatbuffersVerify/{n}");
            match hooks::fb_verify(&bytes) {
                Err(e) => skip(&name, &e),
                Ok(()) => {
                    let bytes = bytes.clone();
                    rows.row(batches, name, len, move || {
                        hooks::fb_verify(black_box(&bytes)).expect("verify");
                    })
                }
            }
            let name = format!("FlatbuffersDirect/{n}");
            match hooks::fb_read_direct(&bytes) {
                Err(e) => skip(&name, &e),
                Ok(expected) => rows.row(batches, name, len, move || {
                    let sum = hooks::fb_read_direct(black_box(&bytes)).expect("read_direct");
                    assert_eq!(sum, expected);
                }),
            }
        }
    }
    if formats.contains(&Format::Protobuf) {
        if let Ok(bytes) = Format::Protobuf.encode_to_vec(products) {
            let len = bytes.len();
            let name = format!("ProtobufDecodeGenerated/{n}");
            match hooks::pb_decode_generated(&bytes) {
                Err(e) => skip(&name, &e),
                Ok(_) => rows.row(batches, name, len, move || {
                    let g = hooks::pb_decode_generated(black_box(&bytes)).expect("decode_generated");
                    assert_eq!(hooks::pb_len(&g), n);
                    black_box(g);
                }),
            }
            let name = format!("ProtobufEncodePrebuilt/{n}");
            let prebuilt = hooks::pb_to_generated(products).and_then(|g| {
                let mut probe = Vec::new();
                hooks::pb_encode_generated(&g, &mut probe)?;
                Ok((g, probe.len()))
            });
            match prebuilt {
                Err(e) => skip(&name, &e),
                Ok((g, glen)) => {
                    let mut buf = Vec::with_capacity(glen);
                    rows.row(batches, name, glen, move || {
                        buf.clear();
                        hooks::pb_encode_generated(black_box(&g), &mut buf).expect("encode_generated");
                        assert_eq!(buf.len(), glen);
                        black_box(&buf);
                    })
                }
            }
        }
    }
}
