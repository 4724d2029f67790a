# `make run` and `make test` do all set-up on a fresh Debian machine.
SWIFT    ?= swift
INGEST   := .build/release/ingest
SNAPSHOTS ?= var/snapshots
# Debian packages the build and the run need; installed only when missing.
PACKAGES := libsqlite3-dev libxml2-dev libcsv-dev pkg-config tzdata sqlite3
SUDO     := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: setup build run dry-run test clean

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
