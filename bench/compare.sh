#!/usr/bin/env bash
# `make bench-compare BASE=<rev>`: this checkout's `ingest` against the one
# built at BASE, on `make bench`'s workload (500 pharmacies × 10,000 items,
# reference data of real size),
# run alternately RUNS times so the host's drift hits both alike; prints
# each pair and the median of the paired ratios (this / base). For "make
# bench unchanged or better" after a change that is not about speed.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=${BASE:?set BASE to the revision to compare against}
RUNS=${RUNS:-5}
SEED=${SEED:-1}
WORK=var/bench
TREE=var/bench-base
mkdir -p "$WORK"
rev=$(git rev-parse --short "$BASE")
if [ ! -x "$TREE/.build/release/ingest" ] || [ "$(cat "$TREE/.rev" 2>/dev/null)" != "$rev" ]; then
  rm -rf "$TREE"
  git worktree prune
  git worktree add --detach "$TREE" "$rev" >&2
  (cd "$TREE" && swift build -c release --product ingest >&2)
  echo "$rev" > "$TREE/.rev"
fi
INGEST=.build/release/ingest
. bench/workload.sh
dir=$(workload 500)
time_run() { # binary → wall seconds
  rm -rf "$WORK/compare-snapshots"
  /usr/bin/time -f "%e" -o "$WORK/compare-time.txt" "$1" --feeds "$dir/feeds" --mappings "$dir/mappings" \
    --snapshots "$WORK/compare-snapshots" > /dev/null 2> "$WORK/compare-err.txt" || { tail -5 "$WORK/compare-err.txt" >&2; exit 1; }
  tail -n 1 "$WORK/compare-time.txt"
}
ratios=""
for run in $(seq "$RUNS"); do
  this=$(time_run .build/release/ingest)
  base=$(time_run "$TREE/.build/release/ingest")
  ratio=$(awk -v a="$this" -v b="$base" 'BEGIN { printf "%.3f", a / b }')
  echo "run $run: this $this s, base ($rev) $base s, ratio $ratio"
  ratios="$ratios $ratio"
done
echo "median paired ratio this/base: $(echo $ratios | tr ' ' '\n' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
