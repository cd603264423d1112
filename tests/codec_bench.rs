//! `wirebench codec-bench` as a process: `--processes 2` shares the rounds
//! out over two child processes and writes one `codec.txt` whose rows hold
//! every batch, in process order, with the calibration samples numbered
//! over the whole run; the report's parser reads it.

use std::process::Command;

fn codec_bench(extra: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .args([
            "codec-bench",
            "--benchtime",
            "1ms",
            "--counts",
            "1",
            "--formats",
            "json,avro",
        ])
        .args(["--filter", "code/", "--out", "-", "--run-id", "test-run"])
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn two_processes_write_one_file_with_every_batch_and_sample() {
    let text = codec_bench(&["--count", "5", "--processes", "2"]);
    let f = wirebench::report::parse::codec("codec.txt", &text).unwrap();
    assert!(f.header.contains(&("processes".to_string(), "2".to_string())), "{text}");
    assert!(
        f.header.contains(&("run".to_string(), "test-run".to_string())),
        "{text}"
    );
    // Encode and Decode of two formats (the filter drops the other rows), 5 batches each.
    let mut rows: Vec<(String, usize)> = Vec::new();
    for l in &f.lines {
        let key = format!("{}/{}/{}", l.op, l.format, l.count);
        match rows.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => rows.push((key, 1)),
        }
    }
    assert_eq!(
        rows,
        [
            ("Encode/json/1".to_string(), 5),
            ("Decode/json/1".to_string(), 5),
            ("Encode/avro/1".to_string(), 5),
            ("Decode/avro/1".to_string(), 5)
        ],
        "{text}"
    );
    // Each line of a row is contiguous (grouped by row), and the run's
    // rounds 1..=5 (3 in the first process, 2 in the second) each have a sample.
    let mut rounds: Vec<usize> = f.calibration.iter().map(|s| s.round).collect();
    rounds.dedup();
    assert_eq!(rounds, [1, 2, 3, 4, 5], "{text}");
    // The children's own headers and footers stay out: one start, one end.
    assert_eq!(text.matches("\nstart: ").count(), 1, "{text}");
    assert_eq!(text.matches("\nend: ").count(), 1, "{text}");

    // One process: the same rows and rounds, no `processes` line.
    let one = wirebench::report::parse::codec("codec.txt", &codec_bench(&["--count", "5"])).unwrap();
    assert_eq!(one.lines.len(), f.lines.len());
    assert!(!one.header.iter().any(|(k, _)| k == "processes"));
    let mut r1: Vec<usize> = one.calibration.iter().map(|s| s.round).collect();
    r1.dedup();
    assert_eq!(r1, [1, 2, 3, 4, 5]);
}
