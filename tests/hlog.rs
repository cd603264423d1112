//! HdrHistogram interval logs against the reference `hdrhistogram` crate,
//! both ways: our `.hlog` read by its log reader and deserializer, and its
//! logs (V2 compressed, written by its `IntervalLogWriter`) read by us. The
//! uncompressed V2 bytes of the same counts must be identical.

use base64::Engine as _;
use hdrhistogram::Histogram as Reference;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, IntervalLogWriterBuilder, LogEntry, Tag};
use hdrhistogram::serialization::{Deserializer, Serializer as _, V2DeflateSerializer, V2Serializer};
use std::time::Duration;
use wirebench::measure::histogram::Histogram;
use wirebench::measure::hlog::{self, Layout, WriteInterval};
use wirebench::prng::Rng;

/// A latency-like sample set: mostly 50 µs–2 ms, a tail to seconds, some tiny values.
fn sample(seed: u64, n: usize) -> Histogram {
    let mut rng = Rng::new(seed);
    let mut h = Histogram::new();
    for _ in 0..n {
        let r = rng.next_u64();
        let v = match r % 100 {
            0 => r % 3_000_000_000,
            1..=3 => r % 300,
            _ => 50_000 + r % 2_000_000,
        };
        h.record(v);
    }
    h
}

/// The reference histogram holding the same counts as our conversion.
fn reference_of(hdr: &hlog::Hdr) -> Reference<u64> {
    let l = hdr.layout;
    let mut r = Reference::<u64>::new_with_bounds(l.lowest, l.highest, l.digits).unwrap();
    for &(i, c) in &hdr.counts {
        let (low, _) = l.slot(i).unwrap();
        r.record_n(low, c).unwrap();
    }
    r
}

#[test]
fn v2_bytes_are_identical_to_the_reference() {
    for seed in 0..8 {
        let h = sample(seed, 5_000);
        let hdr = hlog::to_hdr(&h);
        let mut theirs = Vec::new();
        V2Serializer::new().serialize(&reference_of(&hdr), &mut theirs).unwrap();
        assert_eq!(hlog::encode_v2(&hdr), theirs, "seed {seed}");
    }
}

#[test]
fn our_log_read_by_the_reference() {
    let h = sample(1, 20_000);
    let text = hlog::write_log(
        &["a test run".to_string()],
        1_764_571_200.5,
        &[WriteInterval {
            tag: "latency",
            start_s: 0.0,
            length_s: 2.5,
            histogram: &h,
        }],
    );
    let mut intervals = 0;
    let mut start_time = None;
    for entry in IntervalLogIterator::new(text.as_bytes()) {
        match entry.expect("the reference parses every line") {
            LogEntry::StartTime(t) => start_time = Some(t),
            LogEntry::BaseTime(_) => {}
            LogEntry::Interval(iv) => {
                intervals += 1;
                assert_eq!(iv.tag(), Tag::new("latency"));
                assert_eq!(iv.duration(), Duration::from_millis(2500));
                assert!((iv.max() - h.max() as f64 / 1e6).abs() < 1e-3);
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(iv.encoded_histogram())
                    .unwrap();
                let theirs: Reference<u64> = Deserializer::new().deserialize(&mut &bytes[..]).unwrap();
                assert_eq!(theirs.len(), h.count());
                // Every quantile within 0.5 % (our bucket's half width + one HdrHistogram slot).
                for q in [0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0] {
                    let (ours, refs) = (h.value_at_quantile(q) as f64, theirs.value_at_quantile(q) as f64);
                    assert!(
                        (ours - refs).abs() <= ours * 0.005 + 1.0,
                        "q {q}: ours {ours}, reference {refs}"
                    );
                }
            }
        }
    }
    assert_eq!(intervals, 1);
    assert_eq!(start_time, Some(Duration::from_millis(1_764_571_200_500)));
}

#[test]
fn reference_logs_read_by_us() {
    for (seed, digits, low, high) in [
        (3u64, 3u8, 1u64, 3_600_000_000_000u64),
        (4, 2, 1, 1 << 40),
        (5, 5, 1000, 1 << 50),
    ] {
        let mut rng = Rng::new(seed);
        let mut a = Reference::<u64>::new_with_bounds(low, high, digits).unwrap();
        let mut b = Reference::<u64>::new_with_bounds(low, high, digits).unwrap();
        for _ in 0..10_000 {
            a.record(low + rng.next_u64() % 5_000_000).unwrap();
            b.record(low + rng.next_u64() % 700_000_000).unwrap();
        }
        let mut text = Vec::new();
        let mut serializer = V2DeflateSerializer::new();
        let mut writer = IntervalLogWriterBuilder::new()
            .add_comment("written by the hdrhistogram crate")
            .with_start_time(std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000))
            .with_base_time(std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000))
            .begin_log_with(&mut text, &mut serializer)
            .unwrap();
        writer
            .write_histogram(&a, Duration::ZERO, Duration::from_secs(1), Tag::new("latency"))
            .unwrap();
        writer
            .write_histogram(&b, Duration::from_secs(1), Duration::from_secs(1), None)
            .unwrap();
        drop(writer);
        let log = hlog::read_log(std::str::from_utf8(&text).unwrap()).unwrap();
        assert_eq!(log.start_time, Some(1_700_000_000.0));
        assert_eq!(log.intervals.len(), 2, "seed {seed}");
        for (iv, theirs) in log.intervals.iter().zip([&a, &b]) {
            let layout = Layout::new(low, high, digits).unwrap();
            assert_eq!(iv.hdr.layout, layout);
            // Slot for slot: the same lowest-equivalent values and counts.
            let ours: Vec<(u64, u64)> = iv
                .hdr
                .counts
                .iter()
                .map(|&(i, c)| (layout.slot(i).unwrap().0, c))
                .collect();
            let refs: Vec<(u64, u64)> = theirs
                .iter_recorded()
                .map(|v| (theirs.lowest_equivalent(v.value_iterated_to()), v.count_at_value()))
                .collect();
            assert_eq!(ours, refs, "seed {seed}, digits {digits}");
            assert_eq!(iv.max, theirs.max() as f64);
            // And in our layout, quantiles agree within our bucket's half width plus theirs.
            let h = iv.hdr.to_histogram();
            for q in [0.01, 0.5, 0.99, 1.0] {
                let (o, r) = (h.value_at_quantile(q) as f64, theirs.value_at_quantile(q) as f64);
                let slack = r * (1.0 / 256.0 + 2.0 / 10f64.powi(i32::from(digits))) + low as f64;
                assert!((o - r).abs() <= slack, "seed {seed} q {q}: ours {o}, reference {r}");
            }
        }
        assert_eq!(log.intervals[0].tag.as_deref(), Some("latency"));
        assert_eq!(log.intervals[1].tag, None);
    }
}

/// `wirebench report` pools `.hlog` files as it pools `.hist` ones: the
/// report fixtures with every `.hist` replaced by its `.hlog` give the same
/// pooled percentiles within the conversion's 0.5 %.
#[test]
fn report_pools_hlog_files() {
    let from = std::path::Path::new("fixtures/report");
    let dir = std::env::temp_dir().join(format!("wirebench-hlog-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("histograms")).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
        }
    }
    let mut converted = 0;
    for e in std::fs::read_dir(from.join("histograms")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        let Some(stem) = name.strip_suffix(".hist") else {
            continue;
        };
        let h = Histogram::read_text(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let text = hlog::write_log(
            &[],
            0.0,
            &[WriteInterval {
                tag: "latency",
                start_s: 0.0,
                length_s: 1.0,
                histogram: &h,
            }],
        );
        std::fs::write(dir.join("histograms").join(format!("{stem}.hlog")), text).unwrap();
        converted += 1;
    }
    assert!(converted > 0);
    let original = wirebench::report::load(from).unwrap();
    let from_logs = wirebench::report::load(&dir).unwrap();
    let pooled = |d: &wirebench::report::Data| {
        let http = &d.http.iter().find(|f| f.name == "http.csv").unwrap().stats;
        let j = http.iter().find(|s| s.format == "json" && s.count == 1000).unwrap();
        (j.pooled_p95_ms.unwrap(), j.pooled_p99_ms.unwrap())
    };
    let ((a95, a99), (b95, b99)) = (pooled(&original), pooled(&from_logs));
    assert!((a95 - b95).abs() <= a95 * 0.005, "p95 {a95} vs {b95}");
    assert!((a99 - b99).abs() <= a99 * 0.005, "p99 {a99} vs {b99}");
    let _ = std::fs::remove_dir_all(&dir);
}
