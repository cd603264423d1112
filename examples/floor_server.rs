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
//! Usage: `cargo run --release --example floor_server -- [ADDR] [BACKLOG]`
//! (default `127.0.0.1:18092`, backlog 128 as std leaves it).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};

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

fn main() {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:18092".into());
    let listener = TcpListener::bind(&addr).unwrap_or_else(|e| panic!("bind {addr}: {e}"));
    if let Some(backlog) = args.next() {
        let backlog: u32 = backlog.parse().expect("BACKLOG is a number");
        wirebench::http::sys::set_backlog(&listener, backlog).expect("listen(2)");
    }
    println!("floor_server: listening on http://{addr}");
    for stream in listener.incoming().flatten() {
        let _ = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(move || serve(stream));
    }
}
