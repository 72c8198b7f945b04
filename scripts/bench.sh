#!/usr/bin/env bash
# Load benchmarks against a release host on a temporary data dir.
# Usage: scripts/bench.sh [seconds per run, default 10]
# Prints one crm-load report per endpoint, then the host's peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-10}
CONNS=${CONNS:-64}
PORT=${PORT:-18480}
. scripts/bench-lib.sh
start_host "$HOST"
BASE=http://127.0.0.1:$PORT/api
AUTH="Authorization: Bearer $TOKEN"

PEAK=0
sample_rss() { local kb; kb=$(awk '/VmRSS/ {print $2}' /proc/$PID/status); [ "$kb" -gt "$PEAK" ] && PEAK=$kb; return 0; }

run() {
  "$LOAD" -c "$CONNS" -d "$SECS" "$@" &
  local lp=$!
  while kill -0 $lp 2>/dev/null; do sample_rss; sleep 0.5; done
  wait $lp
  echo
}

echo "# GET /api/me"
run -H "$AUTH" "$BASE/me"
echo "# GET /api/catalogs/municipalities?q=san"
run -H "$AUTH" "$BASE/catalogs/municipalities?q=san"
ETAG=$(curl -fs -o /dev/null -D - -H "$AUTH" "$BASE/catalogs/municipalities?q=san" | awk -F': ' 'tolower($1)=="etag" {print $2}' | tr -d '\r')
echo "# GET /api/catalogs/municipalities?q=san with If-None-Match (304)"
run -H "$AUTH" -H "If-None-Match: $ETAG" "$BASE/catalogs/municipalities?q=san"
echo "host peak RSS under load: $((PEAK / 1024)) MB"
