#!/usr/bin/env bash
# `make bench-memory` (issue 17): peak RSS of a full `ingest` run over one
# very large feed at a time, which must stay under 200 MB whatever the size:
# a 1 GB Noom feed, a 1 GB RAX feed, a 500 MB chain CSV with its rows in
# random pharmacy order, and a RAX feed of 2,000,000 items cut off before its
# trailer (rejected whole: 2 M rejects, streamed to the rejects file).
# SIZE_MB scales the 1 GB feeds (and half of it the chain) for a quicker look.
set -euo pipefail
cd "$(dirname "$0")/.."
INGEST=.build/release/ingest
SIZE_MB=${SIZE_MB:-1024}
TRUNCATED_ITEMS=${TRUNCATED_ITEMS:-2000000}
WORK=var/bench-memory
mkdir -p "$WORK"

# Each feed alone in a folder of its own, made once per size.
feed() { # name command… → folder
  local dir="$WORK/$1-$SIZE_MB"
  shift
  if [ ! -f "$dir/.done" ]; then
    rm -rf "$dir"; mkdir -p "$dir"
    "$@" "$dir" >&2
    touch "$dir/.done"
  fi
  echo "$dir"
}
# The chain's mapping is the generator's own (columns apteek, kood, hind, …).
if [ ! -f "$WORK/mappings/generated_chain.mapping.toml" ]; then
  rm -rf "$WORK/gen"
  "$INGEST" generate --out "$WORK/gen" --pharmacies 2 --items 2 --seed 1 --formats chain >/dev/null
  mkdir -p "$WORK/mappings" && cp "$WORK/gen/mappings/"*.toml "$WORK/mappings/"
fi

NOOM=$(feed noom sh -c "python3 bench/large_noom.py \"\$0/noom_big.xml\" $SIZE_MB")
RAX=$(feed rax sh -c "python3 bench/large_feeds.py rax \"\$0/rax_big.txt\" $SIZE_MB")
CHAIN=$(feed chain sh -c "python3 bench/large_feeds.py chain \"\$0/chain_big.csv\" $((SIZE_MB / 2)) 500")
# Beside the truncated feed, a small good one of another pharmacy, so that the run publishes and keeps a rejects file.
CUT=$(feed truncated sh -c "python3 bench/large_feeds.py rax \"\$0/rax_cut.txt\" 0 --truncated $TRUNCATED_ITEMS && python3 bench/large_feeds.py rax \"\$0/rax_good.txt\" 1 --pharmacy 9997")

printf "%-34s %8s %10s %9s %6s\n" "feed" "size" "peak RSS" "wall" "exit"
for dir in "$NOOM" "$RAX" "$CHAIN" "$CUT"; do
  rm -rf "$WORK/snapshots"
  status=0
  /usr/bin/time -f "%M %e" -o "$WORK/time.txt" "$INGEST" --feeds "$dir" --mappings "$WORK/mappings" --snapshots "$WORK/snapshots" \
    --as-of 2024-05-20 >"$WORK/out.txt" 2>"$WORK/err.txt" || status=$?
  if [ "$status" != 0 ]; then
    { echo "bench-memory: ingest failed ($status) on $dir"; tail -n 5 "$WORK/err.txt"; } >&2
    exit 1
  fi
  read -r rss wall < "$WORK/time.txt"
  name=$(ls "$dir" | grep -v -e '^\.' -e rax_good | head -1)
  printf "%-34s %8s %7d MB %8ss %6s\n" "$name" "$(du -h "$dir/$name" | cut -f1)" "$((rss / 1024))" "$wall" "$status"
  if [ "$name" = rax_cut.txt ]; then
    rejects=$(ls "$WORK"/snapshots/*.rejects.jsonl)
    echo "  its rejects file: $(wc -l < "$rejects") lines, $(du -h "$rejects" | cut -f1)"
  fi
done
