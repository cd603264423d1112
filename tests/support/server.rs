//! Test helpers for the HTTP server: start one on an ephemeral loopback port
//! (`Bound::start` returns once listening, so there is no readiness wait),
//! and a tiny raw-socket client that reads exactly one response at a time by
//! its `Content-Length`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;
use wirebench::http::metrics::Exposition;
use wirebench::http::parse::Request;
use wirebench::http::response::Head;
use wirebench::http::{Bound, Handler, Server, ServerConfig};
use wirebench::serve::Config;
use wirebench::serve::routes::{App, Body, Reply, Scratch};

/// How long any client read may block before the test fails instead of hanging.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(10);

/// The production application plus `/__panic`, which panics inside the handler
/// (proves a panic becomes a 500 and the worker lives on), and `/__nice`,
/// which answers the nice value of the thread serving it (see [`serving_nice`]),
/// and `/__sched`, which answers its scheduling (`nice 0`, `SCHED_RR priority 1`).
#[derive(Debug)]
pub struct WithTestRoutes(pub App);

impl Handler for WithTestRoutes {
    fn handle(&self, req: &Request<'_>, s: &mut Scratch, metrics: &Exposition<'_>) -> Reply {
        test_route(req, s).unwrap_or_else(|| self.0.handle(req, s, metrics))
    }

    fn layout(&self) -> &'static wirebench::http::metrics::Layout {
        self.0.layout()
    }
}

fn test_route(req: &Request<'_>, s: &mut Scratch) -> Option<Reply> {
    if req.target == "/__panic" {
        panic!("test-only /__panic route");
    }
    if req.target == "/__sched" {
        let sched = wirebench::http::sys::thread_sched().expect("/proc/thread-self/stat");
        s.body.clear();
        s.body.extend_from_slice(sched.to_string().as_bytes());
        return Some(Reply::new(Head::ok("text/plain", ""), Body::Scratch));
    }
    if let Some(query) = req.target.strip_prefix("/__nice") {
        s.body.clear();
        s.body.extend_from_slice(serving_nice(query).as_bytes());
        return Some(Reply::new(Head::ok("text/plain", ""), Body::Scratch));
    }
    None
}

/// The calling thread's nice value as text. With `?raised` the thread first
/// raises itself to `RAISED_NICE` (where privileged) and drops back after
/// reading it: the self-test that the probe sees a raised serving thread.
fn serving_nice(query: &str) -> String {
    use wirebench::http::sys::{set_thread_nice, thread_nice};
    let before = thread_nice().expect("/proc/thread-self/stat");
    if query != "?raised" {
        return before.to_string();
    }
    if set_thread_nice(wirebench::http::pool::RAISED_NICE).is_err() {
        return "unprivileged".into();
    }
    let raised = thread_nice().expect("/proc/thread-self/stat");
    set_thread_nice(before).expect("lowering a priority needs no privilege");
    raised.to_string()
}

/// A test server: 1,000 products, the `/__panic` route added, short timeouts.
pub fn start_with(edit: impl FnOnce(&mut Config)) -> Server {
    bind_with(edit).start().expect("server starts")
}

/// The same server, bound and listening but not accepting yet.
pub fn bind_with(edit: impl FnOnce(&mut Config)) -> Bound {
    let mut config = Config {
        server: ServerConfig {
            addr: "127.0.0.1:0".into(),
            header_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(10),
            ..ServerConfig::default()
        },
        max_count: 1000,
        ..Config::default()
    };
    // To measure what the worker stack must hold: WIREBENCH_TEST_STACK=65536 cargo test --test http
    if let Some(bytes) = std::env::var("WIREBENCH_TEST_STACK").ok().and_then(|v| v.parse().ok()) {
        config.server.stack_size = bytes;
    }
    edit(&mut config);
    let app = App::prepare(&config).expect("the app prepares");
    Server::bind_with(config.server, Box::new(WithTestRoutes(app))).expect("server binds")
}

pub fn start() -> Server {
    start_with(|_| {})
}

/// One parsed response.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    /// Header names lowercased, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// A raw connection: write any bytes, read responses one by one.
pub struct Client {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    pub fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_read_timeout(Some(CLIENT_TIMEOUT)).unwrap();
        stream.set_nodelay(true).unwrap();
        Client {
            stream,
            buf: Vec::new(),
        }
    }

    pub fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("write request");
    }

    /// Sends `GET path HTTP/1.1` with a Host header.
    pub fn get(&mut self, path: &str) -> Response {
        self.send(format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes());
        self.read_response(false)
    }

    fn fill(&mut self) -> usize {
        let mut chunk = [0u8; 64 * 1024];
        let n = self.stream.read(&mut chunk).expect("read response");
        self.buf.extend_from_slice(&chunk[..n]);
        n
    }

    /// Reads one response; `head_request` means no body follows the head.
    pub fn read_response(&mut self, head_request: bool) -> Response {
        let head_end = loop {
            if let Some(i) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            assert!(
                self.fill() > 0,
                "connection closed before a full response head: {:?}",
                self.text()
            );
        };
        let head = String::from_utf8(self.buf[..head_end].to_vec()).expect("ASCII head");
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap();
        assert!(status_line.starts_with("HTTP/1.1 "), "status line {status_line:?}");
        let status = status_line[9..12].parse().expect("status code");
        let headers: Vec<(String, String)> = lines
            .filter(|l| !l.is_empty())
            .map(|l| {
                let (n, v) = l.split_once(':').expect("header line");
                (n.to_ascii_lowercase(), v.trim().to_string())
            })
            .collect();
        let len: usize = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .expect("Content-Length on every response")
            .1
            .parse()
            .unwrap();
        let body_len = if head_request { 0 } else { len };
        while self.buf.len() < head_end + body_len {
            assert!(self.fill() > 0, "connection closed inside a body");
        }
        let body = self.buf[head_end..head_end + body_len].to_vec();
        self.buf.drain(..head_end + body_len);
        Response { status, headers, body }
    }

    /// True when the server closed the connection (EOF, or reset after close).
    pub fn is_closed(&mut self) -> bool {
        if !self.buf.is_empty() {
            return false;
        }
        let mut b = [0u8; 1];
        match self.stream.read(&mut b) {
            Ok(0) => true,
            Ok(_) => {
                self.buf.push(b[0]);
                false
            }
            Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.buf).into_owned()
    }
}

/// `/ping` on a fresh connection answers 200 pong.
pub fn assert_alive(addr: SocketAddr) {
    let r = Client::connect(addr).get("/ping");
    assert_eq!(
        (r.status, r.text().as_str()),
        (200, r#"{"message":"pong"}"#),
        "server still answers /ping"
    );
}

/// Raises this process's soft open-file limit to `want` (or the hard limit)
/// with util-linux `prlimit` — no `unsafe` needed. Returns the soft limit in effect.
pub fn ensure_open_files(want: u64) -> u64 {
    let soft = || -> u64 {
        let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
        limits
            .lines()
            .find(|l| l.starts_with("Max open files"))
            .and_then(|l| l.split_whitespace().nth(3))
            .and_then(|v| v.parse().ok())
            .unwrap_or(u64::MAX)
    };
    if soft() >= want {
        return soft();
    }
    let pid = std::process::id().to_string();
    let _ = std::process::Command::new("prlimit")
        .args(["--pid", &pid, &format!("--nofile={want}:")])
        .status();
    soft()
}

/// Polls `done` (every millisecond, at most 5 s) for a state the server
/// reaches on its own threads; panics naming `what` when it never comes.
pub fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let end = std::time::Instant::now() + Duration::from_secs(5);
    while !done() {
        assert!(std::time::Instant::now() < end, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}
