"""Self-test of wbcheck.py on the golden files, without a server (run by test.sh).

For every format and fixtures/golden/catalog-{1,3}.<ext>:

- the golden body passes `decode` and, against digests of its own bytes,
  `digest`; gzipped by Python's gzip it passes `decode` with compression=gzip;
- every truncation fails in `decode`, with a reason that starts with the format
  (FlatBuffers: but for the alignment padding at the end of the buffer, which
  no offset points into, so Python's reader, which has no verifier, reads the
  same products without it);
- every single-byte change fails in `digest`, and in `decode` either fails or
  decodes to exactly the fixture's products (a changed padding byte);
- a body of another format fails in `decode`;
- `check` never raises, whatever the body.
"""

import gzip
import hashlib
import os
import sys

import wbcheck

EXT = {"json": "json", "msgpack": "msgpack", "protobuf": "pb", "avro": "avro", "flatbuffers": "fb"}
GOLDEN = os.path.join(wbcheck.REPO, "fixtures", "golden")
CT = {f: {"content-type": t} for f, t in wbcheck.MEDIA_TYPES.items()}


def main():
    products = wbcheck.load_fixture()
    decode = wbcheck.Checker("decode", products)
    errors = []
    checked = 0
    for fmt, ext in EXT.items():
        for n in (1, 3):
            body = open(os.path.join(GOLDEN, f"catalog-{n}.{ext}"), "rb").read()
            digests = {(fmt, n, "none"): hashlib.sha256(body).hexdigest()}
            digest = wbcheck.Checker("digest", digests=digests)
            if (r := decode.check(fmt, n, "none", 200, CT[fmt], body)) is not None:
                errors.append(f"{fmt} x{n}: golden body fails decode: {r}")
            if (r := digest.check(fmt, n, "none", 200, CT[fmt], body)) is not None:
                errors.append(f"{fmt} x{n}: golden body fails digest: {r}")
            gz = gzip.compress(body)
            hdrs = dict(CT[fmt], **{"content-encoding": "gzip"})
            if (r := decode.check(fmt, n, "gzip", 200, hdrs, gz)) is not None:
                errors.append(f"{fmt} x{n}: gzipped golden body fails decode: {r}")
            if decode.check(fmt, n, "gzip", 200, CT[fmt], gz) is None:
                errors.append(f"{fmt} x{n}: gzip without Content-Encoding passes")
            for cut in range(len(body)):
                r = decode.check(fmt, n, "none", 200, CT[fmt], body[:cut])
                checked += 1
                padding = fmt == "flatbuffers" and cut >= len(body) - 7
                if (r is None and not padding) or (r is not None and not r.startswith(f"{fmt}: ")):
                    errors.append(f"{fmt} x{n}: truncated at {cut}: {r!r}")
            for i in range(len(body)):
                bad = bytearray(body)
                bad[i] ^= 0x41
                bad = bytes(bad)
                checked += 1
                if digest.check(fmt, n, "none", 200, CT[fmt], bad) is None:
                    errors.append(f"{fmt} x{n}: byte {i} changed passes digest")
                r = decode.check(fmt, n, "none", 200, CT[fmt], bad)
                if r is not None and not r.startswith(f"{fmt}: "):
                    errors.append(f"{fmt} x{n}: byte {i} changed: reason does not name {fmt}: {r}")
            for other, other_ext in EXT.items():
                if other == fmt:
                    continue
                wrong = open(os.path.join(GOLDEN, f"catalog-{n}.{other_ext}"), "rb").read()
                if decode.check(fmt, n, "none", 200, CT[fmt], wrong) is None:
                    errors.append(f"{other} body passes as {fmt}")
    print(f"check_wbcheck: {checked} altered bodies checked, {len(errors)} problems")
    for e in errors[:20]:
        print("  -", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
