//! The `--http` cases of `wirebench ab`: the server-only pass of
//! `benches/server-only.sh`, one build against the other.
//!
//! Each build's `wirebench serve` starts once, both pinned to the CPU the
//! codec batches use; one load generator (this binary's `load --server
//! ADDR --server-pid PID`, pinned to another CPU) then measures a case
//! (`http/{format}/{count}`, e.g. `http/json/1000` for
//! `/catalog/json?count=1000`) for one `--http-duration` run per side and
//! round, in the same side order as the codec rows. The sample is the
//! server's CPU µs per request (its process and all its threads), which the
//! load generator's own CPU and the loopback wait leave out.
//!
//! A server that does not accept connections within [`READY_TIMEOUT`], a
//! load run with a failed request, or a CSV without the server's CPU column
//! ends the run with an error. Servers are killed when their [`Server`] drops.

use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a server may take to accept its first connection.
pub const READY_TIMEOUT: Duration = Duration::from_secs(20);

/// Product counts of the HTTP cases.
pub const COUNTS: [usize; 3] = [1, 100, 1000];

/// The HTTP case names, `http/{format}/{count}`.
pub fn case_names() -> Vec<String> {
    let mut out = Vec::new();
    for n in COUNTS {
        for f in crate::codec::Format::ALL {
            out.push(format!("http/{}/{n}", f.name()));
        }
    }
    out
}

/// A running `wirebench serve` of one build; killed on drop.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `bin`, under `taskset -c CPU` when pinned.
pub(super) fn pinned(cpu: Option<usize>, bin: &Path) -> Command {
    match cpu {
        Some(c) => {
            let mut cmd = Command::new("taskset");
            cmd.args(["-c", &c.to_string()]).arg(bin);
            cmd
        }
        None => Command::new(bin),
    }
}

/// Starts `bin serve` on a free loopback port, pinned to `cpu`, and waits
/// until it accepts a connection.
pub fn start(bin: &Path, cpu: Option<usize>) -> Result<Server, String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("no free loopback port: {e}"))?
        .port();
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let child = pinned(cpu, bin)
        .args(["serve", "--addr", &addr.to_string(), "--max-count", "1000"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{} serve: cannot start: {e}", bin.display()))?;
    let mut server = Server { child, addr };
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(server);
        }
        if let Ok(Some(status)) = server.child.try_wait() {
            return Err(format!("{} serve --addr {addr}: exited with {status}", bin.display()));
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "{} serve --addr {addr}: not accepting after {READY_TIMEOUT:?}",
                bin.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One load run of `case` against `server`: the server's CPU µs per request.
pub fn sample(
    load_bin: &Path,
    cpu: Option<usize>,
    server: &Server,
    case: &str,
    duration: Duration,
) -> Result<f64, String> {
    let (format, count) = match case.split('/').collect::<Vec<_>>().as_slice() {
        ["http", f, n] => (f.to_string(), n.to_string()),
        _ => return Err(format!("{case:?}: expected http/FORMAT/COUNT")),
    };
    let mut cmd = pinned(cpu, load_bin);
    cmd.args(["load", "--server", &server.addr.to_string()])
        .args(["--server-pid", &server.child.id().to_string()])
        .args(["--formats", &format, "--counts", &count, "--rounds", "1"])
        .args(["--duration", &format!("{}ns", duration.as_nanos())]);
    let (stdout, _) = super::child::run_child(cmd, duration * 10 + Duration::from_secs(60))
        .map_err(|e| format!("load {case} against {}: {e}", server.addr))?;
    parse_sample(&stdout, case)
}

/// The server CPU per request of the one row of a `load` CSV.
fn parse_sample(csv: &str, case: &str) -> Result<f64, String> {
    let rows = crate::report::parse::http("stdout", csv).map_err(|e| format!("load {case}: {e}"))?;
    let [row] = rows.as_slice() else {
        return Err(format!("load {case}: expected one CSV row, found {}", rows.len()));
    };
    let failed: u64 = row.errors.iter().sum();
    if failed > 0 {
        return Err(format!("load {case}: {failed} requests failed"));
    }
    row.server_cpu()
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or_else(|| format!("load {case}: no server CPU per request in its CSV"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_names_and_parse_sample() {
        let names = case_names();
        assert_eq!(names.len(), 15);
        assert!(names.contains(&"http/json/1000".to_string()));
        let header = crate::measure::results::HTTP_HEADER;
        let cols = header.split(',').count();
        let row = |server: &str, err: &str| {
            let mut v = vec![
                "1", "json", "1000", "none", "8", "0.5", "100", "200", "1", "1", "1", "1", "1", "1", "1",
            ];
            v.extend([
                err, "0", "0", "0", "0", "0", "0", server, "0.9", "50", "0.9", "60", "borrowed", "", "",
            ]);
            assert_eq!(v.len(), cols);
            format!("{header}\n{}\n", v.join(","))
        };
        assert_eq!(parse_sample(&row("123.5", "0"), "http/json/1000"), Ok(123.5));
        let e = parse_sample(&row("123.5", "3"), "http/json/1000").unwrap_err();
        assert!(e.contains("3 requests failed"), "{e}");
        let e = parse_sample(&row("", "0"), "http/json/1000").unwrap_err();
        assert!(e.contains("no server CPU"), "{e}");
        assert!(parse_sample("garbage", "http/json/1000").is_err());
    }
}
