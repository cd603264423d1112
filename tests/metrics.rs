//! `GET /metrics` over real sockets: the body parses as the Prometheus text
//! exposition format 0.0.4, counters rise with requests, and histogram
//! buckets are cumulative and end in `+Inf` = `_count`.

mod support;
use std::collections::BTreeMap;
use support::server::{self, Client};

/// Label pairs, sorted by name.
type Labels = Vec<(String, String)>;
/// One sample: metric name, labels, value.
type Samples = BTreeMap<(String, Labels), f64>;

/// A strict reader of the text format: `# HELP`/`# TYPE` comments, then
/// `name{label="value",...} number` lines; every sample's family has a TYPE.
fn parse(text: &str) -> Samples {
    let mut types: BTreeMap<String, String> = BTreeMap::new();
    let mut samples = Samples::new();
    for (n, line) in text.lines().enumerate() {
        let at = || format!("line {}: {line:?}", n + 1);
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, ty) = rest.split_once(' ').unwrap_or_else(|| panic!("{}", at()));
            assert!(["counter", "gauge", "histogram"].contains(&ty), "{}", at());
            assert!(
                types.insert(name.to_string(), ty.to_string()).is_none(),
                "TYPE twice: {}",
                at()
            );
            continue;
        }
        if line.starts_with("# HELP ") {
            continue;
        }
        assert!(!line.starts_with('#') && !line.is_empty(), "{}", at());
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{}", at()));
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("value: {}", at()));
        let (name, labels) = match series.split_once('{') {
            None => (series, Vec::new()),
            Some((name, rest)) => {
                let body = rest.strip_suffix('}').unwrap_or_else(|| panic!("labels: {}", at()));
                let mut labels = Vec::new();
                for pair in body.split("\",").filter(|p| !p.is_empty()) {
                    let (k, v) = pair.split_once("=\"").unwrap_or_else(|| panic!("label: {}", at()));
                    assert!(k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "{}", at());
                    labels.push((k.to_string(), v.trim_end_matches('"').to_string()));
                }
                labels.sort();
                (name, labels)
            }
        };
        assert!(
            name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
            "{}",
            at()
        );
        let family = ["_bucket", "_sum", "_count"]
            .iter()
            .find_map(|s| {
                name.strip_suffix(s)
                    .filter(|f| types.get(*f).is_some_and(|t| t == "histogram"))
            })
            .unwrap_or(name);
        assert!(types.contains_key(family), "sample before its TYPE: {}", at());
        assert!(
            samples.insert((name.to_string(), labels), value).is_none(),
            "duplicate: {}",
            at()
        );
    }
    samples
}

fn scrape(c: &mut Client) -> Samples {
    let resp = c.get("/metrics");
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("text/plain; version=0.0.4"));
    parse(&resp.text())
}

fn labels(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    v.sort();
    v
}

fn get(s: &Samples, name: &str, pairs: &[(&str, &str)]) -> f64 {
    s.get(&(name.to_string(), labels(pairs))).copied().unwrap_or(0.0)
}

#[test]
fn counters_rise_with_requests() {
    let s = server::start();
    let mut c = Client::connect(s.local_addr());
    let before = scrape(&mut c);
    let ping = [("route", "/ping"), ("format", "none"), ("status", "200")];
    let avro = [("route", "/catalog/{format}"), ("format", "avro"), ("status", "200")];
    for _ in 0..5 {
        assert_eq!(c.get("/ping").status, 200);
    }
    let avro_body = c.get("/catalog/avro?count=10").body.len();
    assert_eq!(c.get("/nope").status, 404);
    // A second connection is served by another worker: its counts are summed in.
    // A worker counts a response after sending it, so the first request on
    // `other` is surely counted once the second one is answered.
    let mut other = Client::connect(s.local_addr());
    assert_eq!(other.get("/ping").status, 200);
    assert_eq!(other.get("/ping").status, 200);
    let after = scrape(&mut c);
    let requests = "wirebench_http_requests_total";
    // 5 + 1 counted for sure; the last one on `other` may or may not be yet.
    let pings = get(&after, requests, &ping) - get(&before, requests, &ping);
    assert!(pings == 6.0 || pings == 7.0, "{pings}");
    assert_eq!(get(&after, requests, &avro) - get(&before, requests, &avro), 1.0);
    assert_eq!(
        get(&after, "wirebench_http_response_bytes_total", &avro),
        avro_body as f64
    );
    assert_eq!(
        get(
            &after,
            requests,
            &[("route", "other"), ("format", "none"), ("status", "404")]
        ),
        1.0
    );
    assert_eq!(
        get(&after, "wirebench_encode_duration_seconds_count", &[("format", "avro")]),
        1.0
    );
    assert!(get(&after, "wirebench_encode_duration_seconds_sum", &[("format", "avro")]) > 0.0);
    let timed = get(
        &after,
        "wirebench_http_request_duration_seconds_count",
        &[("route", "/ping")],
    );
    assert!(timed == 6.0 || timed == 7.0, "{timed}");
    // Two connections are open (the scrape's and `other`): one worker is
    // busy (the scrape's), `other` waits in the poller.
    assert!(get(&after, "wirebench_http_open_connections", &[]) >= 2.0);
    assert!(get(&after, "wirebench_http_worker_threads", &[("state", "busy")]) >= 1.0);
    assert!(get(&after, "wirebench_http_parked_connections", &[]) >= 1.0);
    assert_eq!(get(&after, "wirebench_http_queued_connections", &[]), 0.0);
    assert_eq!(get(&after, "wirebench_http_refused_connections_total", &[]), 0.0);
}

#[test]
fn histogram_buckets_are_cumulative() {
    let s = server::start();
    let mut c = Client::connect(s.local_addr());
    for count in [1, 10, 100, 1000] {
        for format in ["json", "msgpack", "protobuf"] {
            assert_eq!(c.get(&format!("/catalog/{format}?count={count}")).status, 200);
        }
    }
    let samples = scrape(&mut c);
    let mut histograms = 0;
    for family in [
        "wirebench_http_request_duration_seconds",
        "wirebench_encode_duration_seconds",
    ] {
        // Group the buckets of each label set (everything but `le`).
        let mut series: BTreeMap<Labels, Vec<(f64, f64)>> = BTreeMap::new();
        for ((name, labels), value) in &samples {
            if name != &format!("{family}_bucket") {
                continue;
            }
            let le = labels.iter().find(|(k, _)| k == "le").expect("le label").1.clone();
            let le: f64 = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().unwrap()
            };
            let rest: Vec<(String, String)> = labels.iter().filter(|(k, _)| k != "le").cloned().collect();
            series.entry(rest).or_default().push((le, *value));
        }
        assert!(!series.is_empty(), "{family} has no buckets");
        for (labels, mut buckets) in series {
            buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
            assert!(
                buckets.windows(2).all(|w| w[0].1 <= w[1].1),
                "{family}{labels:?} not cumulative: {buckets:?}"
            );
            let (le, last) = *buckets.last().unwrap();
            assert_eq!(le, f64::INFINITY, "{family}{labels:?} lacks +Inf");
            let count = samples[&(format!("{family}_count"), labels.clone())];
            assert_eq!(last, count, "{family}{labels:?}: +Inf bucket is not _count");
            assert!(samples.contains_key(&(format!("{family}_sum"), labels)));
            histograms += 1;
        }
    }
    // /catalog/{format} request times and three encode histograms at least.
    assert!(histograms >= 4, "{histograms}");
    assert_eq!(
        get(
            &samples,
            "wirebench_encode_duration_seconds_count",
            &[("format", "json")]
        ),
        4.0
    );
}

#[test]
fn refusals_are_counted() {
    // Two connections mid-request (none idle, so none can be evicted), then
    // a third is refused; one of the two then asks for /metrics.
    let s = server::start_with(|c| c.server.max_connections = 2);
    let addr = s.local_addr();
    let mut held: Vec<Client> = (0..2).map(|_| Client::connect(addr)).collect();
    for c in &mut held {
        assert_eq!(c.get("/ping").status, 200);
    }
    held[0].send(b"GET /metrics HTTP/1.1\r\n");
    held[1].send(b"GET /ping HTTP/1.1\r\n");
    server::wait_until("both workers read their partial heads", || {
        let st = s.stats();
        st.idle_connections == 0 && st.parked == 0 && st.queued == 0 && st.threads - st.idle == 2
    });
    let mut refused = Client::connect(addr);
    assert_eq!(refused.read_response(false).status, 503);
    held[0].send(b"Host: t\r\n\r\n");
    let r = held[0].read_response(false);
    assert_eq!(r.status, 200);
    let samples = parse(&r.text());
    assert_eq!(get(&samples, "wirebench_http_refused_connections_total", &[]), 1.0);
    assert_eq!(
        get(&samples, "wirebench_http_worker_threads", &[("state", "busy")]),
        2.0
    );
}

#[test]
fn the_listen_queue_and_the_machine_s_overflows_are_exported() {
    let srv = server::start_with(|c| c.server.backlog = 100);
    let mut c = Client::connect(srv.local_addr());
    let samples = scrape(&mut c);
    for (name, pairs) in [
        ("wirebench_listen_backlog", &[][..]),
        ("wirebench_listen_queue_length", &[]),
        ("wirebench_listen_drops_total", &[]),
        ("wirebench_tcp_listen_overflows_total", &[("scope", "machine")]),
        ("wirebench_tcp_listen_drops_total", &[("scope", "machine")]),
    ] {
        assert!(
            samples.contains_key(&(name.to_string(), labels(pairs))),
            "{name} is missing"
        );
    }
    assert_eq!(get(&samples, "wirebench_listen_backlog", &[]), 100.0);
    assert_eq!(
        get(&samples, "wirebench_sched_realtime", &[]),
        0.0,
        "the fair class by default"
    );
    assert_eq!(get(&samples, "wirebench_listen_queue_length", &[]), 0.0);
    assert_eq!(get(&samples, "wirebench_listen_drops_total", &[]), 0.0);
    let netstat = std::fs::read_to_string("/proc/net/netstat").unwrap();
    let (overflows, drops) = wirebench::http::metrics::listen_overflows(&netstat).unwrap();
    let machine = [("scope", "machine")];
    // Machine-wide: other processes' listeners may overflow between the two reads.
    assert!(get(&samples, "wirebench_tcp_listen_overflows_total", &machine) <= overflows as f64);
    assert!(get(&samples, "wirebench_tcp_listen_drops_total", &machine) <= drops as f64);
}

#[test]
fn the_longest_queue_wait_is_a_real_wait_within_the_server_s_life() {
    let born = std::time::Instant::now();
    let s = server::start();
    let mut c = Client::connect(s.local_addr());
    // The scrape's own connection was accepted, queued and taken by a worker.
    let wait = get(&scrape(&mut c), "wirebench_http_queue_wait_max_seconds", &[]);
    let life = born.elapsed().as_secs_f64();
    // Seconds, not micro- or nanoseconds: no wait outlasts the server.
    assert!(wait > 0.0 && wait <= life, "queue wait {wait} s, server alive {life} s");
}
