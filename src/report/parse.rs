//! Parsers for the raw result files. Each is strict: a line it does not
//! understand is an [`Error`] naming the file and the 1-based line, because a
//! report silently built from half a file would be worse than none.
//!
//! | file | shape |
//! |---|---|
//! | `codec.txt` | Go benchmark format: `key: value` header lines, then `BenchmarkOp/format/count-P  N  x ns/op  [y MB/s]  z B/op  w allocs/op`, then `calibration:` lines ([`calibration`]) |
//! | `data-codec.txt` | the same, a document's rows named `BenchmarkData/format/encode` (op `Encode`, count 1) |
//! | `sizes.csv` | header [`SIZES_HEADER`] (or an older one starting like it) |
//! | `data-sizes.csv` | header [`DOCUMENT_SIZES_HEADER`]: one document (count 1, no gzip times) |
//! | `http*.csv` | header [`HTTP_HEADER`], 28 columns, one row per round (older files lack the [`HTTP_CPU_COLUMNS`] and/or `verify`: owned verification); `# calibration:` comments before the rows ([`calibration`]) |
//! | `histograms/*.hist` | `#` comments, then `low_ns high_ns count` per non-empty bucket |

pub use crate::measure::histogram::Histogram;
use std::fmt;

pub use crate::measure::results::{
    HTTP_CPU_COLUMNS, HTTP_ERROR_KINDS as ERROR_KINDS, HTTP_HEADER, HTTP_MACHINE_COLUMNS, SIZES_HEADER,
};

/// A raw file that could not be read: which file, which line, what was wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub file: String,
    /// 1-based; 0 when the problem is the file as a whole.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

/// A raw file's text, None when it does not exist.
pub fn read_optional(path: &std::path::Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// The error of `file` at `line`.
pub fn err(file: &str, line: usize, message: impl Into<String>) -> Error {
    Error {
        file: file.to_string(),
        line,
        message: message.into(),
    }
}

fn num<T: std::str::FromStr>(file: &str, line: usize, what: &str, s: &str) -> Result<T, Error> {
    s.trim()
        .parse::<T>()
        .map_err(|_| err(file, line, format!("{what}: expected a number, found {s:?}")))
}

/// One result line of `codec.txt`.
#[derive(Clone, Debug, PartialEq)]
pub struct CodecLine {
    /// `Encode`, `Decode`, `Memcpy`, `FlatbuffersDirect`, …
    pub op: String,
    /// The format measured (derived from the op name when it has no format part).
    pub format: String,
    pub count: usize,
    pub iters: u64,
    pub ns_per_op: f64,
    pub mb_per_s: Option<f64>,
    pub bytes_per_op: f64,
    pub allocs_per_op: f64,
    /// `cpu-ns/op`: on-CPU time of the benchmarking thread per operation, when recorded.
    pub cpu_ns_per_op: Option<f64>,
}

/// All of `codec.txt`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodecFile {
    /// `key: value` lines (`goos`, `cpu`, `benchtime`, …) in file order.
    pub header: Vec<(String, String)>,
    pub lines: Vec<CodecLine>,
    /// The `calibration:` lines (`crate::measure::calibration`), kept out of `header`.
    pub calibration: Vec<crate::measure::calibration::Sample>,
}

const FORMATS: [&str; 5] = ["json", "msgpack", "protobuf", "avro", "flatbuffers"];

/// Parses `codec.txt`; `file` names it in errors.
pub fn codec(file: &str, text: &str) -> Result<CodecFile, Error> {
    let mut out = CodecFile::default();
    for (i, raw) in text.lines().enumerate() {
        let ln = i + 1;
        let line = raw.trim();
        if line.is_empty() || line == "PASS" || line.starts_with("ok ") || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("Benchmark") {
            out.lines.push(codec_line(file, ln, rest)?);
        } else if let Some(sample) = crate::measure::calibration::parse_line(line) {
            out.calibration.push(sample.map_err(|e| err(file, ln, e))?);
        } else if let Some((k, v)) = line.split_once(':').filter(|(k, _)| !k.contains(char::is_whitespace)) {
            out.header.push((k.to_string(), v.trim().to_string()));
        } else {
            return Err(err(
                file,
                ln,
                format!("expected a `Benchmark…` result or a `key: value` line, found {line:?}"),
            ));
        }
    }
    Ok(out)
}

fn codec_line(file: &str, ln: usize, rest: &str) -> Result<CodecLine, Error> {
    let mut tokens = rest.split_whitespace();
    let full = tokens.next().unwrap_or("");
    // Strip the `-P` suffix.
    let name = match full.rsplit_once('-') {
        Some((n, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => full,
    };
    let parts: Vec<&str> = name.split('/').collect();
    let (op, format, count) = match parts.as_slice() {
        // A document's row (`codec-bench --data`): one document per operation.
        ["Data", fmt, op @ ("encode" | "decode")] => {
            (if *op == "encode" { "Encode" } else { "Decode" }, fmt.to_string(), "1")
        }
        [op, fmt, count] => (*op, fmt.to_string(), *count),
        [op, count] => {
            let lower = op.to_ascii_lowercase();
            let fmt = FORMATS.iter().find(|f| lower.starts_with(*f)).map_or("-", |f| f);
            (*op, fmt.to_string(), *count)
        }
        _ => {
            return Err(err(
                file,
                ln,
                format!("benchmark name {full:?}: expected Benchmark<Op>/<format>/<count>-<procs>"),
            ));
        }
    };
    if op.is_empty() {
        return Err(err(file, ln, format!("benchmark name {full:?} has no operation")));
    }
    let count = num::<usize>(file, ln, "product count in the name", count)?;
    let iters = num::<u64>(file, ln, "iterations", tokens.next().unwrap_or(""))?;
    let mut l = CodecLine {
        op: op.to_string(),
        format,
        count,
        iters,
        ns_per_op: f64::NAN,
        mb_per_s: None,
        bytes_per_op: 0.0,
        allocs_per_op: 0.0,
        cpu_ns_per_op: None,
    };
    let rest: Vec<&str> = tokens.collect();
    if rest.len() % 2 != 0 {
        return Err(err(file, ln, "expected `value unit` pairs after the iteration count"));
    }
    for pair in rest.chunks(2) {
        let v = num::<f64>(file, ln, pair[1], pair[0])?;
        match pair[1] {
            "ns/op" => l.ns_per_op = v,
            "MB/s" => l.mb_per_s = Some(v),
            "B/op" => l.bytes_per_op = v,
            "allocs/op" => l.allocs_per_op = v,
            "cpu-ns/op" => l.cpu_ns_per_op = Some(v),
            _ => {} // Go allows custom units; we keep the ones we know.
        }
    }
    if !l.ns_per_op.is_finite() {
        return Err(err(file, ln, "missing `ns/op` value"));
    }
    Ok(l)
}

/// One row of `sizes.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct SizeRow {
    pub format: String,
    pub count: usize,
    pub raw_bytes: u64,
    pub gzip1_bytes: u64,
    pub gzip6_bytes: u64,
    pub gzip9_bytes: u64,
    pub bytes_per_product_raw: f64,
    pub bytes_per_product_gzip6: f64,
    /// Wall µs per gzip -1, -6, -9 call; None for a document (`data-sizes.csv`).
    pub gzip_us: Option<[f64; 3]>,
    /// Encode time, in files written before run stamps.
    pub encode_us: Option<f64>,
    /// On-CPU µs per gzip -6 call; None when the file has no such column or it is empty.
    pub gzip6_cpu_us: Option<f64>,
    /// µs per gunzip of the level 1, 6 and 9 output; None in older files.
    pub gunzip_us: [Option<f64>; 3],
    /// On-CPU µs per gzip -1 and -9 call; None when not recorded.
    pub gzip1_cpu_us: Option<f64>,
    pub gzip9_cpu_us: Option<f64>,
    /// The 95% interval of the CPU µs of gzip -1, -6, -9 over batches
    /// (`gzipL_cpu_lo`, `gzipL_cpu_hi`); None when not recorded.
    pub gzip_cpu_ci: [Option<(f64, f64)>; 3],
    /// On-CPU µs per gunzip of the level 1, 6 and 9 output; None in older files.
    pub gunzip_cpu_us: [Option<f64>; 3],
}

impl SizeRow {
    /// On-CPU µs of gzip -1, -6, -9 when all three are recorded.
    pub fn gzip_cpu(&self) -> Option<[f64; 3]> {
        Some([self.gzip1_cpu_us?, self.gzip6_cpu_us?, self.gzip9_cpu_us?])
    }

    /// On-CPU µs of gunzip of the -1, -6, -9 output when all three are recorded.
    pub fn gunzip_cpu(&self) -> Option<[f64; 3]> {
        Some([self.gunzip_cpu_us[0]?, self.gunzip_cpu_us[1]?, self.gunzip_cpu_us[2]?])
    }
}

/// Splits a CSV line after checking the header; the callback builds a row.
fn csv<T>(
    file: &str,
    text: &str,
    header: &str,
    mut row: impl FnMut(usize, &[&str]) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with('#'));
    match lines.next() {
        Some((_, h)) if h.trim() == header => {}
        Some((i, h)) => return Err(err(file, i + 1, format!("expected the header {header:?}, found {h:?}"))),
        None => return Err(err(file, 0, "empty file: expected a header line")),
    }
    let columns = header.split(',').count();
    let mut out = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != columns {
            return Err(err(
                file,
                i + 1,
                format!("expected {columns} columns, found {}", fields.len()),
            ));
        }
        out.push(row(i + 1, &fields)?);
    }
    Ok(out)
}

/// A CSV file's header: its first line neither blank nor a `#` comment.
pub fn first_header(text: &str) -> Option<&str> {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
}

/// The exact header of `data-sizes.csv` (`sizes --data`): one document.
pub const DOCUMENT_SIZES_HEADER: &str = "format,raw_bytes,gzip1_bytes,gzip6_bytes,gzip9_bytes,encode_us,decode_us";

/// Parses `sizes.csv`: header [`SIZES_HEADER`] or an older one (columns by
/// name; its first 11 are required, the rest optional); or `data-sizes.csv`,
/// header [`DOCUMENT_SIZES_HEADER`] (count 1, bytes per "product" the whole
/// document's, no gzip times).
pub fn sizes(file: &str, text: &str) -> Result<Vec<SizeRow>, Error> {
    let Some(header) = first_header(text) else {
        return Err(err(file, 0, "empty file: expected a header line"));
    };
    let cols: Vec<&str> = header.split(',').collect();
    let document = header == DOCUMENT_SIZES_HEADER;
    let required: Vec<&str> = SIZES_HEADER.split(',').take(11).collect();
    if !document && (cols.len() < 11 || cols[..11] != required[..]) {
        return Err(err(
            file,
            1,
            format!("expected the header {SIZES_HEADER:?} (or an older one starting like it), found {header:?}"),
        ));
    }
    let at = |name: &str| cols.iter().position(|c| *c == name);
    csv(file, text, header, |ln, f| {
        let optional = |name: &str| -> Result<Option<f64>, Error> {
            match at(name).map(|i| f[i].trim()) {
                None | Some("") => Ok(None),
                Some(v) => num(file, ln, name, v).map(Some),
            }
        };
        // The columns `gzip1_…`, `gzip6_…`, `gzip9_…` of a name with `L` for the level.
        let levels = |name: &str| -> Result<[Option<f64>; 3], Error> {
            let at = |l: &str| optional(&name.replace('L', l));
            Ok([at("1")?, at("6")?, at("9")?])
        };
        // The header was checked: every column named here is in it.
        let field = |name: &str| at(name).map_or("", |i| f[i]);
        let req = |name: &str| num::<f64>(file, ln, name, field(name));
        let bytes = |name: &str| num::<u64>(file, ln, name, field(name));
        let (raw_bytes, gzip6_bytes) = (bytes("raw_bytes")?, bytes("gzip6_bytes")?);
        let (count, per_product) = if document {
            (1, [raw_bytes as f64, gzip6_bytes as f64])
        } else {
            (
                num(file, ln, "count", field("count"))?,
                [req("bytes_per_product_raw")?, req("bytes_per_product_gzip6")?],
            )
        };
        Ok(SizeRow {
            format: f[0].to_string(),
            count,
            raw_bytes,
            gzip1_bytes: bytes("gzip1_bytes")?,
            gzip6_bytes,
            gzip9_bytes: bytes("gzip9_bytes")?,
            bytes_per_product_raw: per_product[0],
            bytes_per_product_gzip6: per_product[1],
            gzip_us: if document {
                None
            } else {
                Some([req("gzip1_us")?, req("gzip6_us")?, req("gzip9_us")?])
            },
            encode_us: optional("encode_us")?,
            gzip6_cpu_us: optional("gzip6_cpu_us")?,
            gunzip_us: levels("gunzipL_us")?,
            gzip1_cpu_us: optional("gzip1_cpu_us")?,
            gzip9_cpu_us: optional("gzip9_cpu_us")?,
            gzip_cpu_ci: {
                let pair = |l: u8| -> Result<Option<(f64, f64)>, Error> {
                    Ok(optional(&format!("gzip{l}_cpu_lo"))?.zip(optional(&format!("gzip{l}_cpu_hi"))?))
                };
                [pair(1)?, pair(6)?, pair(9)?]
            },
            gunzip_cpu_us: levels("gunzipL_cpu_us")?,
        })
    })
}

/// One round of one case in `http*.csv`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HttpRow {
    pub round: u32,
    pub format: String,
    pub count: usize,
    pub compression: String,
    pub concurrency: u32,
    pub duration_s: f64,
    pub requests: u64,
    pub rps: f64,
    pub bytes_per_s: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
    /// connect, write, read, timeout, status, decode, mismatch.
    pub errors: [u64; 7],
    /// The [`HTTP_CPU_COLUMNS`]; None when the file has no CPU columns.
    pub cpu: Option<HttpCpu>,
    /// `borrowed`, `owned`, `FORMAT:…` or `status`; `owned` for files without the column.
    pub verify: String,
    /// Other work and steal on the machine during the round, in cores
    /// (`crate::measure::machine`); None in older files or when not measured.
    pub other_cores: Option<f64>,
    pub steal_cores: Option<f64>,
}

impl HttpRow {
    /// Other work or steal over `crate::measure::machine`'s limits (missing: none).
    pub fn machine_disturbed(&self) -> bool {
        crate::measure::machine::MachineLoad {
            other_cores: self.other_cores.unwrap_or(0.0),
            steal_cores: self.steal_cores.unwrap_or(0.0),
        }
        .disturbed()
    }

    /// The server's CPU µs per request, when recorded.
    pub fn server_cpu(&self) -> Option<f64> {
        self.cpu?.server_us_per_req
    }

    /// The client's CPU µs per request, when recorded.
    pub fn client_cpu(&self) -> Option<f64> {
        self.cpu?.client_us_per_req
    }
}

/// The CPU columns of one row; each None when that side was not measured (empty cell).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HttpCpu {
    pub server_us_per_req: Option<f64>,
    pub server_user_share: Option<f64>,
    pub client_us_per_req: Option<f64>,
    pub client_user_share: Option<f64>,
    pub process_us_per_req: Option<f64>,
}

/// Parses `http*.csv`: header [`HTTP_HEADER`], or an older one without the
/// machine, CPU and/or `verify` columns; columns are found by name.
pub fn http(file: &str, text: &str) -> Result<Vec<HttpRow>, Error> {
    let all: Vec<&str> = HTTP_HEADER.split(',').collect();
    let without = |drop_cpu: bool, drop_verify: bool, drop_machine: bool| -> Vec<&str> {
        all.iter()
            .copied()
            .filter(|c| {
                !(drop_cpu && HTTP_CPU_COLUMNS.contains(c)
                    || drop_verify && *c == "verify"
                    || drop_machine && HTTP_MACHINE_COLUMNS.contains(c))
            })
            .collect()
    };
    let Some(header) = first_header(text) else {
        return Err(err(file, 0, "empty file: expected a header line"));
    };
    let cols: Vec<&str> = header.split(',').collect();
    let accepted = [
        (false, false, false),
        (false, false, true),
        (true, false, true),
        (false, true, true),
        (true, true, true),
    ];
    if !accepted.iter().any(|&(c, v, m)| cols == without(c, v, m)) {
        return Err(err(
            file,
            1,
            format!(
                "expected the header {HTTP_HEADER:?} (or, from older runs, it without the machine columns, the CPU columns and/or `verify`), found {header:?}"
            ),
        ));
    }
    let has_machine = cols.contains(&HTTP_MACHINE_COLUMNS[0]);
    let has_cpu = cols.contains(&"server_cpu_us_per_req");
    let has_verify = cols.contains(&"verify");
    let at = |name: &str| cols.iter().position(|c| *c == name).expect("checked header");
    let errors_at = at("err_connect");
    csv(file, text, header, |ln, f| {
        let get = |name: &str| f[at(name)];
        let n = |name: &str| num::<f64>(file, ln, name, get(name));
        let optional = |name: &str| -> Result<Option<f64>, Error> {
            match get(name).trim() {
                "" => Ok(None),
                v => num::<f64>(file, ln, name, v).map(Some),
            }
        };
        let machine = |i: usize| {
            if has_machine {
                optional(HTTP_MACHINE_COLUMNS[i])
            } else {
                Ok(None)
            }
        };
        let mut errors = [0u64; 7];
        for (k, e) in errors.iter_mut().enumerate() {
            *e = num(file, ln, cols[errors_at + k], f[errors_at + k])?;
        }
        let cpu = if has_cpu {
            Some(HttpCpu {
                server_us_per_req: optional(HTTP_CPU_COLUMNS[0])?,
                server_user_share: optional(HTTP_CPU_COLUMNS[1])?,
                client_us_per_req: optional(HTTP_CPU_COLUMNS[2])?,
                client_user_share: optional(HTTP_CPU_COLUMNS[3])?,
                process_us_per_req: optional(HTTP_CPU_COLUMNS[4])?,
            })
        } else {
            None
        };
        Ok(HttpRow {
            round: num(file, ln, "round", get("round"))?,
            format: get("format").to_string(),
            count: num(file, ln, "count", get("count"))?,
            compression: get("compression").to_string(),
            concurrency: num(file, ln, "concurrency", get("concurrency"))?,
            duration_s: n("duration_s")?,
            requests: num(file, ln, "requests", get("requests"))?,
            rps: n("rps")?,
            bytes_per_s: n("bytes_per_s")?,
            p50_ms: n("p50_ms")?,
            p90_ms: n("p90_ms")?,
            p95_ms: n("p95_ms")?,
            p99_ms: n("p99_ms")?,
            p999_ms: n("p999_ms")?,
            max_ms: n("max_ms")?,
            errors,
            cpu,
            verify: if has_verify { get("verify") } else { "owned" }.to_string(),
            other_cores: machine(0)?,
            steal_cores: machine(1)?,
        })
    })
}

/// The calibration samples of any raw file (`calibration:` lines, `#
/// calibration:` comments); errors name the file and line.
pub fn calibration(file: &str, text: &str) -> Result<Vec<crate::measure::calibration::Sample>, Error> {
    crate::measure::calibration::read_all(text).map_err(|(ln, e)| err(file, ln, e))
}

/// Parses one `.hist` file ([`crate::measure::histogram`]'s text form); every
/// bucket must belong to that layout.
pub fn histogram(file: &str, text: &str) -> Result<Histogram, Error> {
    Histogram::read_text(text).map_err(|e| err(file, e.line, e.message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_line_with_and_without_format() {
        let f = codec(
            "c.txt",
            "goos: linux\ncpu: X: Y\nBenchmarkEncode/json/1000-2 \t 5000\t 237010 ns/op\t 714.05 MB/s\t 169241 B/op\t 3 allocs/op\nBenchmarkFlatbuffersDirect/100-2 10 5.5 ns/op 0 B/op 0 allocs/op\nPASS\n",
        )
        .unwrap();
        assert_eq!(f.header[1], ("cpu".to_string(), "X: Y".to_string()));
        assert_eq!(f.lines[0].op, "Encode");
        assert_eq!(f.lines[0].format, "json");
        assert_eq!(f.lines[0].mb_per_s, Some(714.05));
        assert_eq!(f.lines[1].format, "flatbuffers");
        assert_eq!(f.lines[1].count, 100);
        assert_eq!(f.lines[1].mb_per_s, None);
        assert_eq!(f.lines[0].cpu_ns_per_op, None);
        let f = codec(
            "c.txt",
            "BenchmarkDecode/avro/1000-2 10 5000 ns/op 0 B/op 0 allocs/op 2500 cpu-ns/op\n",
        )
        .unwrap();
        assert_eq!(f.lines[0].cpu_ns_per_op, Some(2500.0));
    }

    const ROW: &str = "1,json,1000,none,8,1.001,276,275.7,46000000,28.1,30.2,31.0,35.5,40.0,41.2,0,0,0,0,0,0,0";

    /// Every accepted header (older runs lack the machine, CPU and `verify`
    /// columns), an empty cell as "not measured", and the errors.
    #[test]
    fn http_files_of_every_accepted_header() {
        let without = |cpu: bool, verify: bool| {
            let cols: Vec<&str> = HTTP_HEADER
                .split(',')
                .filter(|c| {
                    !(cpu && HTTP_CPU_COLUMNS.contains(c)
                        || verify && *c == "verify"
                        || HTTP_MACHINE_COLUMNS.contains(c))
                })
                .collect();
            cols.join(",")
        };
        let base = http("h.csv", &format!("{}\n{ROW}\n", without(true, true))).unwrap();
        assert_eq!(
            (base[0].verify.as_str(), base[0].cpu, base[0].other_cores),
            ("owned", None, None)
        );
        let old = http("old.csv", &format!("{}\n{ROW},owned\n", without(true, false))).unwrap();
        assert_eq!((old[0].cpu, old[0].rps), (None, 275.7));
        let new = http(
            "new.csv",
            &format!("# run: R\n{HTTP_HEADER}\n{ROW},312.50,0.812,3401.20,0.930,3790.00,borrowed,0.250,0.010\n{ROW},,,3401.20,0.930,3401.90,borrowed,,\n# end: E\n"),
        )
        .unwrap();
        assert_eq!((new[0].verify.as_str(), new[0].rps), ("borrowed", 275.7));
        assert_eq!((new[0].other_cores, new[0].steal_cores), (Some(0.25), Some(0.01)));
        let cpu = new[0].cpu.unwrap();
        assert_eq!(cpu.server_us_per_req, Some(312.5));
        assert_eq!(cpu.client_user_share, Some(0.93));
        assert_eq!(cpu.process_us_per_req, Some(3790.0));
        assert_eq!(new[1].cpu.unwrap().server_us_per_req, None, "empty = not measured");
        assert!(http("h.csv", &format!("{HTTP_HEADER}\n{ROW}\n")).is_err());
        let e = http("bad.csv", &format!("{HTTP_HEADER}\n{ROW},x,,,,,borrowed,,\n")).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("server_cpu_us_per_req"), "{e}");
        assert!(http("bad.csv", &format!("{HTTP_HEADER},extra\n")).is_err());
    }
}
