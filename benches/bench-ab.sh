#!/bin/sh
# `make bench-ab BASE=<rev>`: did my change help? Builds revision BASE in a
# git worktree under target/ab-base/ (its own target directory, kept between
# runs so a second run rebuilds little), then runs `wirebench ab BASE_BIN
# NEW_BIN` with this tree's release build as NEW (docs/MEASUREMENT.md, "A/B
# runs of two builds").
#
# Usage: BASE=<rev> [AB_ROWS=REGEX] sh benches/bench-ab.sh [ab flags...]
#   env: CARGO_TARGET_DIR (where NEW was built; default target)
set -eu
if [ -z "${BASE:-}" ]; then
    echo "bench-ab: set BASE to a revision, e.g. make bench-ab BASE=HEAD~1" >&2
    exit 2
fi
rev=$(git rev-parse --verify --quiet "$BASE^{commit}") || {
    echo "bench-ab: BASE=$BASE is not a revision of this repository" >&2
    exit 2
}
top=$(git rev-parse --show-toplevel)
target=${CARGO_TARGET_DIR:-$top/target}
new="$target/release/wirebench"
if [ ! -x "$new" ]; then
    echo "bench-ab: $new missing; run make build-release first" >&2
    exit 2
fi
wt="$top/target/ab-base/tree"
if [ -d "$wt" ]; then
    git -C "$wt" checkout --quiet --detach "$rev"
else
    mkdir -p "$top/target/ab-base"
    git worktree add --quiet --detach "$wt" "$rev"
fi
# A first build starts from NEW's release directory: the dependencies are
# the same crates, so only the differing sources compile.
if [ ! -d "$top/target/ab-base/target/release" ] && [ -d "$target/release" ]; then
    mkdir -p "$top/target/ab-base/target"
    cp -a "$target/release" "$top/target/ab-base/target/release"
fi
echo "bench-ab: building BASE $(git rev-parse --short "$rev") in $wt" >&2
cargo build --release --quiet --manifest-path "$wt/Cargo.toml" --target-dir "$top/target/ab-base/target" --bin wirebench
base_bin="$top/target/ab-base/wirebench-base"
cp "$top/target/ab-base/target/release/wirebench" "$base_bin"
echo "bench-ab: BASE $(git rev-parse --short "$rev") vs NEW $(git rev-parse --short HEAD) (working tree)" >&2
exec "$new" ab "$base_bin" "$new" --rows "${AB_ROWS:-}" "$@"
