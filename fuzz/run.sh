#!/usr/bin/env bash
# Coverage-guided fuzzing with cargo-fuzz (libFuzzer) on the stable toolchain.
#
#   make fuzz FUZZ_SECONDS=600                  every target, 10 minutes each
#   make fuzz FUZZ_TARGETS="avro gunzip" FUZZ_JOBS=2
#   make fuzz FUZZ_SANITIZER=address            AddressSanitizer (see below)
#
# FUZZ_SECONDS  time per target (default 60)
# FUZZ_TARGETS  which targets (default: all seventeen, `cargo fuzz list`)
# FUZZ_JOBS     targets run at once (default 1; this machine has 2 cores)
# FUZZ_SANITIZER none (default) or address. cargo-fuzz asks rustc for
#               `-Zsanitizer=address`, which stable rustc refuses unless
#               RUSTC_BOOTSTRAP=1 unlocks it, so `address` sets that. `none`
#               needs no unstable flag at all: coverage instrumentation
#               (-Cpasses=sancov-module, -Cllvm-args=...) is stable. Our own code
#               has no `unsafe` outside the counting allocator; ASan is for the
#               flatc-generated readers, which do.
#
# Seeds come from committed files: fixtures/golden and fixtures/hostile for the
# decoders, gzip of those for gunzip, fixtures/requests for the HTTP parser,
# and each golden prefixed with its format's index for the round trip. The
# corpus grows in fuzz/corpus/<target>/ (git-ignored), findings land in
# fuzz/artifacts/<target>/ and each run's log in fuzz/logs/<target>[-<sanitizer>].log, whose
# final stats (executions, exec/s, coverage) are summarised at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_TARGETS=${FUZZ_TARGETS:-"json msgpack avro protobuf flatbuffers gunzip http_request roundtrip avro_schema avro_resolve view generic_json generic_msgpack generic_avro schema_infer generic_protobuf generic_flatbuffers"}
FUZZ_JOBS=${FUZZ_JOBS:-1}
FUZZ_SANITIZER=${FUZZ_SANITIZER:-none}
CARGO_FUZZ_VERSION=0.13.2

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz $CARGO_FUZZ_VERSION from crates.io"
    cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION"
fi
# Each sanitizer builds into its own directory, so runs with and without one
# can go side by side without rebuilding each other's binaries.
TARGET_DIR=fuzz/target
LOG_SUFFIX=
if [ "$FUZZ_SANITIZER" != none ]; then
    export RUSTC_BOOTSTRAP=1
    TARGET_DIR=fuzz/target-$FUZZ_SANITIZER
    LOG_SUFFIX=-$FUZZ_SANITIZER
fi

seeds() { # target → fuzz/seeds/<target>/ rebuilt from committed fixtures
    local t=$1 dir=fuzz/seeds/$1 ext
    rm -rf "$dir" && mkdir -p "$dir"
    # Inputs a fuzz run once failed on, kept so every run tries them again.
    cp fuzz/regressions/"$t"/* "$dir"/ 2>/dev/null || true
    case $t in
    json | msgpack | avro | protobuf | flatbuffers)
        ext=$(printf '%s' "$t" | sed 's/protobuf/pb/; s/flatbuffers/fb/')
        cp fixtures/golden/catalog-*."$ext" "$dir"/
        cp fixtures/hostile/"$t"-* "$dir"/ 2>/dev/null || true
        ;;
    gunzip)
        for f in fixtures/golden/catalog-1.* fixtures/golden/catalog-3.*; do
            gzip -n -6 -c "$f" >"$dir/$(basename "$f").gz"
        done
        gzip -n -1 -c fixtures/golden/catalog-100.json >"$dir/catalog-100.json.gz"
        cat "$dir/catalog-1.json.gz" "$dir/catalog-1.avro.gz" >"$dir/two-members.gz"
        cp fixtures/hostile/gzip-* "$dir"/ 2>/dev/null || true
        ;;
    http_request)
        cp fixtures/requests/*.http "$dir"/
        cp fixtures/hostile/http-* "$dir"/ 2>/dev/null || true
        ;;
    avro_schema) # schema text, NUL, a datum of it
        for f in schemas/catalog.avsc schemas/evolution/*/catalog.avsc; do
            { cat "$f"; printf '\0'; cat fixtures/golden/catalog-1.avro; } >"$dir/$(basename "$(dirname "$f")").seed"
        done
        ;;
    avro_resolve) # pair selector byte, then the writer's datum
        for i in 0 1 2 3; do
            { printf "\\x$(printf %02x $i)"; cat fixtures/golden/catalog-3.avro; } >"$dir/pair-$i"
        done
        ;;
    generic_json | generic_msgpack | generic_avro | generic_protobuf | generic_flatbuffers) # schema selector 0 (the catalog's), then a payload
        ext=$(printf '%s' "${t#generic_}" | sed 's/^protobuf$/pb/; s/^flatbuffers$/fb/')
        for n in 1 3; do
            { printf '\x00'; cat "fixtures/golden/catalog-$n.$ext"; } >"$dir/catalog-$n"
        done
        ;;
    schema_infer)
        cp fixtures/golden/catalog-1.json fixtures/golden/catalog-3.json "$dir"/
        cp fixtures/data/*.json "$dir"/ 2>/dev/null || true
        ;;
    roundtrip | view)
        local i=0
        for ext in json msgpack pb avro fb; do # Format::ALL order
            for n in 1 3; do
                { printf "\\x$(printf %02x $i)"; cat "fixtures/golden/catalog-$n.$ext"; } >"$dir/$ext-$n"
            done
            i=$((i + 1))
        done
        ;;
    esac
}

dict() { # target → libFuzzer -dict option, if we have one
    case $1 in
    json | roundtrip | view | avro_schema | generic_json | schema_infer) echo "-dict=$PWD/fuzz/dicts/json.dict" ;;
    msgpack | generic_msgpack) echo "-dict=$PWD/fuzz/dicts/msgpack.dict" ;;
    http_request) echo "-dict=$PWD/fuzz/dicts/http.dict" ;;
    esac
}

run_one() {
    local t=$1
    mkdir -p "fuzz/corpus/$t" fuzz/logs
    seeds "$t"
    echo "== fuzz $t for ${FUZZ_SECONDS}s (sanitizer: $FUZZ_SANITIZER)"
    # -timeout: an input that runs 10 s is a hang; -rss_limit_mb: 2 GiB is an
    # out-of-memory finding; -max_len: 64 KiB covers every seed but the
    # 100-product payloads, which libFuzzer still reads whole.
    # shellcheck disable=SC2046
    if cargo fuzz run --release --sanitizer "$FUZZ_SANITIZER" --target-dir "$TARGET_DIR" \
        "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 $(dict "$t") >"fuzz/logs/$t$LOG_SUFFIX.log" 2>&1; then
        echo "   $t: no findings"
    else
        echo "   $t: FINDING (see fuzz/logs/$t$LOG_SUFFIX.log and fuzz/artifacts/$t/)"
        return 1
    fi
}
export -f run_one seeds dict
export FUZZ_SECONDS FUZZ_SANITIZER TARGET_DIR LOG_SUFFIX

# Build the chosen targets up front, so the timed runs do not include it.
for t in $FUZZ_TARGETS; do
    cargo fuzz build --release --sanitizer "$FUZZ_SANITIZER" --target-dir "$TARGET_DIR" "$t"
done

status=0
printf '%s\n' $FUZZ_TARGETS | xargs -P "$FUZZ_JOBS" -I{} bash -c 'run_one {}' || status=1

echo
printf '%-14s %12s %10s %8s %8s %10s\n' target executions exec/s cov ft corpus
for t in $FUZZ_TARGETS; do
    log=fuzz/logs/$t$LOG_SUFFIX.log
    [ -f "$log" ] || continue
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(printf '%s' "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(printf '%s' "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corp=$(printf '%s' "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
    printf '%-14s %12s %10s %8s %8s %10s\n' "$t" "${runs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}"
done
exit $status
