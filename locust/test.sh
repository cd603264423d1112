#!/usr/bin/env bash
# `make test-locust`: the Locust load test checks what it claims, on loopback.
#
# 1. master + 2 workers, 10 s against `wirebench serve`, every format (gzip
#    too) verified by `decode`: 0 failures, and the merged .hlog request
#    count equals Locust's total, per request name and in all.
# 2. the same through locust/stub.py, which answers /catalog/msgpack with
#    JSON: every msgpack response is a failure naming msgpack, the rest pass.
# 3. against `wirebench serve --fixture OTHER.json` (one product renamed),
#    by `decode` and by `digest`: every response is a failure.
# 4. `digest` through `/catalog` + Accept, open loop: 0 failures, counts equal.
# Before them, locust/check_wbcheck.py holds the checks to the golden files:
# every truncation and byte change fails, the golden bodies pass.
# Every run is bounded (locust/run.sh); nothing leaves 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
VENV=$(locust/venv.sh)
PY=$VENV/bin/python
OUT=target/locust/test
rm -rf "$OUT" && mkdir -p "$OUT"
OTHER=$OUT/other.json
ALL=json:1:none,json:100:gzip,msgpack:100:none,msgpack:1:gzip,protobuf:100:none,protobuf:100:gzip,avro:100:none,avro:1:gzip,flatbuffers:100:none,flatbuffers:100:gzip

# check NAME EXPECT: EXPECT is `pass` (no failures), `fail:FORMAT` (every
# FORMAT response fails, every other passes) or `fail` (every response fails).
check() {
    "$PY" - "$OUT/$1" "$2" <<'EOF'
import csv, re, sys
out, expect = sys.argv[1], sys.argv[2]
rows = {r["Name"]: r for r in csv.DictReader(open(f"{out}/stats.csv"))}
summary = open(f"{out}/summary.md").read()
hlog = {m[0]: int(m[1]) for m in re.findall(r"^\| (\S+) \| \d+ \| (\d+) \|", summary, re.M)}
failures = list(csv.DictReader(open(f"{out}/stats.csv.failures.csv")))
errors = []
names = [n for n in rows if n != "Aggregated"]
fmts = {n.split("-")[0] for n in names}
if expect == "pass" and fmts != {"json", "msgpack", "protobuf", "avro", "flatbuffers"}:
    errors.append(f"formats requested: {sorted(fmts)}")
for n in names + ["Aggregated"]:
    r = rows[n]
    req, fail = int(r["Request Count"]), int(r["Failure Count"])
    ok = req - fail
    should_fail = expect == "fail" or (expect.startswith("fail:") and n.startswith(expect[5:] + "-"))
    if n == "Aggregated":
        should_fail = None
    if req == 0:
        errors.append(f"{n}: no requests")
    if should_fail is True and fail != req:
        errors.append(f"{n}: {fail} of {req} failed, expected all")
    if should_fail is False and fail != 0:
        errors.append(f"{n}: {fail} of {req} failed, expected none")
    key = "all" if n == "Aggregated" else n
    if hlog.get(key, 0) != ok:
        errors.append(f"{n}: .hlog holds {hlog.get(key, 0)} requests, Locust {ok} successes")
if expect.startswith("fail"):
    want = expect[5:] or None
    if not failures:
        errors.append("no failure reasons recorded")
    for f in failures:
        fmt = f["Name"].split("-")[0]
        if want and fmt != want:
            errors.append(f"{f['Name']} failed, only {want} should: {f['Error']}")
        # Locust records the exception's repr: VerifyError('FORMAT: what was wrong')
        if not re.match(r"""VerifyError\(['"]""" + fmt + ": ", f["Error"]):
            errors.append(f"{f['Name']}: failure reason does not start with {fmt}: {f['Error']}")
print(f"{out}: expect {expect}: " + ("ok" if not errors else "FAILED"))
for r in failures[:3]:
    print("   reason:", r["Error"][:160])
for e in errors:
    print("   -", e)
sys.exit(1 if errors else 0)
EOF
}

echo "== wbcheck on the golden files (no server)"
(cd locust && "../$PY" check_wbcheck.py)

echo "== locust 1/5: wirebench serve, decode, 2 workers, 10 s"
OUT=$OUT/serve VERIFY=decode MIX=$ALL DURATION=10s WORKERS=2 USERS=6 locust/run.sh > "$OUT/serve.txt"
cat "$OUT/serve/summary.md"
check serve pass

echo "== locust 2/5: stub answering /catalog/msgpack with JSON, decode"
OUT=$OUT/stub VERIFY=decode MIX=$ALL DURATION=4s WORKERS=2 USERS=4 STUB=msgpack locust/run.sh > "$OUT/stub.txt"
check stub fail:msgpack

# A catalog that differs from the fixture in one field of product 1.
"$PY" -c '
import json, sys
c = json.load(open("fixtures/catalog.json"))
c["products"][0]["name"] += " (other)"
json.dump(c, open(sys.argv[1], "w"))' "$OTHER"
for mode in decode digest; do
    echo "== locust $([ $mode = decode ] && echo 3 || echo 4)/5: serve --fixture other.json, $mode"
    OUT=$OUT/other-$mode VERIFY=$mode MIX=$ALL DURATION=4s WORKERS=2 USERS=4 SERVE_ARGS="--fixture $OTHER" \
        locust/run.sh > "$OUT/other-$mode.txt"
    check "other-$mode" fail
done
echo "== locust 5/5: wirebench serve, digest, format by Accept, open loop (10 requests/s per user)"
OUT=$OUT/accept VERIFY=digest ROUTE=accept RATE=10 MIX=$ALL DURATION=4s WORKERS=2 USERS=4 locust/run.sh > "$OUT/accept.txt"
check accept pass
grep -q '^| service-' "$OUT/accept/summary.md" || { echo "no service-* tags in the open-loop summary" >&2; exit 1; }
echo "test-locust: ok"
