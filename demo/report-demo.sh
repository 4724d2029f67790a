#!/usr/bin/env bash
# `make report-demo`: two generated nights of one seed into var/report-demo,
# the second with faults (bad records, a decimal slip, a collapsed item
# count), price changes and three pharmacies' feeds missing, so that the
# HTML report has rejected feeds, stale pharmacies and a price histogram to
# show; then a screenshot of it by headless Chromium (Debian's chromium).
set -euo pipefail
INGEST=${INGEST:-.build/release/ingest}
OUT=${OUT:-var/report-demo}
rm -rf "$OUT"
mkdir -p "$OUT"

"$INGEST" generate --out "$OUT/night1" --pharmacies 30 --items 400 --seed 7 >/dev/null
"$INGEST" generate --out "$OUT/night2" --pharmacies 30 --items 400 --seed 7 --days-later 1 \
  --bad-rate 0.01 --price-change-rate 0.15 --wrong-data decimal-slip,item-count-collapse >/dev/null
# Three pharmacies send nothing on the second night: their offers are carried over, stale.
find "$OUT/night2/feeds" -name '*_10004_*' -o -name '*_10017_*' -o -name '*_10023_*' | xargs rm -f

"$INGEST" --feeds "$OUT/night1/feeds" --mappings "$OUT/night1/mappings" --snapshots "$OUT/snapshots" \
  --as-of 2025-11-21 >/dev/null 2>&1
# Exit 0: published with rejects and stale pharmacies.
"$INGEST" --feeds "$OUT/night2/feeds" --mappings "$OUT/night2/mappings" --snapshots "$OUT/snapshots" \
  --as-of 2025-11-22 --html "$OUT/report.html" 2>/dev/null | sed -n 2p

# A page as tall as the report, so that the screenshot holds all of it.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,7000 \
  --screenshot="$OUT/report.png" "file://$(pwd)/$OUT/report.html" >/dev/null 2>&1
echo "report: $OUT/report.html"
echo "screenshot: $OUT/report.png"
