//! The `wirebench` binary: parses the subcommand and hands the rest of the
//! arguments to the module that owns it. No logic lives here.

use std::process::ExitCode;
use wirebench::cli::{self, Args};

/// Counts allocations only where `codec-bench` switches counting on, in its
/// untimed counting runs (B/op, allocs/op). `main` switches it off before
/// anything else, so `serve`, `load` and every timed loop run on `System`
/// plus one relaxed load per allocator call.
#[global_allocator]
static ALLOC: wirebench::measure::alloc::CountingAlloc = wirebench::measure::alloc::CountingAlloc::new();

const USAGE: &str = "\
wirebench — what each serialization format really costs on an HTTP path

USAGE: wirebench <COMMAND> [FLAGS]

COMMANDS:
  serve         run the catalog HTTP server (default 127.0.0.1:8090)
  load          HTTP load generator: closed loop, open loop (--rate), or --url
  codec-bench   codec microbenchmarks -> stdout or --out FILE
  sizes         raw and gzip payload sizes -> stdout or --out FILE
  report        --dir DIR: DIR/*.{txt,csv} -> DIR/REPORT.md, medians.json, charts
  compare       OLD_DIR NEW_DIR: row by row, medians, intervals, p-values (benchstat-like)
  ab            BASE_BIN NEW_BIN: two builds' codec rows in the same rounds, paired verdicts
  explain       annotated byte-by-byte dump of a payload
  evolve        schema evolution matrix: every step x format x direction
  decode        print a payload as plain JSON (any format with --schema)
  encode        encode a JSON document (--data) in a format, its schema given or inferred
  schema        schema infer FILE.json: the Avro schema of a JSON document;
                schema derive S.avsc --to proto|fbs: its .proto / .fbs
  fixtures      write fixtures/catalog.json (the canonical 1,000 products)
  digests       SHA-256 of every catalog body, from the fixture (for locust/)
  help          this text

Run `wirebench <COMMAND> --help` for the flags of one command.
";

fn main() -> ExitCode {
    wirebench::measure::alloc::set_counting(false);
    let mut argv = std::env::args().skip(1);
    let cmd = argv.next().unwrap_or_else(|| "help".to_string());
    let mut args = Args::new(argv);
    // `load` exits 1 when the runs completed but a request failed.
    let mut failed_requests = 0;
    let mut load = |args: &mut Args| wirebench::load::cli_main(args).map(|failed| failed_requests = failed);
    // `compare --fail-over` and `ab --fail-over` exit 1 when a significant
    // regression exceeds it.
    let mut regressed = false;
    let result = match cmd.as_str() {
        "serve" => wirebench::serve::cli_main(&mut args, wirebench::evolve::page_cells),
        "load" => load(&mut args),
        "bench" => {
            eprintln!("wirebench bench: renamed to `wirebench load` (same flags); running it");
            load(&mut args)
        }
        "codec-bench" => wirebench::bench::cli_codec_bench(&mut args),
        "sizes" => wirebench::bench::cli_sizes(&mut args),
        "report" => wirebench::report::cli_main(&mut args),
        "compare" => wirebench::compare::cli_main(&mut args).map(|r| regressed = r),
        "ab" => wirebench::compare::ab::cli_main(&mut args).map(|r| regressed = r),
        "explain" => wirebench::explain::cli_main(&mut args),
        "evolve" => wirebench::evolve::cli::cli_main(&mut args),
        "decode" => wirebench::evolve::decode::cli_main(&mut args),
        "encode" => wirebench::generic::cli::encode_main(&mut args),
        "schema" => wirebench::generic::cli::schema_main(&mut args),
        "fixtures" => wirebench::fixtures::cli_main(&mut args),
        "digests" => wirebench::digests::cli_main(&mut args),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown command {other:?}\n\n{USAGE}")),
    };
    match result {
        Ok(()) if regressed => ExitCode::from(cli::EXIT_FAILED_REQUESTS),
        Ok(()) if failed_requests > 0 => {
            eprintln!("wirebench {cmd}: {failed_requests} requests failed");
            ExitCode::from(cli::EXIT_FAILED_REQUESTS)
        }
        Ok(()) => ExitCode::from(cli::EXIT_OK),
        Err(msg) => {
            eprintln!("wirebench {cmd}: {msg}");
            ExitCode::from(cli::EXIT_USAGE)
        }
    }
}
