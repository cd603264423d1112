#!/usr/bin/env python3
"""Captures real clients' request heads into fixtures/requests/ (fuzz and
mutation seeds). A loopback listener answers each request with a tiny 200 and
saves the bytes it received; curl, wrk and `wirebench load` are the clients.
Run from the repository root after `cargo build --release`:

    python3 fuzz/capture-requests.py
"""
import os, socket, subprocess, threading

OUT = "fixtures/requests"
captured = []

def serve(sock):
    while True:
        try:
            conn, _ = sock.accept()
        except OSError:
            return
        conn.settimeout(2)
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            body = b"ok"
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n" + body)
        except OSError:
            pass
        captured.append(data)
        conn.close()

def capture(name, cmd, port):
    before = len(captured)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)
    got = [c for c in captured[before:] if c]
    if got:
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(got[0])
        print(f"{name}: {len(got[0])} bytes")

def main():
    os.makedirs(OUT, exist_ok=True)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    threading.Thread(target=serve, args=(sock,), daemon=True).start()
    base = f"http://127.0.0.1:{port}"
    capture("curl-catalog-json.http", ["curl", "-s", f"{base}/catalog/json?count=1"], port)
    capture("curl-compressed.http", ["curl", "-s", "--compressed", f"{base}/catalog/avro?count=100"], port)
    capture("curl-head.http", ["curl", "-s", "-I", f"{base}/ping"], port)
    capture("curl-http10.http", ["curl", "-s", "-0", f"{base}/schemas/catalog.proto"], port)
    capture("curl-headers.http", ["curl", "-s", "-H", "Accept: application/vnd.msgpack",
                                  "-H", "X-Trace: a, b;q=0.5", "-H", "Connection: keep-alive",
                                  f"{base}/catalog/msgpack?count=3&gzip=1"], port)
    capture("curl-post-body.http", ["curl", "-s", "--data", "hello=world", f"{base}/ping"], port)
    capture("wrk-ping.http", ["wrk", "-t1", "-c1", "-d1s", f"{base}/ping"], port)
    capture("wirebench-bench.http", ["target/release/wirebench", "load", "--url",
                                     f"{base}/catalog/flatbuffers?count=10", "--duration", "1s",
                                     "--concurrency", "1"], port)
    sock.close()

main()

