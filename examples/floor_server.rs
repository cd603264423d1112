//! The blocking design's floor: a thread-per-connection `std::net` server
//! that answers every request with `/ping`'s body and does nothing else —
//! one `read` and one `write` per request, no parsing beyond finding the
//! end of the head, no pool, no limits, no timeouts. `benches/server-pressure.sh`
//! runs it beside `wirebench serve` as the reference for what the design
//! (one thread blocked in `read` per connection) can do at best.
//!
//! Not a server to use: a request split across reads or pipelined behind
//! another is answered once per read that ends a head.
//!
//! With `http` as its third argument it does, per request, what any
//! conforming HTTP/1.1 origin server must and nothing more: the request head
//! is parsed in full (wirebench's parser, `src/http/parse.rs`), the response
//! carries a `Date` (RFC 9110 §6.6.1; wirebench's once-a-second cache) and is
//! written with wirebench's head writer, and a blocked read has a timeout
//! (set once per connection). No routing, no pool, no limits beyond the
//! parser's, no metrics. The script runs it as `fhttp`: the cost of
//! HTTP itself on this design, between the bare floor and `wirebench serve`.
//! To take that cost apart, the third argument may name a part or several
//! joined by `+` instead: `parse` (the full parse; without it, the end of
//! the head is found as the bare floor finds it), `date` (the head written
//! per request with its `Date`; without it, the bare floor's fixed
//! response), `timeout` (the read timeout). `http` is `parse+date+timeout`.
//!
//! With `pool` (or `pool:N`) as its third argument it has the shape of
//! `wirebench serve` and nothing else: N workers (four per core by
//! default) take connections with bytes to read from one queue, answer as
//! the bare floor does (one `read` that does not wait, one `write`), and
//! park the connection again; one poller thread waits on every parked
//! connection with `epoll` (wirebench's
//! [`Epoll`](wirebench::http::sys::Epoll), each socket registered once,
//! edge-triggered) and queues each that becomes readable; bytes that
//! arrive while a worker has the connection hand it straight back to that
//! worker when it parks it; the poller runs below the workers' priority. No timeouts, no cap, no eviction: the floor of
//! the pool-and-poller design. The script runs it as `fpool`.
//!
//! Usage: `cargo run --release --example floor_server -- [ADDR] [BACKLOG] [MODE]`
//! (default `127.0.0.1:18092`, backlog 128 as std leaves it, the bare floor).

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};

const RESPONSE: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 18\r\n\r\n{\"message\":\"pong\"}";

fn serve(mut stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if buf[..n].ends_with(b"\r\n\r\n") && stream.write_all(RESPONSE).is_err() {
                    return;
                }
            }
        }
    }
}

/// What the `http` mode does per request beyond the bare floor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Parts {
    parse: bool,
    date: bool,
    timeout: bool,
}

impl Parts {
    /// `http`, or parts joined by `+` (`parse+timeout`).
    fn from_arg(arg: &str) -> Result<Parts, String> {
        if arg == "http" {
            return Ok(Parts {
                parse: true,
                date: true,
                timeout: true,
            });
        }
        let mut p = Parts::default();
        for part in arg.split('+') {
            match part {
                "parse" => p.parse = true,
                "date" => p.date = true,
                "timeout" => p.timeout = true,
                other => {
                    return Err(format!(
                        "MODE is `http` or parts among parse, date, timeout joined by `+`, not {other:?}"
                    ));
                }
            }
        }
        Ok(p)
    }
}

/// The `http` mode's connection: the parts asked for, else the bare floor's way.
fn serve_http(mut stream: TcpStream, parts: Parts) {
    use wirebench::http::response::{self, Connection, Head};
    use wirebench::http::{Limits, date::DateCache, parse};
    const BODY: &[u8] = b"{\"message\":\"pong\"}";
    let limits = Limits::default();
    let head_ok = Head::ok("application/json", "");
    let timeout = parts.timeout.then(|| std::time::Duration::from_secs(60));
    if stream.set_nodelay(true).is_err() || stream.set_read_timeout(timeout).is_err() {
        return;
    }
    let mut buf = vec![0u8; 4096];
    let mut head = Vec::with_capacity(256);
    let mut date = DateCache::new();
    let mut filled = 0;
    loop {
        match stream.read(&mut buf[filled..]) {
            Ok(0) | Err(_) => return,
            Ok(n) => filled += n,
        }
        loop {
            let used = if !parts.parse {
                if !buf[..filled].ends_with(b"\r\n\r\n") {
                    break;
                }
                filled
            } else {
                match parse::parse(&buf[..filled], &limits) {
                    Ok(parse::Parsed::Complete(req)) => req.head_len,
                    Ok(parse::Parsed::Partial) if filled < buf.len() => break,
                    _ => return, // a bad or oversized head: this floor just closes
                }
            };
            let sent = if parts.date {
                head.clear();
                response::write_head(&mut head, &head_ok, date.get(), BODY.len(), Connection::Default);
                response::send(&mut stream, &mut head, BODY)
            } else {
                stream.write_all(RESPONSE)
            };
            if sent.is_err() {
                return;
            }
            buf.copy_within(used..filled, 0);
            filled -= used;
            if filled == 0 {
                break;
            }
        }
    }
}

/// The `pool` mode: every open connection by token, and the queue of ready ones.
struct PoolFloor {
    epoll: wirebench::http::sys::Epoll,
    conns: Mutex<(u64, HashMap<u64, Entry>)>,
    ready: Mutex<VecDeque<(u64, TcpStream)>>,
    wake: Condvar,
}

/// A connection in the poller, or out with a worker (`ready`: bytes arrived meanwhile).
enum Entry {
    Parked(TcpStream),
    Out { ready: bool },
}

impl PoolFloor {
    /// A new connection: parked, then registered edge-triggered for good.
    fn admit(&self, stream: TcpStream) {
        let mut conns = self.conns.lock().unwrap();
        conns.0 += 1;
        let token = conns.0;
        let fd = std::os::fd::AsRawFd::as_raw_fd(&stream);
        conns.1.insert(token, Entry::Parked(stream));
        if self.epoll.watch(&fd, token).is_err() {
            conns.1.remove(&token);
        }
    }

    /// Parks `stream`, or gives it back when bytes arrived since its last read.
    fn park(&self, token: u64, stream: TcpStream) -> Option<TcpStream> {
        let mut conns = self.conns.lock().unwrap();
        match conns.1.get_mut(&token) {
            Some(Entry::Out { ready: true }) => {
                conns.1.insert(token, Entry::Out { ready: false });
                Some(stream)
            }
            Some(e) => {
                *e = Entry::Parked(stream);
                None
            }
            None => None,
        }
    }

    fn poller(&self) {
        let mut events = vec![wirebench::http::sys::EpollEvent::default(); 256];
        let mut woken = Vec::with_capacity(256);
        loop {
            let n = self.epoll.wait(&mut events, -1).unwrap_or(0);
            {
                let mut conns = self.conns.lock().unwrap();
                for e in &events[..n] {
                    let token = e.token();
                    match conns.1.get_mut(&token) {
                        Some(Entry::Out { ready }) => *ready = true,
                        Some(entry) => {
                            if let Entry::Parked(s) = std::mem::replace(entry, Entry::Out { ready: false }) {
                                woken.push((token, s));
                            }
                        }
                        None => {}
                    }
                }
            }
            let k = woken.len();
            self.ready.lock().unwrap().extend(woken.drain(..));
            for _ in 0..k {
                self.wake.notify_one();
            }
        }
    }

    fn worker(&self) {
        let mut buf = [0u8; 4096];
        loop {
            let (token, mut stream) = {
                let mut q = self.ready.lock().unwrap();
                loop {
                    match q.pop_front() {
                        Some(job) => break job,
                        None => q = self.wake.wait(q).unwrap(),
                    }
                }
            };
            let closed = loop {
                // A read that does not wait (readiness may be for bytes an
                // earlier read took); parked only once a read left the
                // socket empty, as the edge-triggered poller needs.
                match wirebench::http::sys::recv_nowait(&stream, &mut buf) {
                    Ok(0) => break true,
                    Ok(n) => {
                        if buf[..n].ends_with(b"\r\n\r\n") && stream.write_all(RESPONSE).is_err() {
                            break true;
                        }
                        if n == buf.len() {
                            continue;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                    Err(_) => break true,
                }
                match self.park(token, stream) {
                    Some(again) => stream = again,
                    None => break false,
                }
            };
            if closed {
                self.conns.lock().unwrap().1.remove(&token);
            }
        }
    }
}

fn serve_pool(listener: TcpListener, threads: usize) -> ! {
    let floor = Arc::new(PoolFloor {
        epoll: wirebench::http::sys::Epoll::new().expect("epoll_create1"),
        conns: Mutex::new((0, HashMap::new())),
        ready: Mutex::new(VecDeque::new()),
        wake: Condvar::new(),
    });
    for _ in 0..threads {
        let floor = Arc::clone(&floor);
        std::thread::spawn(move || floor.worker());
    }
    let poller = Arc::clone(&floor);
    std::thread::spawn(move || {
        // Below the workers, as wirebench's poller runs (pool.rs, "Priority").
        let nice = wirebench::http::sys::thread_nice().unwrap_or(0);
        let _ = wirebench::http::sys::set_thread_nice((nice + wirebench::http::pool::POLLER_NICE_BELOW).min(19));
        poller.poller()
    });
    loop {
        if let Ok((stream, _)) = listener.accept() {
            let _ = stream.set_nodelay(true);
            floor.admit(stream);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:18092".into());
    let listener = TcpListener::bind(&addr).unwrap_or_else(|e| panic!("bind {addr}: {e}"));
    if let Some(backlog) = args.next() {
        let backlog: u32 = backlog.parse().expect("BACKLOG is a number");
        wirebench::http::sys::set_backlog(&listener, backlog).expect("listen(2)");
    }
    let mode = args.next();
    if let Some(pool) = mode.as_deref().and_then(|m| m.strip_prefix("pool")) {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = match pool.strip_prefix(':') {
            Some(n) => n.parse().expect("pool:N, N a number of workers"),
            None if pool.is_empty() => 4 * cores,
            None => panic!("MODE pool or pool:N, not pool{pool}"),
        };
        println!("floor_server: listening on http://{addr} (pool of {threads} and a poller)");
        serve_pool(listener, threads);
    }
    let parts = match mode.as_deref().map(Parts::from_arg) {
        None => None,
        Some(Ok(p)) => Some(p),
        Some(Err(e)) => panic!("{e}"),
    };
    println!(
        "floor_server: listening on http://{addr}{}",
        mode.map(|m| format!(" ({m})")).unwrap_or_default()
    );
    for stream in listener.incoming().flatten() {
        let _ = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || match parts {
                Some(parts) => serve_http(stream, parts),
                None => serve(stream),
            });
    }
}
