#!/usr/bin/env bash
# Overload benchmarks against a release host:
# 1. catalog matching beside /healthz: the most expensive city the catalog
#    compares (100 characters, no match) from 16 connections, while /healthz
#    is measured from one; and a 60,000-character city (refused at once);
# 2. one organization flooding GET /api/contacts from 256 connections while
#    another's calls (then /healthz, which takes no turn) are measured, for
#    each setting in SETTINGS (default:
#    compute turns off (1,000,000), the default turns, and the default turns
#    with an in-flight share of 16).
# PIN=1 pins the host to core 0 and the load generators to core 1, so the
# generator's CPU does not blur the host's own queueing.
# Usage: [SETTINGS="NAME=VALUE ..."] [PIN=1] scripts/bench-fairness.sh [seconds, default 8]
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-8}
PORT=${PORT:-18880}
. scripts/bench-lib.sh
LOAD=("$LOAD")  # an array: PIN=1 puts taskset before it
if [ "${PIN:-0}" = 1 ]; then
  printf '#!/bin/sh\nexec taskset -c 0 %s "$@"\n' "$PWD/$HOST" >"$WORK/pinned-host"
  chmod +x "$WORK/pinned-host"
  HOST=$WORK/pinned-host
  LOAD=(taskset -c 1 "${LOAD[@]}")
fi
J="content-type: application/json"
BASE=http://127.0.0.1:$PORT/api

echo "## catalog matching beside /healthz"
start_host "$HOST"
WORST=$(printf 'zq%.0s' $(seq 50))
echo "# /healthz alone"
"${LOAD[@]}" -c 1 -d "$SECS" "http://127.0.0.1:$PORT/healthz" | tail -1
"${LOAD[@]}" -c 16 -d "$((SECS + 2))" -H "Authorization: Bearer $TOKEN" "$BASE/catalogs/resolve?city=$WORST" >"$WORK/resolve.txt" &
LP=$!
sleep 1
echo "# /healthz while 16 connections resolve a 100-character city"
"${LOAD[@]}" -c 1 -d "$SECS" "http://127.0.0.1:$PORT/healthz" | tail -1
wait $LP
echo "# the 16 resolving connections"
tail -1 "$WORK/resolve.txt"
LONG=$(head -c 60000 /dev/zero | tr '\0' 'a')
echo "# one 60,000-character city: $(curl -s -o /dev/null -w '%{http_code} in %{time_total} s' -H "Authorization: Bearer $TOKEN" "$BASE/catalogs/resolve?city=$LONG")"
stop_host

SETTINGS=${SETTINGS:-"CRM_COMPUTE_TURNS=1000000 CRM_COMPUTE_TURNS=0 CRM_ORG_MAX_IN_FLIGHT=16"}
for setting in $SETTINGS; do
  echo
  echo "## a flooding organization, $setting"
  start_host "$HOST" "$setting"
  new_org Runaway; FLOOD=$ORG_TOKEN
  new_org Calm; CALM=$ORG_TOKEN
  for i in $(seq 200); do
    curl -fs -o /dev/null -H "Authorization: Bearer $FLOOD" -H "$J" "$BASE/contacts" -d "{\"email\":\"f$i@x.co\",\"cityCode\":\"05001\"}"
  done
  for i in $(seq 20); do
    curl -fs -o /dev/null -H "Authorization: Bearer $CALM" -H "$J" "$BASE/contacts" -d "{\"email\":\"c$i@x.co\"}"
  done
  echo "# the calm organization alone, 4 connections"
  "${LOAD[@]}" -c 4 -d "$SECS" -H "Authorization: Bearer $CALM" "$BASE/contacts?limit=5" | tail -1
  "${LOAD[@]}" -c 256 -d "$((2 * SECS + 2))" -H "Authorization: Bearer $FLOOD" "$BASE/contacts?limit=100" >"$WORK/flood.txt" &
  LP=$!
  sleep 1
  echo "# the calm organization while the other floods from 256 connections"
  "${LOAD[@]}" -c 4 -d "$SECS" -H "Authorization: Bearer $CALM" "$BASE/contacts?limit=5" | tail -1
  echo "# /healthz (no organization, no turn) during the flood, 1 connection"
  "${LOAD[@]}" -c 1 -d "$SECS" "http://127.0.0.1:$PORT/healthz" | tail -1
  wait $LP
  echo "# the flood (errors are its 429s)"
  tail -2 "$WORK/flood.txt"
  stop_host
done
