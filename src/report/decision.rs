//! The top of `REPORT.md`: the decision table, the costs per million
//! requests, gzip's break-even link speed, the costs the benchmarks do not
//! measure, and the answers in prose — all computed from the run's raw rows.
//!
//! **Ranking with ties** ([`rank`]): formats sorted by their median; each
//! neighbour pair is tested with the two-sided Mann–Whitney U test, the
//! p-values of one ranking Holm–Bonferroni adjusted (α = 0.05). A pair whose
//! difference is not significant shares a rank and prints `≈`; a
//! significant one prints `<` or `>` ("smaller/cheaper than", "faster
//! than"). When any format's 95% median interval is wider than the
//! tolerance (±5% of the median for HTTP figures, ±3% for codec rows) the
//! ranking is replaced by "too noisy to rank". Byte counts are exact and
//! rank by value.
//!
//! **Break-even link speed** ([`break_even_mbps`]) of a gzip level: the bytes
//! it saves × 8 ÷ (the server's compress time + the client's gunzip time),
//! in bits per µs = Mbit/s. On a link slower than that, sending the saved
//! bytes would take longer than the CPU gzip spends, so gzip pays; on a
//! faster one it does not (per server core and client core).

use super::data::Data;
use super::parse::HttpRow;
use crate::measure::significance::{self as sig, ALPHA, CONFIDENCE};
use std::fmt::Write as _;

/// Interval tolerance for HTTP figures (± of the median).
pub const HTTP_TOLERANCE: f64 = 0.05;
/// Interval tolerance for codec rows at 100 and 1,000 products.
pub const CODEC_TOLERANCE: f64 = 0.03;

/// The formats in table order.
fn formats() -> Vec<&'static str> {
    crate::codec::Format::ALL.iter().map(|f| f.name()).collect()
}

/// A ranking, best first: each format with whether it is significantly
/// worse than the one before it (false: `≈`, the same rank; false for the first).
pub type Ranking = Vec<(String, bool)>;

/// Ranks `(format, samples)`, best first, with ties (module docs); Err is
/// the "too noisy to rank" or "n/a" text. `lower_is_better`: sizes and CPU;
/// else throughput. `tolerance` None: exact values, no test.
pub fn ranking(items: &[(String, Vec<f64>)], lower_is_better: bool, tolerance: Option<f64>) -> Result<Ranking, String> {
    let mut v: Vec<(String, sig::MedianCi, &[f64])> = items
        .iter()
        .filter_map(|(f, s)| Some((f.clone(), sig::median_ci(s, CONFIDENCE)?, s.as_slice())))
        .collect();
    if v.len() < 2 {
        return Err("n/a".into());
    }
    if let Some(tol) = tolerance {
        if let Some((f, ci, _)) = v
            .iter()
            .filter(|(_, ci, _)| ci.rel_half_width() > tol || !ci.full_confidence())
            .max_by(|a, b| a.1.rel_half_width().total_cmp(&b.1.rel_half_width()))
        {
            return Err(format!(
                "too noisy to rank ({f}: ±{:.1}% at {:.0}% confidence, n = {})",
                ci.rel_half_width() * 100.0,
                ci.confidence * 100.0,
                ci.n
            ));
        }
    }
    v.sort_by(|a, b| {
        let o = a.1.median.total_cmp(&b.1.median);
        if lower_is_better { o } else { o.reverse() }
    });
    let ps: Vec<f64> = v
        .windows(2)
        .map(|w| {
            if tolerance.is_none() {
                if w[0].1.median == w[1].1.median { 1.0 } else { 0.0 }
            } else {
                sig::mann_whitney(w[0].2, w[1].2).map_or(1.0, |u| u.p)
            }
        })
        .collect();
    let adj = if tolerance.is_none() { ps } else { sig::holm(&ps) };
    let mut out = vec![(v[0].0.clone(), false)];
    for (i, w) in v.windows(2).enumerate() {
        out.push((w[1].0.clone(), adj[i] < ALPHA));
    }
    Ok(out)
}

/// A ranking as text: `a < b ≈ c` (`>` when higher is better).
pub fn ranking_text(r: &Result<Ranking, String>, lower_is_better: bool) -> String {
    match r {
        Err(e) => e.clone(),
        Ok(v) => {
            let mut s = String::new();
            for (i, (f, worse)) in v.iter().enumerate() {
                if i > 0 {
                    s += match (worse, lower_is_better) {
                        (false, _) => " ≈ ",
                        (true, true) => " < ",
                        (true, false) => " > ",
                    };
                }
                s += f;
            }
            s
        }
    }
}

/// [`ranking`] as text.
pub fn rank(items: &[(String, Vec<f64>)], lower_is_better: bool, tolerance: Option<f64>) -> String {
    ranking_text(&ranking(items, lower_is_better, tolerance), lower_is_better)
}

/// The ordered pairs `(better, worse)` a ranking asserts: a significant
/// separator lies between them.
pub fn ordered_pairs(r: &Ranking) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for i in 0..r.len() {
        for j in i + 1..r.len() {
            if r[i + 1..=j].iter().any(|(_, worse)| *worse) {
                out.push((r[i].0.clone(), r[j].0.clone()));
            }
        }
    }
    out
}

/// One cell of the decision table.
#[derive(Clone, Debug)]
pub struct DecisionCell {
    pub question: &'static str,
    pub count: usize,
    pub lower_is_better: bool,
    pub ranking: Result<Ranking, String>,
}

/// Every ranked cell of the decision table, question by question, count by count.
pub fn decision_cells(d: &Data) -> Vec<DecisionCell> {
    type SizeGet = fn(&super::parse::SizeRow) -> f64;
    type HttpGet = fn(&HttpRow) -> Option<f64>;
    let exact: [(&'static str, SizeGet); 2] = [
        ("smallest on the wire, raw", |r| r.raw_bytes as f64),
        ("smallest on the wire, gzip -6", |r| r.gzip6_bytes as f64),
    ];
    let http: [(&'static str, &str, bool, HttpGet); 4] = [
        ("cheapest server CPU per request", "http.csv", true, |r| {
            r.cpu.and_then(|c| c.server_us_per_req)
        }),
        (
            "cheapest client CPU per request (verifying decode)",
            "http.csv",
            true,
            |r| r.cpu.and_then(|c| c.client_us_per_req),
        ),
        (
            "highest server-only throughput (pinned core)",
            "http-server.csv",
            false,
            |r| Some(r.rps),
        ),
        ("highest end-to-end throughput (one machine)", "http.csv", false, |r| {
            Some(r.rps)
        }),
    ];
    let mut out = Vec::new();
    for (question, get) in exact {
        for count in COUNTS {
            let items: Vec<(String, Vec<f64>)> = formats()
                .iter()
                .filter_map(|f| Some((f.to_string(), vec![get(size(d, f, count)?)])))
                .collect();
            out.push(DecisionCell {
                question,
                count,
                lower_is_better: true,
                ranking: ranking(&items, true, None),
            });
        }
    }
    for (question, file, lower, get) in http {
        for count in COUNTS {
            let rs = rows(d, file, count);
            let items: Vec<(String, Vec<f64>)> = formats()
                .iter()
                .map(|f| (f.to_string(), samples(&rs, f, get)))
                .filter(|(_, s)| !s.is_empty())
                .collect();
            out.push(DecisionCell {
                question,
                count,
                lower_is_better: lower,
                ranking: ranking(&items, lower, Some(HTTP_TOLERANCE)),
            });
        }
    }
    out
}

/// Break-even link speed in Mbit/s: `saved_bytes × 8 ÷ cpu_us`; None
/// when nothing is saved or the CPU time is not positive.
pub fn break_even_mbps(saved_bytes: f64, cpu_us: f64) -> Option<f64> {
    (saved_bytes > 0.0 && cpu_us > 0.0).then(|| saved_bytes * 8.0 / cpu_us)
}

/// On a link of `link_mbps`, the µs gzip saves per response (sending time
/// saved minus CPU spent); positive when it pays.
pub fn net_saving_us(saved_bytes: f64, cpu_us: f64, link_mbps: f64) -> f64 {
    saved_bytes * 8.0 / link_mbps - cpu_us
}

fn rows<'a>(d: &'a Data, file: &str, count: usize) -> Vec<&'a HttpRow> {
    d.http_rows
        .iter()
        .filter(|r| r.count == count && row_file(d, r) == Some(file))
        .collect()
}

/// Which file a row came from: the rows are stored in file order, so by position.
fn row_file<'a>(d: &'a Data, r: &HttpRow) -> Option<&'a str> {
    let at = d.http_rows.iter().position(|x| std::ptr::eq(x, r))?;
    let mut seen = 0;
    for (f, n) in d.http.iter().zip(&d.http_row_counts) {
        if at < seen + n {
            return Some(f.name.as_str());
        }
        seen += n;
    }
    None
}

fn samples(rs: &[&HttpRow], format: &str, get: impl Fn(&HttpRow) -> Option<f64>) -> Vec<f64> {
    rs.iter()
        .filter(|r| r.format == format)
        .filter_map(|r| get(r))
        .collect()
}

fn med(v: &[f64]) -> Option<f64> {
    crate::measure::stats::median(v)
}

fn size<'a>(d: &'a Data, format: &str, count: usize) -> Option<&'a super::parse::SizeRow> {
    d.sizes
        .as_ref()?
        .iter()
        .find(|r| r.format == format && r.count == count)
}

/// The per-batch samples of one codec row (`cpu-ns/op` when recorded, else `ns/op`).
pub fn codec_samples(d: &Data, op: &str, format: &str, count: usize) -> Vec<f64> {
    d.codec
        .as_ref()
        .map(|c| {
            c.lines
                .iter()
                .filter(|l| l.op == op && l.format == format && l.count == count)
                .map(|l| l.cpu_ns_per_op.unwrap_or(l.ns_per_op))
                .collect()
        })
        .unwrap_or_default()
}

/// Below the codec table of one count: encode and decode ranked with ties,
/// and the rows whose interval is too wide to rank.
pub fn codec_rankings(o: &mut String, d: &Data, count: usize) {
    let tol = if count >= 100 { CODEC_TOLERANCE } else { HTTP_TOLERANCE };
    for op in ["Encode", "Decode", "DecodeBorrowed"] {
        let items: Vec<(String, Vec<f64>)> = formats()
            .iter()
            .map(|f| (f.to_string(), codec_samples(d, op, f, count)))
            .filter(|(_, s)| !s.is_empty())
            .collect();
        if items.len() >= 2 {
            let _ = writeln!(
                o,
                "
{op}, fastest first (CPU per operation, ties `≈`; a 95% interval wider than ±{:.0}% makes it too noisy to rank): {}.",
                tol * 100.0,
                rank(&items, true, Some(tol))
            );
        }
    }
    let noisy: Vec<String> = d
        .codec_stats
        .iter()
        .filter(|s| s.count == count)
        .filter_map(|s| {
            let ci = sig::median_ci(&codec_samples(d, &s.op, &s.format, count), CONFIDENCE)?;
            (ci.rel_half_width() > tol).then(|| format!("{}/{} ±{:.1}%", s.op, s.format, ci.rel_half_width() * 100.0))
        })
        .collect();
    if !noisy.is_empty() {
        let _ = writeln!(
            o,
            "
Rows whose 95% median interval exceeds ±{:.0}% (the run was too noisy to rank them): {}.",
            tol * 100.0,
            noisy.join(", ")
        );
    }
}

/// The counts of the decision table.
pub const COUNTS: [usize; 3] = [1, 100, 1000];

/// The decision section (module docs).
pub fn render(o: &mut String, d: &Data) {
    o.push_str("\n## Decision table\n\n");
    o.push_str("Best first. `<` / `>`: the difference is significant (Mann–Whitney U on the rounds, two-sided, Holm–Bonferroni over each ranking's neighbour pairs, α = 0.05); `≈`: not significant, same rank. \"Too noisy to rank\": a format's 95% median interval is wider than ±5% (HTTP) — the run cannot order them. CPU is per verified request at concurrency 8, no compression (`http.csv`, end-to-end on one machine); server-only throughput is `http-server.csv` (server pinned to one core, load generator on the other).\n\n");
    o.push_str("| question |");
    for c in COUNTS {
        let _ = write!(o, " {c} product{} |", if c == 1 { "" } else { "s" });
    }
    o.push_str("\n|---|");
    o.push_str(&"---|".repeat(COUNTS.len()));
    o.push('\n');
    let cells = decision_cells(d);
    let mut questions: Vec<&str> = Vec::new();
    for c in &cells {
        if !questions.contains(&c.question) {
            questions.push(c.question);
        }
    }
    for q in questions {
        let _ = write!(o, "| {q} |");
        for c in cells.iter().filter(|c| c.question == q) {
            let _ = write!(o, " {} |", ranking_text(&c.ranking, c.lower_is_better));
        }
        o.push('\n');
    }
    let _ = write!(o, "| bytes per product, raw / gzip -6 |");
    for c in COUNTS {
        let cells: Vec<String> = formats()
            .iter()
            .filter_map(|f| {
                let r = size(d, f, c)?;
                Some(format!(
                    "{f} {:.0}/{:.0}",
                    r.bytes_per_product_raw, r.bytes_per_product_gzip6
                ))
            })
            .collect();
        let _ = write!(
            o,
            " {} |",
            if cells.is_empty() {
                "n/a".into()
            } else {
                cells.join(", ")
            }
        );
    }
    o.push('\n');
    unmeasured(o);
    costs(o, d);
    gzip_pays(o, d);
    prose(o, d);
}

/// What a body needs to be read without its schema, and the command.
const DEBUG: [(&str, &str); 5] = [
    ("json", "yes: text (`curl URL \\| jq .`)"),
    (
        "msgpack",
        "field names yes, with a tool: `wirebench decode msgpack FILE`",
    ),
    (
        "protobuf",
        "numbers and wire types only (`protoc --decode_raw < FILE`); names need the .proto",
    ),
    (
        "avro",
        "no: the writer's schema is needed (`wirebench decode avro --writer-schema S FILE`)",
    ),
    (
        "flatbuffers",
        "no: offsets only; the .fbs is needed (`flatc --json --raw-binary`)",
    ),
];

/// The costs the benchmarks do not measure, from facts the project has.
fn unmeasured(o: &mut String) {
    o.push_str("\n### Costs the benchmarks do not measure\n\n");
    o.push_str("Schema rollout counts the evolution matrix's cells (`wirebench evolve`, docs/EVOLUTION.md) where the reader **silently** drops or misreads data (a refusal is loud, so not counted), with today's reader of each format. Caching: every encoder here writes the same bytes for the same catalog (the golden-file tests check this byte for byte), so `ETag`s and shared caches work for all five; that is a property of these encoders, not of every library for the format.\n\n");
    o.push_str("| format | silent damage, v1 writer → v2 reader | silent damage, v2 writer → v1 reader | readable without the schema | deterministic bytes |\n|---|---|---|---|---|\n");
    let cells = crate::evolve::matrix().ok();
    for (f, debug) in DEBUG {
        let count = |dir: crate::evolve::Direction| -> String {
            let Some(cells) = &cells else { return "n/a".into() };
            let mine: Vec<_> = cells
                .iter()
                .filter(|c| c.row.name() == f && c.direction == dir)
                .collect();
            format!(
                "{} of {}",
                mine.iter().filter(|c| c.outcome.is_silent_damage()).count(),
                mine.len()
            )
        };
        let _ = writeln!(
            o,
            "| {f} | {} | {} | {debug} | yes |",
            count(crate::evolve::Direction::OldToNew),
            count(crate::evolve::Direction::NewToOld)
        );
    }
}

/// Cost per million requests.
fn costs(o: &mut String, d: &Data) {
    o.push_str("\n### Cost per million requests\n\n");
    let server_file = if d.http.iter().any(|f| f.name == "http-server.csv") {
        "http-server.csv"
    } else {
        "http.csv"
    };
    let _ = writeln!(
        o,
        "Median CPU per verified request × 10⁶: server core-seconds from `{server_file}`, client core-seconds (its verifying decode included) from `http.csv`; with gzip, server and client core-seconds from the end-to-end HTTP runs at level 1 (`http-gzip1.csv`) and 6 (`http-gzip.csv`), compress and gunzip included; egress is the exact body size × 10⁶ (headers not counted).\n"
    );
    o.push_str("| products | format | server core-s | client core-s | server / client core-s, gzip -1 | server / client core-s, gzip -6 | egress raw | egress gzip -1 | egress gzip -6 | egress gzip -9 |\n|---|---|---|---|---|---|---|---|---|---|\n");
    let gb = |b: u64| format!("{:.2} GB", b as f64 * 1e6 / 1e9);
    for c in COUNTS {
        for f in formats() {
            let srv = med(&samples(&rows(d, server_file, c), f, |r| {
                r.cpu.and_then(|c| c.server_us_per_req)
            }));
            let cli = med(&samples(&rows(d, "http.csv", c), f, |r| {
                r.cpu.and_then(|c| c.client_us_per_req)
            }));
            let s = size(d, f, c);
            if srv.is_none() && cli.is_none() && s.is_none() {
                continue;
            }
            let opt = |x: Option<f64>| x.map_or("n/a".into(), super::numfmt::num);
            let both = |file: &str| {
                let side = |g: fn(&super::parse::HttpCpu) -> Option<f64>| {
                    med(&samples(&rows(d, file, c), f, |r| r.cpu.and_then(|c| g(&c))))
                };
                let (s, k) = (side(|c| c.server_us_per_req), side(|c| c.client_us_per_req));
                if s.is_none() && k.is_none() {
                    "n/a".to_string()
                } else {
                    format!("{} / {}", opt(s), opt(k))
                }
            };
            let _ = writeln!(
                o,
                "| {c} | {f} | {} | {} | {} | {} | {} | {} | {} | {} |",
                opt(srv),
                opt(cli),
                both("http-gzip1.csv"),
                both("http-gzip.csv"),
                s.map_or("n/a".into(), |r| gb(r.raw_bytes)),
                s.map_or("n/a".into(), |r| gb(r.gzip1_bytes)),
                s.map_or("n/a".into(), |r| gb(r.gzip6_bytes)),
                s.map_or("n/a".into(), |r| gb(r.gzip9_bytes)),
            );
        }
    }
}

/// (level, bytes saved, server compress µs, client gunzip µs) of one size row.
pub fn gzip_levels(r: &super::parse::SizeRow) -> Vec<(u8, f64, f64, Option<f64>)> {
    let raw = r.raw_bytes as f64;
    vec![
        (1, raw - r.gzip1_bytes as f64, r.gzip1_us, r.gunzip_us[0]),
        (
            6,
            raw - r.gzip6_bytes as f64,
            r.gzip6_cpu_us.unwrap_or(r.gzip6_us),
            r.gunzip_us[1],
        ),
        (9, raw - r.gzip9_bytes as f64, r.gzip9_us, r.gunzip_us[2]),
    ]
}

/// Break-even link speeds, and the verdict for `--link-mbps`.
fn gzip_pays(o: &mut String, d: &Data) {
    let Some(sizes) = &d.sizes else { return };
    o.push_str("\n### Does gzip pay? Break-even link speed\n\n");
    o.push_str("Per response: bytes saved × 8 ÷ (server compress µs + client gunzip µs), from `sizes.csv` (single-threaded medians). On a link slower than this, per server core and client core, the bytes saved take longer to send than gzip's CPU; on a faster link gzip costs more than it saves. A `n/a` gunzip time (an older `sizes.csv`) counts the server's side only.\n\n");
    o.push_str("| products | format | gzip -1 | gzip -6 | gzip -9 |\n|---|---|---|---|---|\n");
    for r in sizes.iter().filter(|r| COUNTS.contains(&r.count)) {
        let cells: Vec<String> = gzip_levels(r)
            .iter()
            .map(|&(_, saved, srv, cli)| {
                break_even_mbps(saved, srv + cli.unwrap_or(0.0))
                    .map_or("never".into(), |m| format!("{} Mbit/s", super::numfmt::num(m)))
            })
            .collect();
        let _ = writeln!(o, "| {} | {} | {} |", r.count, r.format, cells.join(" | "));
    }
    if let Some(link) = d.link_mbps {
        let _ = writeln!(o, "\nOn a {link} Mbit/s link (`--link-mbps`), per response:\n");
        for r in sizes.iter().filter(|r| COUNTS.contains(&r.count)) {
            let best = gzip_levels(r)
                .into_iter()
                .map(|(l, saved, srv, cli)| (l, net_saving_us(saved, srv + cli.unwrap_or(0.0), link)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            let verdict = match best {
                Some((l, net)) if net > 0.0 => {
                    format!("gzip -{l} pays most: saves {} µs per response", super::numfmt::num(net))
                }
                _ => "no level pays: send it raw".into(),
            };
            let _ = writeln!(o, "- {} × {}: {verdict}", r.count, r.format);
        }
    }
}

/// The workshop's questions answered from the data.
fn prose(o: &mut String, d: &Data) {
    o.push_str("\n### What the data says\n\n");
    // Encode share of server CPU.
    for c in [1usize, 1000] {
        let shares: Vec<String> = formats()
            .iter()
            .filter_map(|f| {
                let enc = d
                    .codec_stats
                    .iter()
                    .find(|s| s.op == "Encode" && s.format == *f && s.count == c)?;
                let enc_us = enc.cpu_ns_per_op.map_or(enc.ns_per_op.median, |s| s.median) / 1e3;
                let srv = med(&samples(&rows(d, "http.csv", c), f, |r| {
                    r.cpu.and_then(|c| c.server_us_per_req)
                }))?;
                Some(format!("{f} {:.0}%", 100.0 * enc_us / srv))
            })
            .collect();
        if !shares.is_empty() {
            let _ = writeln!(
                o,
                "- **Encoding's share of the server's CPU per request** at {c} product{} (codec `Encode` median ÷ server µs per request, c=8): {}.",
                if c == 1 { "" } else { "s" },
                shares.join(", ")
            );
        }
    }
    // Concurrency.
    let conc: Vec<(&str, u32)> = d
        .http
        .iter()
        .filter(|f| ["http-c1.csv", "http.csv", "http-c16.csv"].contains(&f.name.as_str()))
        .filter_map(|f| Some((f.name.as_str(), f.stats.first()?.concurrency)))
        .collect();
    if conc.len() >= 2 {
        let mut parts = Vec::new();
        for f in formats() {
            let cells: Vec<String> = conc
                .iter()
                .filter_map(|(file, c)| {
                    let s = d
                        .http
                        .iter()
                        .find(|x| x.name == *file)?
                        .stats
                        .iter()
                        .find(|s| s.format == f && s.count == 1000)?;
                    Some(format!(
                        "c={c}: {} req/s, p50 {} ms",
                        super::numfmt::num(s.rps.median),
                        super::numfmt::num(s.p50_ms.median)
                    ))
                })
                .collect();
            if !cells.is_empty() {
                parts.push(format!("{f}: {}", cells.join(" → ")));
            }
        }
        let _ = writeln!(
            o,
            "- **Concurrency** at 1,000 products: {}. More connections raise throughput only while a core is idle; once client and server together keep every core busy, requests/s stays flat and p50 grows with the queue (Little's law: p50 ≈ c ÷ requests/s).",
            parts.join("; ")
        );
    }
    if let Some(sizes) = &d.sizes {
        let mut speeds: Vec<(f64, String)> = sizes
            .iter()
            .filter(|r| r.count == 1000)
            .filter_map(|r| {
                let (_, saved, srv, cli) = gzip_levels(r)[1];
                Some((break_even_mbps(saved, srv + cli.unwrap_or(0.0))?, r.format.clone()))
            })
            .collect();
        speeds.sort_by(|a, b| a.0.total_cmp(&b.0));
        if !speeds.is_empty() {
            let list: Vec<String> = speeds
                .iter()
                .map(|(m, f)| format!("{f} below {} Mbit/s", super::numfmt::num(*m)))
                .collect();
            let _ = writeln!(
                o,
                "- **gzip -6 pays** at 1,000 products on links slower than: {} (per server core and client core; table above for every level). On loopback, as in these HTTP runs, it never pays.",
                list.join(", ")
            );
        }
    }
    o.push_str("- **What these figures do not mean.** The HTTP runs are loopback on one machine: no network latency, bandwidth limit or TLS, and the client shares the server's cores (end-to-end throughput follows the *sum* of both sides' CPU; only `http-server.csv` isolates the server). They are closed loops: latency is service time, not what users see under a fixed arrival rate. The catalog is synthetic (docs/SPEC.md); other data changes the sizes and the speeds. A `≈` means this run cannot tell the formats apart, not that they are equal.\n");
}

/// The document's decision table: smallest raw and gzip -6 (exact), fastest
/// encode and decode (batches; `≈` where not significant, too noisy to rank
/// beyond ±5%).
pub fn render_document(o: &mut String, d: &super::document::Document) {
    let _ = writeln!(
        o,
        "\n## Decision table: your document{}\n\nThe same rules as the catalog's table above, on `make bench DATA=…`'s document through the schema-driven codecs (`data-codec.txt`, `data-sizes.csv`); no HTTP run. Best first.\n",
        d.source.as_deref().map_or(String::new(), |s| format!(" (`{s}`)"))
    );
    o.push_str("| question | ranking |\n|---|---|\n");
    let exact = |get: fn(&(String, f64, f64)) -> f64| -> Vec<(String, Vec<f64>)> {
        d.sizes.iter().map(|r| (r.0.clone(), vec![get(r)])).collect()
    };
    let timed = |op: &str| -> Vec<(String, Vec<f64>)> {
        d.batches
            .iter()
            .filter(|(_, o, _)| o == op)
            .map(|(f, _, b)| (f.clone(), b.clone()))
            .collect()
    };
    type Items = Vec<(String, Vec<f64>)>;
    let rows: [(&str, Items, Option<f64>); 4] = [
        ("smallest on the wire, raw", exact(|r| r.1), None),
        ("smallest on the wire, gzip -6", exact(|r| r.2), None),
        ("fastest encode (CPU per document)", timed("encode"), Some(0.05)),
        ("fastest decode (CPU per document)", timed("decode"), Some(0.05)),
    ];
    for (q, items, tol) in rows {
        if items.is_empty() {
            continue;
        }
        let _ = writeln!(o, "| {q} | {} |", ranking_text(&ranking(&items, true, tol), true));
    }
    o.push('\n');
}

/// One pair of a row ranked on its per-round paired ratios.
#[derive(Clone, Debug, PartialEq)]
pub struct PairOrder {
    /// Indices into the row's formats; `ratio` is `b/a`.
    pub a: usize,
    pub b: usize,
    pub test: sig::PairedTest,
    /// The signed-rank p, Holm-adjusted over the pairs of the row.
    pub p_adjusted: f64,
    /// `Less` when `b` is reliably below `a`, `Greater` when above,
    /// `Equal` (`≈`, within ±`test.mde`) when the test does not support an order.
    pub order: std::cmp::Ordering,
}

/// Every pair of the row's formats on their paired per-round values
/// (`rounds[f][r]`: format `f` in round `r`; the rounds pair the formats),
/// with the signed-rank test, Holm over the pairs. A pair without usable
/// pairs (fewer than one round where both are positive) is left out.
pub fn paired_pairs(rounds: &[Vec<f64>]) -> Vec<PairOrder> {
    let mut pairs = Vec::new();
    for a in 0..rounds.len() {
        for b in a + 1..rounds.len() {
            let n = rounds[a].len().min(rounds[b].len());
            if let Some(t) = sig::paired(&rounds[a][..n], &rounds[b][..n]) {
                pairs.push((a, b, t));
            }
        }
    }
    let adjusted = sig::holm(&pairs.iter().map(|(_, _, t)| t.p).collect::<Vec<_>>());
    pairs
        .into_iter()
        .zip(adjusted)
        .map(|((a, b, test), p_adjusted)| PairOrder {
            a,
            b,
            test,
            p_adjusted,
            order: if p_adjusted >= ALPHA || test.ratio == 1.0 {
                std::cmp::Ordering::Equal
            } else if test.ratio > 1.0 {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Less
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arithmetic: gzip -1 on JSON at 1,000 products saves
    /// 491,992 bytes for 2.86 ms of server CPU → about 1.4 Gbit/s.
    #[test]
    fn break_even_arithmetic() {
        let m = break_even_mbps(491_992.0, 2_860.0).unwrap();
        assert!((m - 1376.2).abs() < 0.1, "{m}");
        // gzip -6: 536,501 bytes for 17.3 ms → about 250 Mbit/s.
        let m = break_even_mbps(536_501.0, 17_300.0).unwrap();
        assert!((m - 248.1).abs() < 0.1, "{m}");
        assert_eq!(break_even_mbps(0.0, 10.0), None);
        assert_eq!(break_even_mbps(10.0, 0.0), None);
        // On a 100 Mbit/s link, 1,000 bytes take 80 µs: 30 µs of CPU pays by 50 µs.
        assert!((net_saving_us(1000.0, 30.0, 100.0) - 50.0).abs() < 1e-9);
        assert!(net_saving_us(1000.0, 30.0, 1000.0) < 0.0);
    }

    /// 80 requests leave fewer than 10 above the p95 or p99: "≥", two digits.
    #[test]
    fn tail_percentiles_say_what_the_sample_supports() {
        use super::super::numfmt::tail;
        assert_eq!(tail(Some(12.3456), 0.99, 80), "≥ 12");
        assert_eq!(tail(Some(1.2345), 0.95, 80), "≥ 1.2");
        assert_eq!(tail(Some(12.3456), 0.99, 100_000), "12.35");
        assert_eq!(tail(None, 0.99, 10), "n/a");
    }

    #[test]
    fn ordered_pairs_follow_the_separators() {
        let r: Ranking = vec![("a".into(), false), ("b".into(), false), ("c".into(), true)];
        assert_eq!(
            ordered_pairs(&r),
            [("a".to_string(), "c".to_string()), ("b".to_string(), "c".to_string())]
        );
        assert!(ordered_pairs(&vec![("a".into(), false), ("b".into(), false)]).is_empty());
    }

    #[test]
    fn ranks_with_ties_and_noise() {
        let tight = |base: f64| -> Vec<f64> { (0..10).map(|i| base + i as f64 * 0.01).collect() };
        let items = vec![
            ("json".to_string(), tight(200.0)),
            ("avro".to_string(), tight(100.0)),
            ("protobuf".to_string(), tight(100.02)),
        ];
        // avro and protobuf overlap: a tie; json is clearly more.
        assert_eq!(rank(&items, true, Some(0.05)), "avro ≈ protobuf < json");
        assert_eq!(rank(&items, false, Some(0.05)), "json > protobuf ≈ avro");
        let noisy = vec![
            (
                "json".to_string(),
                vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0],
            ),
            ("avro".to_string(), tight(100.0)),
        ];
        assert!(rank(&noisy, true, Some(0.05)).starts_with("too noisy to rank (json"));
        let exact = vec![
            ("a".to_string(), vec![3.0]),
            ("b".to_string(), vec![3.0]),
            ("c".to_string(), vec![1.0]),
        ];
        assert_eq!(rank(&exact, true, None), "c < a ≈ b");
    }
}
