# `make run` and `make test` do all set-up on a fresh Debian machine.
SWIFT    ?= swift
INGEST   := .build/release/ingest
SNAPSHOTS ?= var/snapshots
# Debian packages the build and the run need; installed only when missing.
PACKAGES := libsqlite3-dev libxml2-dev libcsv-dev pkg-config tzdata sqlite3 time python3
SUDO     := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: setup build run dry-run test clean noom-memory testdb bench

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

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

clean:
	rm -rf .build var

# Issue 3's memory check: a generated Noom file of 210 MB (never committed)
# parsed by `ingest check`, with peak RSS from /usr/bin/time.
noom-memory: build
	python3 bench/large_noom.py var/bench/noom_big.xml 210
	/usr/bin/time -v $(INGEST) check var/bench/noom_big.xml 2>&1 | grep -E "read |Maximum resident|Elapsed"

# A small example database for a first look (see `ingest testdb --help` for sizes).
testdb: build
	mkdir -p var
	$(INGEST) testdb --out var/testdb.sqlite --pharmacies 20 --items 500 --seed 1

# The performance benchmark of the operations issue: several minutes, never part of `make test`.
bench: build
	bench/run.sh
