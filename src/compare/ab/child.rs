//! The child processes of `wirebench ab`: run one, with a bound on what is
//! read from it and on how long it may take.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Most bytes read from one child's stdout or stderr.
pub const MAX_OUTPUT: u64 = 1 << 20;

/// The last lines of a child's stderr, for an error message.
pub fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(8)..].join("\n")
}

/// Runs `cmd`, reading at most [`MAX_OUTPUT`] bytes of each stream, killing
/// it after `timeout`. Ok((stdout, stderr)) when it exits 0.
pub fn run_child(mut cmd: Command, timeout: Duration) -> Result<(String, String), String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start: {e}"))?;
    let reader = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(r) = r {
                let mut r = r.take(MAX_OUTPUT);
                let _ = r.read_to_end(&mut buf);
                // Drain the rest so the child never blocks on a full pipe.
                let _ = std::io::copy(&mut r.into_inner(), &mut std::io::sink());
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = reader(child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    let err = reader(child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait().map_err(|e| format!("wait: {e}"))? {
            Some(s) => break s,
            None if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("killed after {timeout:?} without finishing"));
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    let stdout = out.join().map_err(|_| "stdout reader panicked".to_string())?;
    let stderr = err.join().map_err(|_| "stderr reader panicked".to_string())?;
    if !status.success() {
        return Err(format!("{status}; its stderr ends:\n{}", tail(&stderr)));
    }
    Ok((stdout, stderr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_child_reports_failure_and_kills_a_hang() {
        let sh = |script: &str| {
            let mut c = Command::new("sh");
            c.args(["-c", script]);
            c
        };
        let e = run_child(sh("echo oops >&2; exit 3"), Duration::from_secs(5)).unwrap_err();
        assert!(e.contains("oops") && e.contains('3'), "{e}");
        let e = run_child(sh("exec sleep 30"), Duration::from_millis(100)).unwrap_err();
        assert!(e.contains("killed after"), "{e}");
        let (out, _) = run_child(sh("echo hi"), Duration::from_secs(5)).unwrap();
        assert_eq!(out, "hi\n");
    }
}
