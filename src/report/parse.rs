//! Parsers for the raw result files. Each is strict: a line it does not
//! understand is an [`Error`] naming the file and the 1-based line, because a
//! report silently built from half a file would be worse than none.
//!
//! | file | shape |
//! |---|---|
//! | `codec.txt` | Go benchmark format: `key: value` header lines, then `BenchmarkOp/format/count-P  N  x ns/op  [y MB/s]  z B/op  w allocs/op` |
//! | `sizes.csv` | header [`SIZES_HEADER`], 12 columns |
//! | `http*.csv` | header [`HTTP_HEADER`], 22 columns, one row per round |
//! | `histograms/*.hist` | `#` comments, then `low_ns high_ns count` per non-empty bucket |

pub use crate::measure::histogram::Histogram;
use std::fmt;

pub use crate::measure::results::{HTTP_ERROR_KINDS as ERROR_KINDS, HTTP_HEADER, SIZES_HEADER};

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

fn err(file: &str, line: usize, message: impl Into<String>) -> Error {
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
}

/// All of `codec.txt`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodecFile {
    /// `key: value` lines (`goos`, `cpu`, `benchtime`, …) in file order.
    pub header: Vec<(String, String)>,
    pub lines: Vec<CodecLine>,
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
    pub gzip1_us: f64,
    pub gzip6_us: f64,
    pub gzip9_us: f64,
    pub encode_us: f64,
}

/// Splits a CSV line after checking the header; the callback builds a row.
fn csv<T>(
    file: &str,
    text: &str,
    header: &str,
    mut row: impl FnMut(usize, &[&str]) -> Result<T, Error>,
) -> Result<Vec<T>, Error> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.trim() == header => {}
        Some((_, h)) => return Err(err(file, 1, format!("expected the header {header:?}, found {h:?}"))),
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

/// Parses `sizes.csv`.
pub fn sizes(file: &str, text: &str) -> Result<Vec<SizeRow>, Error> {
    let h: Vec<&str> = SIZES_HEADER.split(',').collect();
    csv(file, text, SIZES_HEADER, |ln, f| {
        Ok(SizeRow {
            format: f[0].to_string(),
            count: num(file, ln, h[1], f[1])?,
            raw_bytes: num(file, ln, h[2], f[2])?,
            gzip1_bytes: num(file, ln, h[3], f[3])?,
            gzip6_bytes: num(file, ln, h[4], f[4])?,
            gzip9_bytes: num(file, ln, h[5], f[5])?,
            bytes_per_product_raw: num(file, ln, h[6], f[6])?,
            bytes_per_product_gzip6: num(file, ln, h[7], f[7])?,
            gzip1_us: num(file, ln, h[8], f[8])?,
            gzip6_us: num(file, ln, h[9], f[9])?,
            gzip9_us: num(file, ln, h[10], f[10])?,
            encode_us: num(file, ln, h[11], f[11])?,
        })
    })
}

/// One round of one case in `http*.csv`.
#[derive(Clone, Debug, PartialEq)]
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
}

/// Parses `http.csv` (or `http-gzip.csv`, `http-c1.csv`, …).
pub fn http(file: &str, text: &str) -> Result<Vec<HttpRow>, Error> {
    let h: Vec<&str> = HTTP_HEADER.split(',').collect();
    csv(file, text, HTTP_HEADER, |ln, f| {
        let mut errors = [0u64; 7];
        for (k, e) in errors.iter_mut().enumerate() {
            *e = num(file, ln, h[15 + k], f[15 + k])?;
        }
        Ok(HttpRow {
            round: num(file, ln, h[0], f[0])?,
            format: f[1].to_string(),
            count: num(file, ln, h[2], f[2])?,
            compression: f[3].to_string(),
            concurrency: num(file, ln, h[4], f[4])?,
            duration_s: num(file, ln, h[5], f[5])?,
            requests: num(file, ln, h[6], f[6])?,
            rps: num(file, ln, h[7], f[7])?,
            bytes_per_s: num(file, ln, h[8], f[8])?,
            p50_ms: num(file, ln, h[9], f[9])?,
            p90_ms: num(file, ln, h[10], f[10])?,
            p95_ms: num(file, ln, h[11], f[11])?,
            p99_ms: num(file, ln, h[12], f[12])?,
            p999_ms: num(file, ln, h[13], f[13])?,
            max_ms: num(file, ln, h[14], f[14])?,
            errors,
        })
    })
}

/// Parses one `.hist` file (the load generator's histogram text form,
/// [`crate::measure::histogram`]): every bucket must belong to that layout.
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
    }
}
