# Sourced by the bench scripts: `workload N [NAME GENERATE-OPTION...]` prints
# the folder of the bench workload for N pharmacies × 10,000 items (seed
# $SEED; NAME and the options make a variant, such as a later night),
# generating it once:
# the generated feeds, hard-linked, with reference data of real size
# (bench/reference_lists.py) in place of the generated lists. Needs $INGEST,
# $WORK and $SEED.
workload() {
  local pharmacies=$1 name=${2:-}
  shift; [ $# -gt 0 ] && shift
  local plain="$WORK/w${SEED}-${pharmacies}x10000${name}" dir="$WORK/w${SEED}-${pharmacies}x10000${name}-real"
  if [ ! -f "$plain/ground-truth.json" ]; then
    rm -rf "$plain" "$dir"
    "$INGEST" generate --out "$plain" --pharmacies "$pharmacies" --items 10000 --seed "$SEED" --formats rax,noom,csv,chain --rules-from mappings "$@" >&2
  fi
  if [ ! -f "$dir/feeds/medicine_register_2025-01-01.csv" ]; then
    # A hard-linked copy: the stock feeds are shared, the four lists written anew.
    rm -rf "$dir"; cp -al "$plain" "$dir"
    python3 bench/reference_lists.py "$dir/feeds" 2>/dev/null
  fi
  echo "$dir"
}
