//! The decision table of `make bench DATA=FILE.json`: the user's own
//! document, measured through the schema-driven codecs into
//! `data-codec.txt` (`BenchmarkData/{format}/{encode|decode}` lines, Go
//! benchmark format) and `data-sizes.csv` (`format,raw_bytes,gzip1_bytes,
//! gzip6_bytes,…`); `super::decision::render_document` ranks it with the
//! statistics of the catalog's table, beside it.

/// The measured document: per format its batches and its exact sizes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    /// `data: FILE` from `data-codec.txt`, when given.
    pub source: Option<String>,
    /// (format, op, ns per operation of each batch; `cpu-ns/op` when present).
    pub batches: Vec<(String, String, Vec<f64>)>,
    /// (format, raw bytes, gzip -6 bytes).
    pub sizes: Vec<(String, f64, f64)>,
}

/// Reads the two files' text (either may be absent); None when both are.
pub fn read(codec: Option<&str>, sizes: Option<&str>) -> Result<Option<Document>, String> {
    if codec.is_none() && sizes.is_none() {
        return Ok(None);
    }
    let mut d = Document::default();
    for (i, line) in codec.unwrap_or("").lines().enumerate() {
        if let Some(src) = line.strip_prefix("data: ") {
            d.source = Some(src.trim().to_string());
        }
        let Some(rest) = line.strip_prefix("BenchmarkData/") else {
            continue;
        };
        let err = |what: &str| format!("data-codec.txt:{}: {what}", i + 1);
        let mut tokens = rest.split_whitespace();
        let name = tokens.next().ok_or_else(|| err("expected a row name"))?;
        let name = name.rsplit_once('-').map_or(name, |(n, _)| n);
        let (format, op) = name.split_once('/').ok_or_else(|| err("expected Data/FORMAT/OP"))?;
        let t: Vec<&str> = tokens.collect();
        let value = |unit: &str| {
            t.windows(2)
                .find(|w| w[1] == unit)
                .and_then(|w| w[0].parse::<f64>().ok())
        };
        let v = value("cpu-ns/op")
            .or_else(|| value("ns/op"))
            .ok_or_else(|| err("expected a number before ns/op"))?;
        match d.batches.iter_mut().find(|(f, o, _)| f == format && o == op) {
            Some((_, _, b)) => b.push(v),
            None => d.batches.push((format.to_string(), op.to_string(), vec![v])),
        }
    }
    let mut lines = sizes
        .unwrap_or("")
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#'));
    if let Some((_, header)) = lines.next() {
        let cols: Vec<&str> = header.split(',').collect();
        let col = |name: &str| {
            cols.iter()
                .position(|c| *c == name)
                .ok_or_else(|| format!("data-sizes.csv:1: expected a {name} column"))
        };
        let (f, raw, gz) = (col("format")?, col("raw_bytes")?, col("gzip6_bytes")?);
        for (i, l) in lines {
            let v: Vec<&str> = l.split(',').collect();
            let num = |k: usize| {
                v.get(k)
                    .and_then(|x| x.parse::<f64>().ok())
                    .ok_or_else(|| format!("data-sizes.csv:{}: expected a number in column {}", i + 1, cols[k]))
            };
            d.sizes.push((v.get(f).unwrap_or(&"").to_string(), num(raw)?, num(gz)?));
        }
    }
    Ok(Some(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_ranks_a_document() {
        let mut codec = String::from("data: fixtures/data/rpc.json\n");
        for i in 0..10 {
            let j = 4000 + i * 10;
            let a = 2000 + i * 10;
            codec +=
                &format!("BenchmarkData/json/encode-2\t100\t{j} ns/op\t1 MB/s\t0 B/op\t0 allocs/op\t{j} cpu-ns/op\n");
            codec +=
                &format!("BenchmarkData/avro/encode-2\t100\t{a} ns/op\t1 MB/s\t0 B/op\t0 allocs/op\t{a} cpu-ns/op\n");
        }
        let sizes = "format,raw_bytes,gzip1_bytes,gzip6_bytes,gzip9_bytes,encode_us,decode_us\njson,7424,3401,3312,3312,7.5,33.2\navro,5318,2976,3060,3060,3.4,14.5\n";
        let d = read(Some(&codec), Some(sizes)).unwrap().unwrap();
        assert_eq!(d.source.as_deref(), Some("fixtures/data/rpc.json"));
        assert_eq!(d.batches.len(), 2);
        assert_eq!(d.batches[0].2.len(), 10);
        let mut o = String::new();
        crate::report::decision::render_document(&mut o, &d);
        assert!(o.contains("your document (`fixtures/data/rpc.json`)"), "{o}");
        let line = |q: &str| o.lines().find(|l| l.contains(q)).unwrap_or("").to_string();
        assert!(
            line("smallest on the wire, raw").find("avro") < line("smallest on the wire, raw").find("json"),
            "{o}"
        );
        assert!(
            line("fastest encode").contains("avro") && line("fastest encode").contains('<'),
            "{o}"
        );
        assert!(!o.contains("fastest decode"), "no decode rows, no decode question");
        assert_eq!(read(None, None).unwrap(), None);
        assert!(
            read(Some("BenchmarkData/json-2 1 x ns/op\n"), None)
                .unwrap_err()
                .contains("data-codec.txt:1")
        );
    }
}
