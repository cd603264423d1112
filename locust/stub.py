"""A stub catalog server for the Locust self-test: a wrong format on one route.

It forwards every GET to an upstream wirebench server (``--upstream``), except
``/catalog/{--wrong}``, which it answers with the upstream's JSON body for the
same query under the wrong route's Content-Type. A load test that verifies
bodies must count every such response as a failure.

Loopback only; it exits by itself after ``--lifetime`` seconds.
"""

import argparse
import http.client
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MEDIA_TYPES = {
    "json": "application/json",
    "msgpack": "application/vnd.msgpack",
    "protobuf": "application/protobuf",
    "avro": "avro/binary",
    "flatbuffers": "application/x-flatbuffers",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--upstream", required=True, help="host:port of a wirebench server on loopback")
    ap.add_argument("--wrong", default="msgpack", choices=sorted(MEDIA_TYPES))
    ap.add_argument("--lifetime", type=float, default=120.0)
    args = ap.parse_args()
    up_host, up_port = args.upstream.rsplit(":", 1)
    if up_host not in ("127.0.0.1", "localhost", "::1"):
        sys.exit("stub: the upstream must be on loopback")
    local = threading.local()
    wrong_path = f"/catalog/{args.wrong}"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_a):
            pass

        def do_GET(self):  # noqa: N802 (http.server's name)
            conn = getattr(local, "conn", None)
            if conn is None:
                conn = local.conn = http.client.HTTPConnection(up_host, int(up_port), timeout=10)
            path, _, query = self.path.partition("?")
            wrong = path == wrong_path
            target = f"/catalog/json?{query}" if wrong else self.path
            try:
                conn.request("GET", target, headers={k: v for k, v in self.headers.items() if k.lower() == "accept"})
                r = conn.getresponse()
                body = r.read()
            except (OSError, http.client.HTTPException):
                local.conn = None
                self.send_error(502)
                return
            self.send_response(r.status)
            for k, v in r.getheaders():
                if k.lower() in ("content-length", "connection", "date", "server"):
                    continue
                if wrong and k.lower() == "content-type":
                    v = MEDIA_TYPES[args.wrong]
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Timer(args.lifetime, server.shutdown).start()
    print(f"stub: listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
