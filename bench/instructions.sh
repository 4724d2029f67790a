#!/usr/bin/env bash
# `make bench-instructions` (issue 36): a steady measure beside the wall
# clock, which moves ±5–25 % between hours on this host. A fixed small
# workload (20 pharmacies × 10,000 items, every stock format: RAX, Noom,
# CSV, chain files, JSON, fixed width; about 200,000 offers) is imported
# under valgrind's callgrind, which counts instructions whatever else the
# machine does (`perf stat -e instructions` says "not supported" here). The
# same offers, exported as CSV, are then loaded by `sqlite3 .import` under
# callgrind too. Prints instructions per offer for both and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
# INGEST=<path> counts another build (say, the one before a change) on the same workload.
INGEST=${INGEST:-$PWD/.build/release/ingest}
WORK=var/bench-instructions
SEED=${SEED:-7}
PHARMACIES=${PHARMACIES:-20}
mkdir -p "$WORK"
command -v valgrind >/dev/null || { echo "bench-instructions: valgrind is missing (apt-get install valgrind)" >&2; exit 1; }

GEN="$WORK/w$SEED-${PHARMACIES}x10000"
if [ ! -f "$GEN/ground-truth.json" ]; then
  rm -rf "$GEN"
  "$INGEST" generate --out "$GEN" --pharmacies "$PHARMACIES" --items 10000 --seed "$SEED" --formats rax,noom,csv,chain,json,fixed \
    --rules-from mappings >/dev/null
fi

# Callgrind's total of instructions executed (Ir) for one command, every thread.
instructions() { # out-file command…
  local out=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$out" --dump-instr=no --collect-jumps=no "$@" >/dev/null 2>"$out.log"
  awk '/^(summary|totals):/ { print $2; exit }' "$out"
}

rm -rf "$WORK/snapshots" "$WORK/import.sqlite" "$WORK"/*.out "$WORK"/*.log
# Valgrind 3.19 (Debian 12) cannot read the DWARF 5 the Swift toolchain writes: the binary is run without it.
objcopy --strip-debug "$INGEST" "$WORK/ingest"
ingest_ir=$(instructions "$WORK/ingest.out" "$WORK/ingest" --feeds "$GEN/feeds" --mappings "$GEN/mappings" --snapshots "$WORK/snapshots" \
  --as-of 2025-11-21 --threads 2 --quiet)
offers=$(sqlite3 "$WORK/snapshots/current" "SELECT count(*) FROM offers")
sqlite3 -header -csv "$WORK/snapshots/current" "SELECT * FROM offers" > "$WORK/offers.csv"
sqlite_ir=$(instructions "$WORK/sqlite.out" sqlite3 "$WORK/import.sqlite" ".import --csv $WORK/offers.csv offers")
imported=$(sqlite3 "$WORK/import.sqlite" "SELECT count(*) FROM offers")
[ "$imported" = "$offers" ] || { echo "bench-instructions: sqlite3 imported $imported rows of $offers" >&2; exit 1; }

python3 - "$offers" "$ingest_ir" "$sqlite_ir" <<'PY'
import sys
offers, ingest, sqlite = (int(x) for x in sys.argv[1:])
print(f"workload: {offers:,} offers (20 pharmacies x 10,000 items; rax, noom, csv, chain, json, fixed)")
print(f"ingest:          {ingest:>15,} instructions  {ingest / offers:>9,.0f} per offer")
print(f"sqlite3 .import: {sqlite:>15,} instructions  {sqlite / offers:>9,.0f} per offer")
print(f"ratio ingest/sqlite3: {ingest / sqlite:.2f}")
PY
