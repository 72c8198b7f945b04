#!/usr/bin/env bash
# Answers with and without gzip, in one run, alternated, against a release
# host: a page of 100 contacts over SEED contacts (default 100,000, through
# the bulk path) and the whole municipality catalog (1,122 entries), each
# asked as is and with `Accept-Encoding: gzip`, at 64 connections. Prints each
# round, then the medians, their ratios and the bytes of one answer each way.
# Usage: [SEED=N] scripts/bench-gzip.sh [SECONDS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-5}
ROUNDS=${2:-3}
PORT=${PORT:-18800}
. scripts/bench-lib.sh
start_host "$HOST" RUST_LOG=warn
new_org Bench unlimited
seed_contacts "$ORG" "${SEED:-100000}"
API=http://127.0.0.1:$PORT/api
PAGE="$API/contacts?limit=100"
CATALOG="$API/catalogs/municipalities?limit=1200"

declare -A RPS P50
run() { # NAME URL [HEADER]
  local name=$1 url=$2 line
  shift 2
  local headers=(-H "Authorization: Bearer $ORG_TOKEN")
  for h in "$@"; do headers+=(-H "$h"); done
  line=$("$LOAD" -c 64 -d "$SECONDS_EACH" --threads 2 "${headers[@]}" "$url" | grep 'req/s=')
  echo "$name $line"
  RPS[$name]+="$(field req/s "$line") "
  P50[$name]+="$(field p50 "$line") "
}
bytes() { curl -fs -o /dev/null -w '%{size_download}' -H "Authorization: Bearer $ORG_TOKEN" "$@"; }

for round in $(seq "$ROUNDS"); do
  echo "# round $round"
  run page "$PAGE"
  run page-gzip "$PAGE" 'accept-encoding: gzip'
  run catalog "$CATALOG"
  run catalog-gzip "$CATALOG" 'accept-encoding: gzip'
done
echo
printf '%-14s %10s %10s %12s\n' answer "req/s" "p50 ms" bytes
for name in page page-gzip catalog catalog-gzip; do
  url=$PAGE; [[ $name == catalog* ]] && url=$CATALOG
  accept=(); [[ $name == *-gzip ]] && accept=(-H 'accept-encoding: gzip')
  printf '%-14s %10s %10s %12s\n' "$name" "$(median "${RPS[$name]}")" "$(median "${P50[$name]}")" "$(bytes "${accept[@]}" "$url")"
done
for what in page catalog; do
  awk -v a="$(median "${RPS[$what]}")" -v b="$(median "${RPS[$what-gzip]}")" -v w="$what" \
    'BEGIN { printf "%s: req/s as is / with gzip = %.2f\n", w, a / b }'
done
