"""The reader half of `make test-interop`: the widely used Python libraries
read the bytes wirebench wrote with the schemas
wirebench inferred and derived, and must get the document back.

    python3 check.py WORKDIR DOC...

For each DOC, WORKDIR/out/DOC holds doc.{avsc,proto,fbs} and the payloads
that `wirebench schema infer`, `schema derive` and `encode` wrote.
Readers: `msgpack` (doc.msgpack), `fastavro` (doc.avro, schemaless, with
doc.avsc), `protobuf` with the module `protoc` (grpcio-tools) generates from
doc.proto at test time (doc.pb), and `flatc --json` with doc.fbs (doc.fb).

"The same document" holds up to the documented conventions
(docs/DATA-SCHEMAS.md): a null or missing record field reads as absent, map
keys in any order, numbers compared as the schema's type (a double field's
`2` is `2.0`). Each payload is compared with the document through the Avro
schema, one reader per format, written here from the conventions and not
from wirebench's code. A self-test first shows the comparison can fail.
"""

import io
import json
import os
import re
import subprocess
import sys

import fastavro
import msgpack

PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


class Schema:
    def __init__(self, avsc):
        self.named = {}
        self.root = self.walk(avsc, "")

    def walk(self, t, ns):
        if isinstance(t, str):
            if t in PRIMITIVES:
                return t
            return t  # a reference, resolved by resolve()
        if isinstance(t, list):
            return [self.walk(b, ns) for b in t]
        kind = t["type"]
        if kind in ("record", "enum", "fixed"):
            name = t["name"]
            space = t.get("namespace", ns)
            if "." in name:
                space = name.rsplit(".", 1)[0]
            full = name if "." in name or not space else space + "." + name
            t = dict(t)
            t["short"] = full.rsplit(".", 1)[-1]
            self.named[full] = t
            self.named[t["short"]] = t
            if kind == "record":
                t["fields"] = [dict(f, type=self.walk(f["type"], space)) for f in t["fields"]]
            return t
        if kind == "array":
            return {"type": "array", "items": self.walk(t["items"], ns)}
        if kind == "map":
            return {"type": "map", "values": self.walk(t["values"], ns)}
        return self.walk(kind, ns)

    def resolve(self, t):
        if isinstance(t, str) and t not in PRIMITIVES:
            return self.named[t]
        return t


def kind(s, t):
    t = s.resolve(t)
    if isinstance(t, list):
        return "union"
    if isinstance(t, str):
        return t
    return t["type"]


def key_of(f):
    return f.get("wirebench.key", f["name"])


def accepts(s, t, v):
    k = kind(s, t)
    if v is None:
        return k == "null"
    if isinstance(v, bool):
        return k == "boolean"
    if isinstance(v, int):
        return k in ("int", "long", "float", "double")
    if isinstance(v, float):
        return k in ("float", "double")
    if isinstance(v, str):
        return k in ("string", "enum")
    if isinstance(v, (bytes, bytearray)):
        return k in ("bytes", "fixed")
    if isinstance(v, list):
        return k == "array"
    if isinstance(v, dict):
        return k in ("record", "map")
    return False


def canon(s, t, v):
    """A reader's (or the document's) value in one comparable form: records
    as dicts by JSON key without null fields, numbers as the schema's type."""
    t = s.resolve(t)
    k = kind(s, t)
    if k == "union":
        if v is None:
            return None
        for b in t:
            if accepts(s, b, v) and not (isinstance(v, int) and not isinstance(v, bool) and kind(s, b) in ("float", "double") and any(kind(s, x) in ("int", "long") for x in t)):
                return canon(s, b, v)
        raise AssertionError("no branch of %r takes %r" % (t, v))
    if v is None:
        return None
    if k == "record":
        out = {}
        for f in t["fields"]:
            x = v.get(key_of(f), v.get(f["name"]))
            x = canon(s, f["type"], x)
            if x is not None:
                out[key_of(f)] = x
        return out
    if k == "map":
        return {key: canon(s, t["values"], x) for key, x in v.items()}
    if k == "array":
        return [canon(s, t["items"], x) for x in v]
    if k in ("float", "double"):
        return float(v)
    if k in ("int", "long"):
        assert not isinstance(v, bool) and int(v) == v, v
        return int(v)
    return v


# --- Protobuf: the message protoc's code parsed, read by the conventions ---

def branch_name(s, b):
    b = s.resolve(b)
    if isinstance(b, str):
        return b
    if b["type"] in ("array", "map"):
        return b["type"]
    return b["short"]


def direct(s, t):
    return kind(s, t) not in ("null", "union", "array", "map")


def live(s, t):
    return [b for b in s.resolve(t) if kind(s, b) != "null"]


def pb_leaf(s, t, v):
    t = s.resolve(t)
    k = kind(s, t)
    if k == "enum":
        return t["symbols"][v]
    if k == "record":
        return pb_record(s, t, v)
    return v


def pb_record(s, t, msg):
    return {key_of(f): pb_field(s, f["type"], msg, f["name"]) for f in s.resolve(t)["fields"]}


def pb_field(s, t, msg, name):
    k = kind(s, t)
    t = s.resolve(t)
    if k == "null":
        return None
    if k == "array":
        items = t["items"]
        return [pb_leaf(s, items, x) if direct(s, items) else pb_field(s, items, x, "value") for x in getattr(msg, name)]
    if k == "map":
        vt = t["values"]
        return {key: pb_leaf(s, vt, x) if direct(s, vt) else pb_field(s, vt, x, "value") for key, x in getattr(msg, name).items()}
    if k == "union":
        branches = live(s, t)
        if len(t) == 2 and len(branches) == 1:
            if not msg.HasField(name):
                return None
            b = branches[0]
            v = getattr(msg, name)
            return pb_leaf(s, b, v) if direct(s, b) else pb_field(s, b, v, "value")
        which = msg.WhichOneof(name) if branches else None
        if which is None:
            return None
        for b in branches:
            if which == name + "_" + branch_name(s, b):
                v = getattr(msg, which)
                return pb_leaf(s, b, v) if direct(s, b) else pb_field(s, b, v, "value")
        raise AssertionError("oneof member %s matches no branch" % which)
    return pb_leaf(s, t, getattr(msg, name))


def read_protobuf(s, out, tmp):
    proto = os.path.join(out, "doc.proto")
    subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I" + out, "--python_out=" + tmp, proto], check=True)
    sys.path.insert(0, tmp)
    try:
        import importlib
        sys.modules.pop("doc_pb2", None)
        module = importlib.import_module("doc_pb2")
    finally:
        sys.path.pop(0)
    root = re.search(r"^// Root message: (\w+)$", open(proto).read(), re.M).group(1)
    msg = getattr(module, root).FromString(open(os.path.join(out, "doc.pb"), "rb").read())
    if kind(s, s.root) == "record":
        return pb_record(s, s.root, msg)
    return pb_field(s, s.root, msg, "value")


# --- FlatBuffers: flatc --json's output, read by the conventions ---

def parse_fbs(text):
    tables, unions = {}, {}
    for name, body in re.findall(r"^table (\w+) \{\n(.*?)^\}", text, re.M | re.S):
        tables[name] = dict(re.findall(r"^\s+(\w+):([^\s;=(]+)", body, re.M))
    for name, members in re.findall(r"^union (\w+) \{ (.*?) \}", text, re.M):
        unions[name] = [m.strip() for m in members.split(",")]
    root = re.search(r"^root_type (\w+);", text, re.M).group(1)
    return tables, unions, root


FB_DIRECT = {"boolean", "int", "long", "float", "double", "string", "enum", "record"}
FB_DEFAULTS = {"boolean": False, "int": 0, "long": 0, "float": 0.0, "double": 0.0, "string": "", "bytes": b"", "fixed": b""}


def fb_leaf(s, t, v, fbs_type, fbs):
    t = s.resolve(t)
    k = kind(s, t)
    if k == "enum":
        return v if isinstance(v, str) else t["symbols"][v]
    if k == "record":
        return fb_record(s, t, v, fbs_type, fbs)
    if k in ("bytes", "fixed"):
        return bytes(v)
    return v


def fb_record(s, t, obj, table, fbs):
    return {key_of(f): fb_field(s, f["type"], obj, f["name"], table, fbs) for f in s.resolve(t)["fields"]}


def fb_field(s, t, obj, name, table, fbs):
    tables, unions, _ = fbs
    k = kind(s, t)
    t = s.resolve(t)
    ftype = tables[table].get(name)
    if k == "null":
        return None
    if k == "array":
        item_type = ftype.strip("[]")
        items = t["items"]
        lst = obj.get(name, [])
        if kind(s, items) in FB_DIRECT:
            return [fb_leaf(s, items, x, item_type, fbs) for x in lst]
        return [fb_field(s, items, x, "value", item_type, fbs) for x in lst]
    if k == "map":
        entry = ftype.strip("[]")
        return {e.get("key", ""): fb_field(s, t["values"], e, "value", entry, fbs) for e in obj.get(name, [])}
    if k == "union":
        branches = live(s, t)
        if len(t) == 2 and len(branches) == 1:
            if name not in obj:
                return None
            return fb_field(s, branches[0], obj, name, table, fbs)
        member = obj.get(name + "_type", "NONE")
        if member == "NONE":
            return None
        b = branches[unions[ftype].index(member)]
        if kind(s, b) == "record":
            return fb_record(s, b, obj[name], member, fbs)
        return fb_field(s, b, obj[name], "value", member, fbs)
    if name not in obj:
        if k == "record":
            return fb_record(s, t, {}, ftype, fbs)
        return t["symbols"][0] if k == "enum" else FB_DEFAULTS[k]
    return fb_leaf(s, t, obj[name], ftype, fbs)


def read_flatbuffers(s, out, tmp):
    fbs_path = os.path.join(out, "doc.fbs")
    subprocess.run(["flatc", "--no-warnings", "--json", "--strict-json", "--natural-utf8", "--raw-binary", "-o", tmp, fbs_path, "--", os.path.join(out, "doc.fb")], check=True)
    obj = json.load(open(os.path.join(tmp, "doc.json"), encoding="utf-8"))
    fbs = parse_fbs(open(fbs_path).read())
    if kind(s, s.root) == "record":
        return fb_record(s, s.root, obj, fbs[2], fbs)
    return fb_field(s, s.root, obj, "value", fbs[2], fbs)


def read_msgpack(s, out, tmp):
    return msgpack.unpackb(open(os.path.join(out, "doc.msgpack"), "rb").read(), raw=False)


def read_avro(s, out, tmp):
    schema = fastavro.parse_schema(json.load(open(os.path.join(out, "doc.avsc"))))
    return fastavro.schemaless_reader(io.BytesIO(open(os.path.join(out, "doc.avro"), "rb").read()), schema, None)


# (name, reader, float tolerance). flatc --json prints a double in fixed
# notation with 12 decimals (FloatToString), so its doubles are compared to
# within half of the last printed digit; every other reader is exact.
READERS = [
    ("msgpack", read_msgpack, 0.0),
    ("fastavro", read_avro, 0.0),
    ("protobuf", read_protobuf, 0.0),
    ("flatc --json", read_flatbuffers, 5e-13),
]


def first_difference(a, b, path="", tolerance=0.0):
    """Where `a` and `b` first differ (None: nowhere); floats may differ by
    `tolerance` (absolute)."""
    if isinstance(a, float) and isinstance(b, float) and tolerance:
        return None if abs(a - b) <= tolerance else "%s: %r vs %r" % (path or "/", a, b)
    if type(a) is not type(b):
        return "%s: %r vs %r" % (path or "/", a, b)
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return "%s/%s: only on one side" % (path, k)
            d = first_difference(a[k], b[k], path + "/" + k, tolerance)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d vs %d items" % (path or "/", len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s/%d" % (path, i), tolerance)
            if d:
                return d
        return None
    return None if a == b else "%s: %r vs %r" % (path or "/", a, b)


def self_test():
    s = Schema({"type": "record", "name": "R", "fields": [{"name": "a", "type": ["null", "long"]}, {"name": "m", "type": {"type": "map", "values": "double"}}]})
    doc = canon(s, s.root, {"a": None, "m": {"x": 1, "y": 2.5}})
    assert doc == canon(s, s.root, {"m": {"y": 2.5, "x": 1.0}}), "null as absent, key order, 1 == 1.0"
    assert first_difference(doc, canon(s, s.root, {"a": 0, "m": {"x": 1, "y": 2.5}})), "a null and a 0 differ"
    assert first_difference(doc, canon(s, s.root, {"m": {"x": 1, "y": 2.25}})), "values differ"


def check_doc(work, name):
    """Every reader on one document; returns (passed, failed)."""
    passed = failed = 0
    out = os.path.join(work, "out", name)
    s = Schema(json.load(open(os.path.join(out, "doc.avsc"))))
    want = canon(s, s.root, json.load(open(os.path.join(work, name + ".json"), encoding="utf-8")))
    for reader, read, tolerance in READERS:
        tmp = os.path.join(work, "py", name, reader.split()[0])
        os.makedirs(tmp, exist_ok=True)
        try:
            got = canon(s, s.root, read(s, out, tmp))
            diff = first_difference(want, got, "", tolerance)
        except Exception as e:  # a reader that fails is a failure, reported
            diff = "%s: %s" % (type(e).__name__, e)
        if diff:
            failed += 1
            print("FAIL %s %s: %s" % (name, reader, diff), flush=True)
        else:
            passed += 1
            print("ok   %s %s" % (name, reader), flush=True)
    return passed, failed


def main():
    if sys.argv[1] == "--one":
        passed, failed = check_doc(sys.argv[2], sys.argv[3])
        print("counts %d %d" % (passed, failed))
        return 0
    self_test()
    work, docs = sys.argv[1], sys.argv[2:]
    passed = failed = 0
    for name in docs:
        # One process per document: protobuf's descriptor pool holds one
        # doc.proto per process.
        r = subprocess.run([sys.executable, __file__, "--one", work, name], capture_output=True, text=True)
        sys.stdout.write(r.stdout.replace("counts ", "# counts "))
        sys.stderr.write(r.stderr)
        m = re.search(r"^counts (\d+) (\d+)$", r.stdout, re.M)
        if r.returncode != 0 or not m:
            failed += 1
            print("FAIL %s: the checker exited %d" % (name, r.returncode))
            continue
        passed += int(m.group(1))
        failed += int(m.group(2))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
