#!/usr/bin/env bash
# Two ingest-serve binaries compared on the bench's snapshot, alternating,
# so the host's drift hits both alike: for each query, the server's CPU per
# request (its utime + stime from /proc over the run, divided by the
# requests wrk counted), requests per second, p50 and p99. Run
# `make bench-serve` once first: it makes the snapshot and the files of
# random paths this reads.
#
#   bench/serve-pair.sh BEFORE_BINARY AFTER_BINARY [ROUNDS]
#
# DURATION (seconds a query, default 6) in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=${1:?the binary before the change}
AFTER=${2:?the binary after it}
ROUNDS=${3:-3}
DURATION=${DURATION:-6}
WORK=var/bench
SNAPSHOTS="$WORK/serve-snapshots"
[ -L "$SNAPSHOTS/current" ] || { echo "no $SNAPSHOTS/current: run make bench-serve first" >&2; exit 66; }
CURRENT="$SNAPSHOTS/current"
ITEM=$(sqlite3 -readonly "$CURRENT" "SELECT aptcode FROM offers GROUP BY aptcode ORDER BY count(*) DESC, aptcode LIMIT 1")
FIXED=("q=p&latitude=59.437&longitude=24.7536" "q=ip&aptcode=$ITEM&latitude=59.437&longitude=24.7536")
RANDOM_PATHS=(eq ip search)

# One server, every query once: a line per query.
measure() {
  local binary=$1 label=$2 port_file server base ticks
  port_file=$(mktemp)
  "$binary" --snapshots "$SNAPSHOTS" --port 0 --access-log off > "$port_file" 2>/dev/null &
  server=$!
  for _ in $(seq 100); do grep -q listening "$port_file" && break; sleep 0.1; done
  base=$(grep -o 'http://[^ ]*' "$port_file")
  ticks=$(getconf CLK_TCK)
  run() { # name, then wrk's arguments after the duration
    local name=$1; shift
    local before after requests
    before=$(awk '{print $14 + $15}' /proc/$server/stat)
    wrk -t2 -c16 -d"${DURATION}s" --latency "$@" > "$WORK/pair-wrk.txt"
    after=$(awk '{print $14 + $15}' /proc/$server/stat)
    requests=$(awk '/requests in/ {print $1}' "$WORK/pair-wrk.txt")
    printf '%s\t%s\tcpu/request %d µs\trequests/s %s\tp50 %s\tp99 %s\n' "$label" "$name" \
      $(( (after - before) * 1000000 / ticks / requests )) "$(awk '/Requests\/sec/ {print $2}' "$WORK/pair-wrk.txt")" \
      "$(awk '$1 == "50%" {print $2}' "$WORK/pair-wrk.txt")" "$(awk '$1 == "99%" {print $2}' "$WORK/pair-wrk.txt")"
  }
  for query in "${FIXED[@]}"; do
    curl -s -o /dev/null "$base/?$query"
    run "${query%%&*}" "$base/?$query"
  done
  for kind in "${RANDOM_PATHS[@]}"; do
    [ -f "$WORK/$kind-paths.txt" ] && PATHS="$WORK/$kind-paths.txt" run "$kind at random" -s bench/many_paths.lua "$base"
  done
  kill "$server"; wait "$server" 2>/dev/null || true
  rm -f "$port_file"
}

for round in $(seq "$ROUNDS"); do
  measure "$BEFORE" "round $round before"
  measure "$AFTER" "round $round after"
done
