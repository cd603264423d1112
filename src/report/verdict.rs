//! The verdict under the decision table, and the generated claims it and
//! the rest of the report's top make: every sentence here is computed from
//! the run's rows, and each claim has a test that feeds it data where the
//! claim is false.
//!
//! - **Ratios to JSON** ([`paired_ratio`]): HTTP figures paired by round
//!   (drift moves both sides of a ratio): the median of the per-round
//!   `x(format) ÷ x(json)` with its 95% interval. Bytes are exact ratios.
//! - **One quantity, one source**: server CPU per request and server-only
//!   throughput from [`SERVER_SOURCE`] (server pinned to one core), client
//!   CPU per request from [`CLIENT_SOURCE`] (end-to-end); never mixed.
//! - **One packet** ([`ONE_PACKET`]): a body of at most 1,448 bytes (MTU
//!   1,500 − IP 20 − TCP 20 − timestamps 12) goes in one packet whatever its
//!   format, so a smaller one saves no round trip.
//! - **Client libraries** ([`LIBRARIES`]): `docs/client-libraries.csv`
//!   (format, language, library, status, source), compiled in.

use super::inputs::{Data, formats};
use super::numfmt::{group, head, num, row};
use super::parse::HttpRow;
use crate::measure::significance::{self as sig, CONFIDENCE, MedianCi};
use std::fmt::Write as _;

/// Payload bytes of one full TCP segment on Ethernet (module docs).
pub const ONE_PACKET: u64 = 1_448;
/// Where server CPU per request and server-only throughput come from.
pub const SERVER_SOURCE: &str = "http-server.csv";
/// Where client CPU per request comes from.
pub const CLIENT_SOURCE: &str = "http.csv";
/// Encoding below this share of the server's CPU per request is "a small part".
pub const SMALL_SHARE: f64 = 0.10;
/// The committed client-library table.
pub const LIBRARIES: &str = include_str!("../../docs/client-libraries.csv");

/// The formats compared with JSON, in table order.
fn others() -> Vec<&'static str> {
    formats().into_iter().filter(|f| *f != "json").collect()
}

/// The rows' values paired by round: `out[f][i]` is `formats[f]`'s value in
/// the `i`-th round present among `rows` (ascending), NaN where it has none.
/// The one pairing of HTTP rows (ratios and the decision table's rankings).
pub fn by_round(rows: &[&HttpRow], formats: &[&str], get: impl Fn(&HttpRow) -> Option<f64>) -> Vec<Vec<f64>> {
    let rounds: std::collections::BTreeSet<u32> = rows.iter().map(|r| r.round).collect();
    formats
        .iter()
        .map(|f| {
            rounds
                .iter()
                .map(|&round| {
                    rows.iter()
                        .find(|r| r.format == *f && r.round == round)
                        .and_then(|r| get(r))
                        .unwrap_or(f64::NAN)
                })
                .collect()
        })
        .collect()
}

/// The values of `get` in `format`'s rows of `rs`.
pub fn samples(rs: &[&HttpRow], format: &str, get: impl Fn(&HttpRow) -> Option<f64>) -> Vec<f64> {
    rs.iter()
        .filter(|r| r.format == format)
        .filter_map(|r| get(r))
        .collect()
}

/// The median over rounds of `get(format) ÷ get(json)` with its interval;
/// None with fewer than two paired rounds.
pub fn paired_ratio(rows: &[&HttpRow], format: &str, get: impl Fn(&HttpRow) -> Option<f64>) -> Option<MedianCi> {
    let v = by_round(rows, &[format, "json"], get);
    let ratios: Vec<f64> = v[0]
        .iter()
        .zip(&v[1])
        .filter(|(x, y)| x.is_finite() && y.is_finite() && **x > 0.0 && **y > 0.0)
        .map(|(x, y)| x / y)
        .collect();
    if ratios.len() < 2 {
        return None;
    }
    sig::median_ci(&ratios, CONFIDENCE)
}

/// `0.72× [0.68, 0.75]`, with the real confidence when below 95%.
pub fn ratio_text(ci: &MedianCi) -> String {
    let mut s = format!("{:.2}× [{:.2}, {:.2}]", ci.median, ci.lo, ci.hi);
    if !ci.full_confidence() {
        let _ = write!(s, " ({:.0}%, n = {})", ci.confidence * 100.0, ci.n);
    }
    s
}

type Get = fn(&HttpRow) -> Option<f64>;

/// The timed questions of the verdict: label, file, getter.
pub const TIMED: [(&str, &str, Get); 4] = [
    (
        "server CPU per request (`http-server.csv`, pinned)",
        SERVER_SOURCE,
        HttpRow::server_cpu,
    ),
    (
        "client CPU per request (`http.csv`, end-to-end)",
        CLIENT_SOURCE,
        HttpRow::client_cpu,
    ),
    ("server-only throughput (`http-server.csv`)", SERVER_SOURCE, |r| {
        Some(r.rps)
    }),
    (
        "server CPU with gzip -6 (`http-gzip.csv`, end-to-end)",
        "http-gzip.csv",
        HttpRow::server_cpu,
    ),
];

/// Server CPU ratios to JSON at one count, per other format.
fn server_ratios(d: &Data, count: usize) -> Vec<(&'static str, Option<MedianCi>)> {
    let rows = d.file_rows(SERVER_SOURCE, count);
    others()
        .into_iter()
        .map(|f| (f, paired_ratio(&rows, f, TIMED[0].2)))
        .collect()
}

/// Encoding's share of the server's CPU per request at `count`, per format:
/// codec `Encode` median (CPU time when recorded) ÷ [`SERVER_SOURCE`]'s.
pub fn encode_shares(d: &Data, count: usize) -> Vec<(String, f64)> {
    let rows = d.file_rows(SERVER_SOURCE, count);
    formats()
        .into_iter()
        .filter_map(|f| {
            let enc = d.codec_stat("Encode", f, count)?;
            let enc_us = enc.cpu_ns_per_op.map_or(enc.ns_per_op.median, |s| s.median) / 1e3;
            let srv = crate::measure::stats::median(&samples(&rows, f, TIMED[0].2))?;
            (srv > 0.0).then(|| (f.to_string(), enc_us / srv))
        })
        .collect()
}

/// "The format does not matter here": encoding is under [`SMALL_SHARE`] of
/// the server's CPU and every server CPU ratio's interval includes 1; else None.
pub fn does_not_matter(count: usize, shares: &[(String, f64)], ratios: &[(&str, Option<MedianCi>)]) -> Option<String> {
    if shares.is_empty() || ratios.is_empty() {
        return None;
    }
    let lo = shares.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
    let hi = shares.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
    if hi >= SMALL_SHARE {
        return None;
    }
    let cis: Vec<&MedianCi> = ratios.iter().filter_map(|(_, c)| c.as_ref()).collect();
    if cis.len() != ratios.len() || !cis.iter().all(|c| c.lo <= 1.0 && c.hi >= 1.0) {
        return None;
    }
    let span_lo = cis.iter().map(|c| c.lo).fold(f64::INFINITY, f64::min);
    let span_hi = cis.iter().map(|c| c.hi).fold(f64::NEG_INFINITY, f64::max);
    Some(format!(
        "at {}, encoding is {:.0}–{:.0}% of the server's CPU per request and every format's server CPU is within [{span_lo:.2}, {span_hi:.2}]× JSON's (each interval includes 1): the format does not matter there",
        super::numfmt::products(count),
        lo * 100.0,
        hi * 100.0
    ))
}

/// The small-payload claim: JSON's body fits in one packet (else None), and
/// which formats' server CPU is lower.
pub fn small_payload(count: usize, json_raw: u64, ratios: &[(&str, Option<MedianCi>)]) -> Option<String> {
    if json_raw > ONE_PACKET {
        return None;
    }
    let cheaper: Vec<String> = ratios
        .iter()
        .filter_map(|(f, c)| {
            c.as_ref()
                .filter(|c| c.hi < 1.0)
                .map(|c| format!("{f} {}", ratio_text(c)))
        })
        .collect();
    let cpu = if cheaper.is_empty() {
        "and no format's server CPU is shown to be lower than JSON's".to_string()
    } else {
        format!("though server CPU is lower for {}", cheaper.join(", "))
    };
    Some(format!(
        "at {}, JSON's {}-byte body fits in one packet ({} bytes), so a smaller format saves no round trip, {cpu}",
        super::numfmt::products(count),
        group(json_raw as i64),
        group(ONE_PACKET as i64)
    ))
}

/// One row of `docs/client-libraries.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Library {
    pub format: String,
    pub language: String,
    pub library: String,
    pub status: String,
    pub source: String,
}

/// The statuses a row may have, best first.
pub const STATUSES: [&str; 5] = ["built-in", "official", "de-facto", "community", "none"];

/// Parses the client-library table; an error names the line.
pub fn libraries(text: &str) -> Result<Vec<Library>, String> {
    let mut out = Vec::new();
    let mut header = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !header {
            if line != "format,language,library,status,source" {
                return Err(format!("client-libraries.csv:{}: unexpected header {line:?}", i + 1));
            }
            header = true;
            continue;
        }
        let v: Vec<&str> = line.split(',').collect();
        if v.len() != 5 || v.iter().any(|c| c.trim().is_empty()) {
            return Err(format!("client-libraries.csv:{}: expected 5 non-empty columns", i + 1));
        }
        if !STATUSES.contains(&v[3]) {
            return Err(format!("client-libraries.csv:{}: unknown status {:?}", i + 1, v[3]));
        }
        out.push(Library {
            format: v[0].into(),
            language: v[1].into(),
            library: v[2].into(),
            status: v[3].into(),
            source: v[4].into(),
        });
    }
    Ok(out)
}

/// Per format, how many languages have a built-in or official library, of how many listed.
pub fn library_counts(libs: &[Library], format: &str) -> (usize, usize, usize) {
    let mine: Vec<&Library> = libs.iter().filter(|l| l.format == format).collect();
    let builtin = mine.iter().filter(|l| l.status == "built-in").count();
    let official = mine
        .iter()
        .filter(|l| l.status == "built-in" || l.status == "official")
        .count();
    (builtin, official, mine.len())
}

/// The client-library table: languages down, formats across.
pub fn library_table(o: &mut String) {
    let libs = match libraries(LIBRARIES) {
        Ok(l) => l,
        Err(e) => {
            let _ = writeln!(o, "\nClient libraries: {e}.");
            return;
        }
    };
    let formats = formats();
    o.push_str("\nClient libraries (`docs/client-libraries.csv`, each row with its source): *built-in* = standard library or runtime, *official* = the format's own project, *de-facto* = the community library most use.\n\n");
    head(o, std::iter::once("language").chain(formats.iter().copied()));
    let mut langs: Vec<&str> = Vec::new();
    for l in &libs {
        if !langs.contains(&l.language.as_str()) {
            langs.push(&l.language);
        }
    }
    for lang in langs {
        let cells = formats.iter().map(|f| {
            libs.iter()
                .find(|l| l.language == lang && l.format == *f)
                .map_or("not listed".to_string(), |l| format!("{}: {}", l.status, l.library))
        });
        row(o, std::iter::once(lang.to_string()).chain(cells));
    }
}

/// The verdict section (module docs).
pub fn render(o: &mut String, d: &Data, counts: &[usize], gzip: Option<String>) {
    o.push_str("\n## Verdict\n\nRatios to JSON (< 1: smaller or cheaper; for throughput > 1: faster). Bytes are exact; the timed rows are the median of per-round ratios (formats run in the same rounds) with its 95% interval.\n\n");
    let fs = others();
    head(
        o,
        ["question (source)", "products"].into_iter().chain(fs.iter().copied()),
    );
    if let Some(sizes) = &d.sizes {
        type Bytes = fn(&super::parse::SizeRow) -> u64;
        let rows: [(&str, Bytes); 2] = [("bytes, raw", |r| r.raw_bytes), ("bytes, gzip -6", |r| r.gzip6_bytes)];
        for (q, get) in rows {
            for &c in counts {
                let json = sizes.iter().find(|r| r.format == "json" && r.count == c);
                let Some(json) = json.map(get).filter(|&b| b > 0) else {
                    continue;
                };
                let cells = fs.iter().map(|f| {
                    sizes
                        .iter()
                        .find(|r| r.format == *f && r.count == c)
                        .map_or("n/a".into(), |r| format!("{:.2}×", get(r) as f64 / json as f64))
                });
                row(o, [q.to_string(), group(c as i64)].into_iter().chain(cells));
            }
        }
    }
    for (q, file, get) in TIMED {
        for &c in counts {
            let rows = d.file_rows(file, c);
            if rows.is_empty() {
                continue;
            }
            let cells = fs
                .iter()
                .map(|f| paired_ratio(&rows, f, get).map_or("n/a".into(), |ci| ratio_text(&ci)));
            row(o, [q.to_string(), group(c as i64)].into_iter().chain(cells));
        }
    }
    o.push('\n');
    // Where the format does not matter.
    let quiet: Vec<String> = counts
        .iter()
        .filter_map(|&c| does_not_matter(c, &encode_shares(d, c), &server_ratios(d, c)))
        .collect();
    if quiet.is_empty() {
        o.push_str("- **Where the formats do not differ enough to matter**: at no count measured here are all formats' server CPU within noise of JSON's while encoding is under 10% of it.\n");
    } else {
        let _ = writeln!(
            o,
            "- **Where the formats do not differ enough to matter**: {}.",
            quiet.join("; ")
        );
    }
    for &c in counts {
        let shares = encode_shares(d, c);
        if !shares.is_empty() {
            let list: Vec<String> = shares.iter().map(|(f, s)| format!("{f} {:.0}%", s * 100.0)).collect();
            let _ = writeln!(
                o,
                "- **Encoding's share of the server's CPU per request** at {} (codec `Encode` ÷ `{SERVER_SOURCE}` server µs per request): {}.",
                super::numfmt::products(c),
                list.join(", ")
            );
        }
    }
    // Where JSON is still the right answer.
    let mut json_right = Vec::new();
    if let Some(sizes) = &d.sizes {
        for &c in counts {
            if let Some(j) = sizes.iter().find(|r| r.format == "json" && r.count == c)
                && let Some(s) = small_payload(c, j.raw_bytes, &server_ratios(d, c))
            {
                json_right.push(format!("*small payloads*: {s}"));
            }
        }
    }
    json_right.push("*human debugging*: JSON is the one body read with no tool and no schema (`curl URL | jq .`); each other format needs a tool or its schema (table below)".into());
    if let Ok(libs) = libraries(LIBRARIES) {
        let (b, off, n) = library_counts(&libs, "json");
        let rest: Vec<String> = others()
            .iter()
            .map(|f| {
                let (_, off, n) = library_counts(&libs, f);
                format!("{f} {off} of {n}")
            })
            .collect();
        json_right.push(format!(
            "*client libraries everywhere*: JSON is built into {b} of {n} runtimes listed and has a built-in or official library in {off} of {n}; built-in or official: {} (table below)",
            rest.join(", ")
        ));
    }
    let _ = writeln!(
        o,
        "- **Where JSON is still the right answer**: {}.",
        json_right.join("; ")
    );
    if let Some(line) = gzip {
        let _ = writeln!(o, "- **gzip**: {line} (break-even below).");
    }
}

/// Requests/s from `lo` connections to `hi` (medians with intervals):
/// "rises", "falls", or "stays flat" when the intervals overlap.
pub fn concurrency_claim(format: &str, lo: (u32, &MedianCi), hi: (u32, &MedianCi)) -> String {
    let change = hi.1.median / lo.1.median - 1.0;
    let verb = if hi.1.lo > lo.1.hi {
        format!("rises {:.0}%", change * 100.0)
    } else if hi.1.hi < lo.1.lo {
        format!("falls {:.0}%", -change * 100.0)
    } else {
        format!("stays flat within its intervals ({:+.0}%)", change * 100.0)
    };
    format!(
        "{format} {verb} from c={} to c={} ({} → {} req/s)",
        lo.0,
        hi.0,
        num(lo.1.median),
        num(hi.1.median)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ci(median: f64, lo: f64, hi: f64) -> MedianCi {
        MedianCi {
            median,
            lo,
            hi,
            confidence: 0.959,
            n: 20,
        }
    }

    /// The case: JSON at 1,000 products goes 2,262 → 1,516 req/s
    /// from c=8 to c=16; the claim must say it falls, never "flat".
    #[test]
    fn concurrency_claim_follows_the_figures() {
        for (a, b, want) in [
            (
                (8, [2262.0, 2200.0, 2300.0]),
                (16, [1516.0, 1450.0, 1600.0]),
                "falls 33%",
            ),
            (
                (8, [2262.0, 2100.0, 2400.0]),
                (16, [2200.0, 2050.0, 2350.0]),
                "stays flat",
            ),
            (
                (1, [1000.0, 950.0, 1050.0]),
                (8, [2000.0, 1900.0, 2100.0]),
                "rises 100%",
            ),
        ] {
            let (x, y) = (ci(a.1[0], a.1[1], a.1[2]), ci(b.1[0], b.1[1], b.1[2]));
            let claim = concurrency_claim("json", (a.0, &x), (b.0, &y));
            assert!(claim.contains(want), "{claim}");
            assert_eq!(claim.contains("flat"), want.contains("flat"), "{claim}");
        }
    }

    /// "Does not matter" needs both a small encode share and every interval
    /// including 1; either false, no claim.
    #[test]
    fn does_not_matter_only_when_the_data_says_so() {
        let shares = vec![("json".to_string(), 0.02), ("avro".to_string(), 0.05)];
        let equal = vec![
            ("avro", Some(ci(0.98, 0.93, 1.04))),
            ("protobuf", Some(ci(1.01, 0.97, 1.06))),
        ];
        let s = does_not_matter(1, &shares, &equal).unwrap();
        assert!(s.contains("encoding is 2–5%") && s.contains("[0.93, 1.06]"), "{s}");
        let differ = vec![
            ("avro", Some(ci(0.80, 0.75, 0.85))),
            ("protobuf", Some(ci(1.01, 0.97, 1.06))),
        ];
        assert_eq!(does_not_matter(1, &shares, &differ), None);
        let heavy = vec![("json".to_string(), 0.51)];
        assert_eq!(does_not_matter(1000, &heavy, &equal), None);
        let unknown = vec![("avro", None)];
        assert_eq!(does_not_matter(1, &shares, &unknown), None);
    }

    /// The small-payload claim holds only for a body within one packet, and
    /// names a format that is cheaper when one is.
    #[test]
    fn small_payload_only_within_one_packet() {
        let equal = vec![("avro", Some(ci(0.98, 0.93, 1.04)))];
        let s = small_payload(1, 674, &equal).unwrap();
        assert!(s.contains("674-byte body fits in one packet"), "{s}");
        assert!(s.contains("no format's server CPU is shown to be lower"), "{s}");
        assert_eq!(small_payload(100, 62_625, &equal), None);
        let cheaper = vec![("avro", Some(ci(0.80, 0.75, 0.85)))];
        assert!(
            small_payload(1, 674, &cheaper)
                .unwrap()
                .contains("lower for avro 0.80×")
        );
    }

    #[test]
    fn paired_ratio_pairs_rounds() {
        let row = |round: u32, format: &str, rps: f64| HttpRow {
            round,
            format: format.into(),
            rps,
            ..Default::default()
        };
        // A drift that doubles every format in later rounds leaves the ratio at 0.5.
        let rows: Vec<HttpRow> = (0..10)
            .flat_map(|i| {
                let drift = if i % 2 == 0 { 1.0 } else { 2.0 };
                [row(i, "json", 100.0 * drift), row(i, "avro", 50.0 * drift)]
            })
            .collect();
        let refs: Vec<&HttpRow> = rows.iter().collect();
        let r = paired_ratio(&refs, "avro", |r| Some(r.rps)).unwrap();
        assert!((r.median - 0.5).abs() < 1e-12 && r.lo == r.hi, "{r:?}");
        assert_eq!(paired_ratio(&refs[..2], "avro", |r| Some(r.rps)), None);
    }

    #[test]
    fn library_table_parses_and_refuses_bad_rows() {
        let libs = libraries(LIBRARIES).unwrap();
        for f in crate::codec::Format::ALL {
            assert_eq!(libs.iter().filter(|l| l.format == f.name()).count(), 10, "{}", f.name());
        }
        assert!(libs.iter().all(|l| l.source.starts_with("https://")));
        let (b, off, n) = library_counts(&libs, "json");
        assert!(b >= 5 && off >= b && n == 10, "{b} {off} {n}");
        let bad = "format,language,library,status,source\njson,Go,x,maybe,https://a\n";
        assert!(libraries(bad).unwrap_err().contains(":2: unknown status"));
        assert!(libraries("a,b\n").unwrap_err().contains(":1: unexpected header"));
    }
}
