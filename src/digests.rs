//! `wirebench digests`: the SHA-256 of every body the server sends for
//! `GET /catalog/{format}?count=N&compression=C`, computed locally from the
//! fixture, for load clients that check bodies byte for byte
//! (`locust/`, verification mode `digest`).
//!
//! The server's bodies are deterministic: the codec's encoding of the first N
//! products, gzipped by [`crate::gzip`] at [`crate::gzip::DEFAULT_LEVEL`]
//! (header MTIME 0) when asked. So the digest is computed here with the same
//! encoders, never asked of the server under test; `tests/digests.rs` checks
//! it against the bytes a real server sends over loopback.
//!
//! The file is CSV after `#` comment lines:
//!
//! ```text
//! # wirebench digests: SHA-256 of the body of GET /catalog/{format}?count={count}&compression={compression}
//! # fixture=fixtures/catalog.json products=1000 fixture_sha256=5d0c…
//! format,count,compression,bytes,sha256
//! json,1,none,612,0c6f…
//! ```

use crate::cli::Args;
use crate::codec::Format;
use crate::model::Product;
use crate::sha256::{hex, sha256};
use std::path::PathBuf;

const USAGE: &str = "\
wirebench digests — SHA-256 of every catalog body, from the fixture, for load clients

USAGE: wirebench digests [--fixture FILE] [--formats LIST] [--counts LIST]
                         [--compression LIST] [--out FILE]

  --fixture FILE       catalog JSON the server serves (default: fixtures/catalog.json)
  --formats LIST       json,msgpack,protobuf,avro,flatbuffers (default: all)
  --counts LIST        products per body (default: 1,10,100,1000; at most the fixture's)
  --compression LIST   none,gzip (default: both)
  --out FILE           write here instead of stdout
";

/// The column legend of the CSV.
pub const HEADER: &str = "format,count,compression,bytes,sha256";

/// One body's digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    pub format: Format,
    pub count: usize,
    pub gzip: bool,
    pub bytes: usize,
    pub sha256: [u8; 32],
}

/// The body the server sends for (format, count, gzip): the same encoder and
/// the same gzip level as `http::Scratch::encode`.
pub fn body(products: &[Product], format: Format, count: usize, gzip: bool) -> Result<Vec<u8>, String> {
    let n = count.min(products.len());
    let mut raw = Vec::new();
    format
        .encode(&products[..n], &mut raw)
        .map_err(|e| format!("encoding {} x{count} failed: {e}", format.name()))?;
    if !gzip {
        return Ok(raw);
    }
    let mut gz = Vec::new();
    crate::gzip::compress(&raw, crate::gzip::DEFAULT_LEVEL, &mut gz);
    Ok(gz)
}

/// Every (format, count, compression) digest, in that nesting order.
pub fn compute(
    products: &[Product],
    formats: &[Format],
    counts: &[usize],
    gzips: &[bool],
) -> Result<Vec<Digest>, String> {
    let mut out = Vec::new();
    for &format in formats {
        for &count in counts {
            if count == 0 || count > products.len() {
                return Err(format!(
                    "count {count} is outside 1..={} (the fixture's products)",
                    products.len()
                ));
            }
            for &gzip in gzips {
                let b = body(products, format, count, gzip)?;
                out.push(Digest {
                    format,
                    count,
                    gzip,
                    bytes: b.len(),
                    sha256: sha256(&b),
                });
            }
        }
    }
    Ok(out)
}

/// The digest file's text (module doc).
pub fn render(fixture: &str, products: usize, fixture_sha256: &[u8; 32], digests: &[Digest]) -> String {
    let mut s = String::from(
        "# wirebench digests: SHA-256 of the body of GET /catalog/{format}?count={count}&compression={compression}\n",
    );
    s += &format!(
        "# fixture={fixture} products={products} fixture_sha256={}\n",
        hex(fixture_sha256)
    );
    s += HEADER;
    s.push('\n');
    for d in digests {
        s += &format!(
            "{},{},{},{},{}\n",
            d.format.name(),
            d.count,
            if d.gzip { "gzip" } else { "none" },
            d.bytes,
            hex(&d.sha256)
        );
    }
    s
}

pub fn cli_main(args: &mut Args) -> Result<(), String> {
    if args.switch("--help") {
        print!("{USAGE}");
        return Ok(());
    }
    let fixture = args
        .value("--fixture")?
        .unwrap_or_else(|| crate::fixtures::CANONICAL_PATH.to_string());
    let formats = match args.list::<String>("--formats")? {
        None => Format::ALL.to_vec(),
        Some(names) => names
            .iter()
            .map(|n| {
                Format::from_name(n).ok_or_else(|| {
                    format!("--formats: unknown format {n:?}; allowed: json, msgpack, protobuf, avro, flatbuffers")
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    let counts = args
        .list::<usize>("--counts")?
        .unwrap_or_else(|| vec![1, 10, 100, 1000]);
    let gzips = match args.list::<String>("--compression")? {
        None => vec![false, true],
        Some(names) => names
            .iter()
            .map(|n| match n.as_str() {
                "none" => Ok(false),
                "gzip" => Ok(true),
                other => Err(format!("--compression: unknown {other:?}; allowed: none, gzip")),
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    let out = args.value("--out")?.map(PathBuf::from);
    args.finish()?;
    if formats.is_empty() || counts.is_empty() || gzips.is_empty() {
        return Err("--formats, --counts and --compression must not be empty".into());
    }
    let path = PathBuf::from(&fixture);
    let fixture_bytes = std::fs::read(&path).map_err(|e| format!("{fixture}: {e}"))?;
    let catalog = crate::fixtures::load_file(&path)?;
    let digests = compute(&catalog.products, &formats, &counts, &gzips)?;
    let text = render(&fixture, catalog.products.len(), &sha256(&fixture_bytes), &digests);
    match out {
        Some(p) => {
            std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))?;
            eprintln!("digests: wrote {} ({} bodies)", p.display(), digests.len());
        }
        None => print!("{text}"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_follow_the_bytes() {
        let products = crate::fixtures::catalog(3).products;
        let d = compute(&products, &[Format::Json, Format::Avro], &[1, 3], &[false, true]).unwrap();
        assert_eq!(d.len(), 8);
        let json1 = body(&products, Format::Json, 1, false).unwrap();
        assert_eq!(d[0].sha256, sha256(&json1));
        assert_eq!(d[0].bytes, json1.len());
        // gzip digests are of the compressed body, which gunzips to the raw one.
        let gz = body(&products, Format::Json, 1, true).unwrap();
        assert_eq!(crate::gzip::decompress(&gz, 1 << 20).unwrap(), json1);
        assert_eq!(d[1].sha256, sha256(&gz));
        // Different products, formats and counts give different digests.
        let mut other = products.clone();
        other[0].name.push('!');
        let o = compute(&other, &[Format::Json, Format::Avro], &[1, 3], &[false, true]).unwrap();
        for (a, b) in d.iter().zip(&o) {
            assert_ne!(a.sha256, b.sha256, "{:?} x{} gzip={}", a.format, a.count, a.gzip);
        }
        let all: std::collections::HashSet<_> = d.iter().map(|x| x.sha256).collect();
        assert_eq!(all.len(), d.len());
    }

    #[test]
    fn counts_outside_the_fixture_are_errors() {
        let products = crate::fixtures::catalog(3).products;
        let e = compute(&products, &[Format::Json], &[4], &[false]).unwrap_err();
        assert!(e.contains("count 4 is outside 1..=3"), "{e}");
        assert!(compute(&products, &[Format::Json], &[0], &[false]).is_err());
    }

    #[test]
    fn render_is_csv_after_comments() {
        let products = crate::fixtures::catalog(1).products;
        let d = compute(&products, &[Format::Msgpack], &[1], &[false]).unwrap();
        let text = render("x.json", 1, &[0; 32], &d);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[0].starts_with("# wirebench digests"));
        assert_eq!(lines[2], HEADER);
        assert!(lines[3].starts_with("msgpack,1,none,"));
        assert_eq!(lines[3].rsplit(',').next().unwrap(), hex(&d[0].sha256));
    }
}
