# `make run` and `make test` do all set-up on a fresh Debian machine.
SWIFT    ?= swift
INGEST   := .build/release/ingest
SNAPSHOTS ?= var/snapshots
# Debian packages the build and the run need; installed only when missing.
PACKAGES := libsqlite3-dev libxml2-dev libcsv-dev libyajl-dev pkg-config tzdata sqlite3 time python3 python3-venv
SUDO     := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: setup build run dry-run test test-tools realdata nights clean deb install deb-test bench-memory bench-instructions testdb bench bench-compare bench-parsers bench-serve serve fuzz-build fuzz fuzz-smoke soak report-demo

setup:
	@missing=""; \
	for package in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: setup
	$(SWIFT) build -c release --product ingest

run: build
	$(INGEST) --feeds feeds --snapshots $(SNAPSHOTS) --mappings mappings

dry-run: build
	$(INGEST) --feeds feeds --snapshots $(SNAPSHOTS) --mappings mappings --dry-run

# The Python tools the tests call, in a virtual environment of their own:
# python-jsonschema, which holds real run reports to docs/schemas/; Datasette
# and sqlite-utils, which open snapshots as generic clients do.
TEST_VENV := var/test-venv
TEST_PYTHON_PACKAGES := jsonschema datasette sqlite-utils schemathesis
test-tools: setup
	@$(TEST_VENV)/bin/python3 -c "import jsonschema, datasette, sqlite_utils, schemathesis" 2>/dev/null || { \
	  python3 -m venv $(TEST_VENV) && $(TEST_VENV)/bin/pip install --quiet $(TEST_PYTHON_PACKAGES); }

test: setup test-tools
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) fuzz-smoke

# The multi-night model test (Tests/IngestPipelineTests/NightsModelTests.swift)
# over many seeds: every published snapshot held row by row to an oracle
# written from the spec. `make test` runs seeds 1-10 × 12 nights; this runs
# NIGHTS_SEEDS × NIGHTS (about ten minutes). A failing seed is shrunk and printed.
NIGHTS_SEEDS ?= 1-200
NIGHTS ?= 12
nights: setup
	@mkdir -p var
	$(SWIFT) build --build-tests
	INGEST_NIGHTS_SEEDS=$(NIGHTS_SEEDS) INGEST_NIGHTS=$(NIGHTS) $(SWIFT) test --skip-build --filter NightsModelTests 2>&1 \
	  | grep -v ' info ingest: ' | tee var/nights.log | grep -E 'nights model|✘|↳ seed|smallest|^  night|^  seed|passed after|failed after'; \
	  grep -q 'with 0 with a difference\|, 0 with a difference' var/nights.log

# The real public files of ../shared/realdata (WHO ATC and ICD-10, OpenStreetMap
# pharmacies, a national medicines list, a reimbursement list in XML,
# csv-spectrum, GTIN vectors), read in place by Tests/IngestPipelineTests/RealDataTests.swift.
REALDATA ?= ../shared/realdata
realdata: setup
	@[ -d "$(REALDATA)" ] || { echo "realdata: $(REALDATA) does not exist (set REALDATA=DIR)"; exit 1; }
	$(SWIFT) build --build-tests
	INGEST_REALDATA="$$(cd "$(REALDATA)" && pwd)" $(SWIFT) test --skip-build --filter RealDataTests

clean:
	rm -rf .build var

# Issue 17's memory check: peak RSS of full runs over one 1 GB Noom feed, one
# 1 GB RAX feed, a 500 MB chain CSV in random pharmacy order and a truncated
# RAX feed of 2 M items (generated under var/bench-memory, never committed).
# Each must stay under 200 MB. SIZE_MB=64 for a quick look. Many minutes.
bench-memory: build
	bench/memory.sh

# A small example database for a first look (see `ingest testdb --help` for sizes).
testdb: build
	mkdir -p var
	$(INGEST) testdb --out var/testdb.sqlite --pharmacies 20 --items 500 --seed 1

# The HTML run report of a generated night with rejected feeds, stale
# pharmacies and price changes, and a screenshot of it by headless Chromium
# (installed here when missing): var/report-demo/report.html and report.png.
report-demo: build
	@dpkg-query -W -f='$${Status}' chromium 2>/dev/null | grep -q "ok installed" || { \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium; }
	demo/report-demo.sh

# The Debian package (issue 35): var/deb/ingest_<version>_<arch>.deb, binaries with the Swift
# runtime linked in, systemd units, /etc/ingest settings, logrotate, completions, man pages.
deb: setup
	packaging/build-deb.sh

# The package's tree under DESTDIR, with the programs, man pages and completions under PREFIX.
PREFIX ?= /usr/local
DESTDIR ?=
install: deb
	@tree=$$(ls -d var/deb/ingest_*_*/ | grep -v '\.deb' | tail -1); \
	install -D -m 755 "$$tree/usr/bin/ingest" "$(DESTDIR)$(PREFIX)/bin/ingest"; \
	install -D -m 755 "$$tree/usr/bin/ingest-serve" "$(DESTDIR)$(PREFIX)/bin/ingest-serve"; \
	mkdir -p "$(DESTDIR)$(PREFIX)/share" "$(DESTDIR)/etc" "$(DESTDIR)/lib/systemd/system"; \
	cp -R "$$tree/usr/share/." "$(DESTDIR)$(PREFIX)/share/"; \
	cp -R -n "$$tree/etc/." "$(DESTDIR)/etc/"; \
	sed 's#/usr/bin/#$(PREFIX)/bin/#' "$$tree/lib/systemd/system/ingest.service" > "$(DESTDIR)/lib/systemd/system/ingest.service"; \
	sed 's#/usr/bin/#$(PREFIX)/bin/#' "$$tree/lib/systemd/system/ingest-serve.service" > "$(DESTDIR)/lib/systemd/system/ingest-serve.service"; \
	cp "$$tree/lib/systemd/system/ingest.timer" "$(DESTDIR)/lib/systemd/system/"

# The package's life in a fresh Debian bookworm root booted under systemd-nspawn (no Swift toolchain there):
# install, a night and the API under the hardened units, upgrade, remove, purge; lintian, exposure, alert rules.
deb-test: deb
	packaging/test-deb.sh

# Instructions per offer, ingest against sqlite3's .import of the same offers, under
# callgrind: a steady measure beside the wall clock (issue 36). About ten minutes.
bench-instructions: build
	@command -v valgrind >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind; }
	bench/instructions.sh

# The performance benchmark (docs/PERFORMANCE.md): about ten minutes, never part of `make test`.
bench: build
	bench/run.sh

# ingest-serve under wrk on the 500 × 10,000 snapshot: requests per second
# and p50/p90/p99 per query (bench/serve.sh). Installs Debian's wrk when missing.
bench-serve: setup
	@dpkg-query -W -f='$${Status}' wrk 2>/dev/null | grep -q "ok installed" || { \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq wrk; }
	$(SWIFT) build -c release --product ingest
	$(SWIFT) build -c release --product ingest-serve
	bench/serve.sh

# The read API on var/snapshots (after `make run`), on http://127.0.0.1:8080.
serve: build
	$(SWIFT) build --product ingest-serve
	.build/debug/ingest-serve --snapshots $(SNAPSHOTS)

# This checkout against BASE (a revision), paired runs of `make bench`'s workload.
bench-compare: build
	bench/compare.sh

# Each stock-feed parser alone in MB/s, wall clock and mallocs per parse
# (ordo-one/benchmark; Benchmarks/ is a package of its own). A few minutes.
bench-parsers: setup
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark --format markdown --no-progress

# libFuzzer over every parser (Fuzz/ is a package of its own, built with
# -sanitize=fuzzer,address). `make fuzz` runs each target FUZZ_SECONDS;
# `make fuzz-smoke` (part of `make test`) runs each briefly over its corpus.
FUZZ_TARGETS := rax noom csv xml registry reimbursement diagnosis atc icd10 gs1 register chain json jsonl fixed
FUZZ_SECONDS ?= 60
FUZZ_BIN := Fuzz/.build/debug/IngestFuzz
FUZZ_ENV := SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 INGEST_FUZZ_CSV_MAPPING=Fuzz/mappings/csv.mapping.toml INGEST_FUZZ_XML_MAPPING=Fuzz/mappings/xml.mapping.toml INGEST_FUZZ_MAPPINGS=Fuzz/mappings

fuzz-build: setup
	$(SWIFT) build --package-path Fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library

fuzz: fuzz-build
	@for target in $(FUZZ_TARGETS); do \
	  mkdir -p var/fuzz/$$target; \
	  echo "== $$target ($(FUZZ_SECONDS) s)"; \
	  INGEST_FUZZ_TARGET=$$target $(FUZZ_ENV) $(FUZZ_BIN) var/fuzz/$$target Fuzz/corpus/$$target -artifact_prefix=var/fuzz/$$target- \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 2>&1 \
	    | grep -E "stat::number_of_executed_units|stat::new_units_added|ERROR|SUMMARY|Test unit written" || exit 1; \
	done

fuzz-smoke: fuzz-build
	@for target in $(FUZZ_TARGETS); do \
	  rm -rf var/fuzz-smoke/$$target; mkdir -p var/fuzz-smoke/$$target; \
	  INGEST_FUZZ_TARGET=$$target $(FUZZ_ENV) $(FUZZ_BIN) var/fuzz-smoke/$$target Fuzz/corpus/$$target -runs=3000 -timeout=10 -max_len=16384 -artifact_prefix=var/fuzz-smoke/$$target- \
	    > var/fuzz-smoke/$$target.log 2>&1 || { cat var/fuzz-smoke/$$target.log; exit 1; }; \
	  echo "fuzz-smoke $$target: $$(grep -o 'DONE.*' var/fuzz-smoke/$$target.log | head -1)"; \
	done
