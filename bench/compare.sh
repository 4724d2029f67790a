#!/usr/bin/env bash
# `make bench-compare BASE=<rev>`: this checkout's `ingest` against the one
# built at BASE, on `make bench`'s workload (500 pharmacies × 10,000 items,
# reference data of real size),
# run alternately RUNS times so the host's drift hits both alike; prints
# each pair and the median of the paired ratios (this / base). For "make
# bench unchanged or better" after a change that is not about speed.
set -euo pipefail
cd "$(dirname "$0")/.."
# BASE_BINARY=<path> compares against a release `ingest` built already
# (say, copied aside before a change) instead of building BASE in a worktree.
# NIGHT=2 times the workload's second night (one day later, 2 % of prices
# changed) over a copy of a first night published once by the base binary.
RUNS=${RUNS:-5}
SEED=${SEED:-1}
NIGHT=${NIGHT:-1}
WORK=var/bench
TREE=var/bench-base
mkdir -p "$WORK"
if [ -n "${BASE_BINARY:-}" ]; then
  base_ingest=$BASE_BINARY
  rev=$(basename "$BASE_BINARY")
else
  BASE=${BASE:?set BASE to the revision to compare against, or BASE_BINARY to a built ingest}
  rev=$(git rev-parse --short "$BASE")
  if [ ! -x "$TREE/.build/release/ingest" ] || [ "$(cat "$TREE/.rev" 2>/dev/null)" != "$rev" ]; then
    rm -rf "$TREE"
    git worktree prune
    git worktree add --detach "$TREE" "$rev" >&2
    (cd "$TREE" && swift build -c release --product ingest >&2)
    echo "$rev" > "$TREE/.rev"
  fi
  base_ingest=$TREE/.build/release/ingest
fi
INGEST=.build/release/ingest
. bench/workload.sh
dir=$(workload 500)
night1=""
if [ "$NIGHT" = 2 ]; then
  night1=$WORK/compare-night1
  rm -rf "$night1"
  "$base_ingest" --feeds "$dir/feeds" --mappings "$dir/mappings" --snapshots "$night1" > /dev/null 2>&1
  dir=$(workload 500 -night2 --days-later 1 --price-change-rate 0.02)
fi
echo "night $NIGHT: $dir"
time_run() { # binary → wall seconds
  rm -rf "$WORK/compare-snapshots"
  if [ -n "$night1" ]; then cp -a "$night1" "$WORK/compare-snapshots"; fi
  /usr/bin/time -f "%e" -o "$WORK/compare-time.txt" "$1" --feeds "$dir/feeds" --mappings "$dir/mappings" \
    --snapshots "$WORK/compare-snapshots" > /dev/null 2> "$WORK/compare-err.txt" || { tail -5 "$WORK/compare-err.txt" >&2; exit 1; }
  tail -n 1 "$WORK/compare-time.txt"
}
ratios=""
for run in $(seq "$RUNS"); do
  this=$(time_run .build/release/ingest)
  base=$(time_run "$base_ingest")
  ratio=$(awk -v a="$this" -v b="$base" 'BEGIN { printf "%.3f", a / b }')
  echo "run $run: this $this s, base ($rev) $base s, ratio $ratio"
  ratios="$ratios $ratio"
done
echo "median paired ratio this/base: $(echo $ratios | tr ' ' '\n' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
