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
        (
            "cheapest server CPU per request",
            super::verdict::SERVER_SOURCE,
            true,
            |r| r.cpu.and_then(|c| c.server_us_per_req),
        ),
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

/// The decision section (module docs): the table, then the verdict, the
/// costs the benchmarks do not measure, the cost per million requests, the
/// gzip break-even and the answers in prose.
pub fn render(o: &mut String, d: &Data) {
    o.push_str("\n## Decision table\n\n");
    let _ = writeln!(
        o,
        "Best first. `<` / `>`: a significant difference; `≈`: this run cannot tell them apart (docs/MEASUREMENT.md names the test). Server CPU per request and server-only throughput: `{}` (server pinned to one core, load generator on the other); client CPU and end-to-end throughput: `{}` (both on one machine, concurrency 8, no compression).\n",
        super::verdict::SERVER_SOURCE,
        super::verdict::CLIENT_SOURCE
    );
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
    let gzip = d.sizes.as_ref().and_then(|sizes| {
        let big = COUNTS
            .iter()
            .copied()
            .filter(|c| sizes.iter().any(|r| r.count == *c))
            .max()?;
        level_that_pays(sizes.iter().find(|r| r.format == "json" && r.count == big)?)
    });
    super::verdict::render(o, d, &COUNTS, gzip);
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

/// (silent damage, refusals, cells) of one format in one direction of the
/// evolution matrix.
pub fn rollout_counts(
    cells: &[crate::evolve::Cell],
    format: &str,
    dir: crate::evolve::Direction,
) -> (usize, usize, usize) {
    let mine: Vec<_> = cells
        .iter()
        .filter(|c| c.row.name() == format && c.direction == dir)
        .collect();
    let silent = mine.iter().filter(|c| c.outcome.is_silent_damage()).count();
    let refused = mine
        .iter()
        .filter(|c| matches!(c.outcome, crate::evolve::Outcome::Refuses(_)))
        .count();
    (silent, refused, mine.len())
}

/// The costs the benchmarks do not measure, from facts the project has.
fn unmeasured(o: &mut String) {
    use crate::evolve::Direction;
    o.push_str("\n### Costs the benchmarks do not measure\n\n");
    o.push_str("Schema rollout: the evolution matrix's changes (`wirebench evolve`, docs/EVOLUTION.md) with today's reader of each format; a change breaks a rollout when the reader **silently** drops or misreads data, or **refuses** the body. Every encoder here writes the same bytes for the same catalog (golden-file tests), so `ETag`s and shared caches work for all five.\n\n");
    o.push_str("| format | v1 writer → v2 reader: silent / refused | v2 writer → v1 reader: silent / refused | changes that break a rollout | readable without the schema |\n|---|---|---|---|---|\n");
    let cells = crate::evolve::matrix().ok();
    for (f, debug) in DEBUG {
        let (dirs, broken) = match &cells {
            None => (["n/a".to_string(), "n/a".to_string()], "n/a".to_string()),
            Some(cells) => {
                let (s1, r1, n1) = rollout_counts(cells, f, Direction::OldToNew);
                let (s2, r2, n2) = rollout_counts(cells, f, Direction::NewToOld);
                (
                    [format!("{s1} / {r1} of {n1}"), format!("{s2} / {r2} of {n2}")],
                    format!("{} of {}", s1 + r1 + s2 + r2, n1 + n2),
                )
            }
        };
        let _ = writeln!(o, "| {f} | {} | {} | {broken} | {debug} |", dirs[0], dirs[1]);
    }
    super::verdict::library_table(o);
}

/// Which gzip time `sizes.csv` offers for every level: on-CPU µs when all
/// three levels record it in every row, else wall µs for all three (never a mix).
pub fn gzip_time_kind(sizes: &[super::parse::SizeRow]) -> &'static str {
    if !sizes.is_empty() && sizes.iter().all(|r| r.gzip_cpu().is_some()) {
        "on-CPU"
    } else {
        "wall"
    }
}

/// (level, bytes saved, server compress µs, client gunzip µs) of one size
/// row; compress times of the `kind` [`gzip_time_kind`] chose.
pub fn gzip_levels(r: &super::parse::SizeRow, kind: &str) -> Vec<(u8, f64, f64, Option<f64>)> {
    let raw = r.raw_bytes as f64;
    let t = match (kind, r.gzip_cpu()) {
        ("on-CPU", Some(c)) => c,
        _ => [r.gzip1_us, r.gzip6_us, r.gzip9_us],
    };
    vec![
        (1, raw - r.gzip1_bytes as f64, t[0], r.gunzip_us[0]),
        (6, raw - r.gzip6_bytes as f64, t[1], r.gunzip_us[1]),
        (9, raw - r.gzip9_bytes as f64, t[2], r.gunzip_us[2]),
    ]
}

/// Cost per million requests: one source per quantity (module docs of `verdict`).
fn costs(o: &mut String, d: &Data) {
    use super::verdict::{CLIENT_SOURCE, SERVER_SOURCE, file_rows};
    o.push_str("\n### Cost per million requests\n\n");
    let kind = d.sizes.as_deref().map_or("wall", gzip_time_kind);
    let _ = writeln!(
        o,
        "Median CPU per verified request × 10⁶, in core-seconds: server from `{SERVER_SOURCE}` (pinned, server only), client from `{CLIENT_SOURCE}` (end-to-end, its verifying decode included); compress: what gzip adds on the server, `sizes.csv`'s single-thread {kind} µs per body × 10⁶; egress: the exact body × 10⁶ (headers not counted). The end-to-end gzip runs are in DETAILS.md, not mixed in here.\n"
    );
    o.push_str("| products | format | server core-s | client core-s | + compress, gzip -1 | + compress, gzip -6 | egress raw | egress gzip -1 | egress gzip -6 |\n|---|---|---|---|---|---|---|---|---|\n");
    let gb = |b: u64| format!("{:.2} GB", b as f64 * 1e6 / 1e9);
    let opt = |x: Option<f64>| x.map_or("n/a".into(), super::numfmt::num);
    for c in COUNTS {
        let srv_rows = file_rows(d, SERVER_SOURCE, c);
        let cli_rows = file_rows(d, CLIENT_SOURCE, c);
        for f in formats() {
            let srv = med(&samples(&srv_rows, f, |r| r.cpu.and_then(|c| c.server_us_per_req)));
            let cli = med(&samples(&cli_rows, f, |r| r.cpu.and_then(|c| c.client_us_per_req)));
            let s = size(d, f, c);
            if srv.is_none() && cli.is_none() && s.is_none() {
                continue;
            }
            let levels = s.map(|r| gzip_levels(r, kind));
            let _ = writeln!(
                o,
                "| {c} | {f} | {} | {} | {} | {} | {} | {} | {} |",
                opt(srv),
                opt(cli),
                opt(levels.as_ref().map(|l| l[0].2)),
                opt(levels.as_ref().map(|l| l[1].2)),
                s.map_or("n/a".into(), |r| gb(r.raw_bytes)),
                s.map_or("n/a".into(), |r| gb(r.gzip1_bytes)),
                s.map_or("n/a".into(), |r| gb(r.gzip6_bytes)),
            );
        }
    }
}

/// The break-even of one level, or why there is none: a body that fits in
/// one packet saves no round trip (`verdict::ONE_PACKET`).
pub fn break_even_cell(raw_bytes: u64, saved: f64, cpu_us: f64) -> String {
    if raw_bytes <= super::verdict::ONE_PACKET {
        return "no: one packet either way".into();
    }
    break_even_mbps(saved, cpu_us).map_or("never".into(), |m| format!("{} Mbit/s", super::numfmt::num(m)))
}

/// The level that pays for one size row: the level with the highest
/// break-even (most bytes saved per µs of CPU), set beside gzip -6's saving
/// and CPU. None when nothing is saved or the body fits in one packet.
pub fn level_that_pays(r: &super::parse::SizeRow) -> Option<String> {
    if r.raw_bytes <= super::verdict::ONE_PACKET {
        return None;
    }
    let kind = gzip_time_kind(std::slice::from_ref(r));
    let levels = gzip_levels(r, kind);
    let cpu = |l: &(u8, f64, f64, Option<f64>)| l.2 + l.3.unwrap_or(0.0);
    let best = levels
        .iter()
        .filter(|l| l.1 > 0.0 && cpu(l) > 0.0)
        .max_by(|a, b| (a.1 / cpu(a)).total_cmp(&(b.1 / cpu(b))))?;
    let six = &levels[1];
    let bytes = |l: u8| match l {
        1 => r.gzip1_bytes,
        6 => r.gzip6_bytes,
        _ => r.gzip9_bytes,
    };
    let mut s = format!(
        "for {} at {} products, gzip -{} saves the most bytes per µs of CPU: {} bytes for {} µs ({kind}, compress + gunzip)",
        r.format,
        super::numfmt::group(r.count as i64),
        best.0,
        super::numfmt::group(bytes(best.0) as i64),
        super::numfmt::num(cpu(best))
    );
    if best.0 != 6 && six.1 > 0.0 && cpu(six) > 0.0 {
        let _ = write!(
            s,
            " against gzip -6's {} bytes for {} µs: {:.0}% of -6's saving at {:.0}% of its CPU",
            super::numfmt::group(r.gzip6_bytes as i64),
            super::numfmt::num(cpu(six)),
            100.0 * best.1 / six.1,
            100.0 * cpu(best) / cpu(six)
        );
    }
    Some(s)
}

/// Break-even link speeds, the level that pays, and the verdict for `--link-mbps`.
fn gzip_pays(o: &mut String, d: &Data) {
    let Some(sizes) = &d.sizes else { return };
    let kind = gzip_time_kind(sizes);
    o.push_str("\n### Does gzip pay? Break-even link speed\n\n");
    let _ = writeln!(
        o,
        "Per response: bytes saved × 8 ÷ (server compress µs + client gunzip µs), `sizes.csv`'s single-thread {kind} medians for every level. On a slower link gzip pays (per server core and client core); on a faster one it costs more than it saves. A body of at most {} bytes fits in one packet raw, so gzip saves no round trip: \"one packet\". {}\n",
        super::numfmt::group(super::verdict::ONE_PACKET as i64),
        if sizes.iter().all(|r| r.gzip_cpu_ci.iter().all(|c| c.is_some())) {
            "Each compress time has its 95% interval in `sizes.csv`."
        } else {
            "`sizes.csv` records one median per level, so these figures carry no interval."
        }
    );
    o.push_str(
        "| products | format | gzip -1 | gzip -6 | gzip -9 | the level that pays |\n|---|---|---|---|---|---|\n",
    );
    for r in sizes.iter().filter(|r| COUNTS.contains(&r.count)) {
        let levels = gzip_levels(r, kind);
        let cells: Vec<String> = levels
            .iter()
            .map(|&(_, saved, srv, cli)| break_even_cell(r.raw_bytes, saved, srv + cli.unwrap_or(0.0)))
            .collect();
        let best = levels
            .iter()
            .filter(|l| l.1 > 0.0 && l.2 + l.3.unwrap_or(0.0) > 0.0)
            .max_by(|a, b| (a.1 / (a.2 + a.3.unwrap_or(0.0))).total_cmp(&(b.1 / (b.2 + b.3.unwrap_or(0.0)))));
        let pays = match best {
            _ if r.raw_bytes <= super::verdict::ONE_PACKET => "none: one packet".to_string(),
            Some(l) => format!("gzip -{}", l.0),
            None => "none".into(),
        };
        let _ = writeln!(o, "| {} | {} | {} | {pays} |", r.count, r.format, cells.join(" | "));
    }
    if let Some(link) = d.link_mbps {
        let _ = writeln!(o, "\nOn a {link} Mbit/s link (`--link-mbps`), per response:\n");
        for r in sizes.iter().filter(|r| COUNTS.contains(&r.count)) {
            let best = gzip_levels(r, kind)
                .into_iter()
                .map(|(l, saved, srv, cli)| (l, net_saving_us(saved, srv + cli.unwrap_or(0.0), link)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            let verdict = match best {
                _ if r.raw_bytes <= super::verdict::ONE_PACKET => "one packet: send it raw".into(),
                Some((l, net)) if net > 0.0 => {
                    format!("gzip -{l} pays most: saves {} µs per response", super::numfmt::num(net))
                }
                _ => "no level pays: send it raw".into(),
            };
            let _ = writeln!(o, "- {} × {}: {verdict}", r.count, r.format);
        }
    }
}

/// The answers in prose that the verdict does not give: concurrency, and
/// what the figures do not mean.
fn prose(o: &mut String, d: &Data) {
    o.push_str("\n### What the data says\n\n");
    let stat = |file: &str, f: &str| {
        let s = d
            .http
            .iter()
            .find(|x| x.name == file)?
            .stats
            .iter()
            .find(|s| s.format == f && s.count == 1000)?;
        Some((s.concurrency, s.rps_ci?, s.p50_ms.median))
    };
    let pairs = [("http-c1.csv", "http.csv"), ("http.csv", "http-c16.csv")];
    let mut claims = Vec::new();
    for f in formats() {
        for (lo, hi) in pairs {
            if let (Some(a), Some(b)) = (stat(lo, f), stat(hi, f)) {
                claims.push(format!(
                    "{} (p50 {} → {} ms)",
                    super::verdict::concurrency_claim(f, (a.0, &a.1), (b.0, &b.1)),
                    super::numfmt::num(a.2),
                    super::numfmt::num(b.2)
                ));
            }
        }
    }
    if !claims.is_empty() {
        let _ = writeln!(
            o,
            "- **Concurrency** at 1,000 products (`http-c1.csv`, `http.csv`, `http-c16.csv`; \"flat\" when the two 95% intervals of requests/s overlap): {}. With client and server on the same cores, connections beyond what keeps them busy add queueing (p50 ≈ c ÷ requests/s).",
            claims.join("; ")
        );
    }
    o.push_str("- **What these figures do not mean.** The HTTP runs are loopback on one machine: no network latency, bandwidth limit or TLS, and the client shares the server's cores (only `http-server.csv` isolates the server). They are closed loops: latency is service time, not what users see under a fixed arrival rate. The catalog is synthetic (docs/SPEC.md); other data changes the sizes and the speeds. A `≈` means this run cannot tell the formats apart, not that they are equal.\n");
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
