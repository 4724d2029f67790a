#!/usr/bin/env bash
# `make bench-memory` (issues 17, 34): peak RSS of a full `ingest` run over
# one very large feed at a time, which must stay under 200 MB whatever the
# size: a 1 GB Noom feed, a 1 GB RAX feed, a 1 GB JSON feed of one pharmacy,
# a 500 MB chain CSV and a 1 GB JSON Lines chain file with their rows in
# random pharmacy order, and a RAX feed of 2,000,000 items cut off before its
# trailer (rejected whole: 2 M rejects, streamed to the rejects file). Each
# line gives the run's speed over the file (MB/s of the whole run, parse,
# load and publish, so the formats compare side by side).
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
if [ ! -f "$WORK/mappings/generated_json.mapping.toml" ]; then
  rm -rf "$WORK/gen"
  "$INGEST" generate --out "$WORK/gen" --pharmacies 2 --items 2 --seed 1 --formats json >/dev/null
  cp "$WORK/gen/mappings/generated_json.mapping.toml" "$WORK/mappings/"
fi
cat > "$WORK/mappings/jsonl_chain.mapping.toml" <<'TOML'
# bench/large_feeds.py jsonl: a chain file, one record a line.
[match]
filename = "jsonl_*.jsonl"
[format]
type = "jsonl"
date_format = "yyyy-MM-dd HH:mm"
[prices]
currency = "EUR"
includes_vat = true
[columns]
pharmacy_id = "/shop"
exported_at = "/at"
aptcode = "/code"
name = "/name"
price = "/price"
quantity = "/qty"
TOML

NOOM=$(feed noom sh -c "python3 bench/large_noom.py \"\$0/noom_big.xml\" $SIZE_MB")
RAX=$(feed rax sh -c "python3 bench/large_feeds.py rax \"\$0/rax_big.txt\" $SIZE_MB")
CHAIN=$(feed chain sh -c "python3 bench/large_feeds.py chain \"\$0/chain_big.csv\" $((SIZE_MB / 2)) 500")
JSON=$(feed json sh -c "python3 bench/large_feeds.py json \"\$0/shop_big.json\" $SIZE_MB")
JSONL=$(feed jsonl sh -c "python3 bench/large_feeds.py jsonl \"\$0/jsonl_big.jsonl\" $SIZE_MB 500")
# Beside the truncated feed, a small good one of another pharmacy, so that the run publishes and keeps a rejects file.
CUT=$(feed truncated sh -c "python3 bench/large_feeds.py rax \"\$0/rax_cut.txt\" 0 --truncated $TRUNCATED_ITEMS && python3 bench/large_feeds.py rax \"\$0/rax_good.txt\" 1 --pharmacy 9997")

printf "%-34s %8s %10s %9s %9s %6s\n" "feed" "size" "peak RSS" "wall" "MB/s" "exit"
for dir in "$NOOM" "$RAX" "$JSON" "$CHAIN" "$JSONL" "$CUT"; do
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
  bytes=$(stat -c %s "$dir/$name")
  speed=$(python3 -c "print(f'{$bytes / 1048576 / max($wall, 0.01):.1f}')")
  printf "%-34s %8s %7d MB %8ss %9s %6s\n" "$name" "$(du -h "$dir/$name" | cut -f1)" "$((rss / 1024))" "$wall" "$speed" "$status"
  if [ "$name" = rax_cut.txt ]; then
    rejects=$(ls "$WORK"/snapshots/*.rejects.jsonl)
    echo "  its rejects file: $(wc -l < "$rejects") lines, $(du -h "$rejects" | cut -f1)"
  fi
done
