#!/usr/bin/env bash
# Shipments benchmarks (issue 4) against a release host and the Envia simulator:
# rates over five carriers answering in 100 ms each, and label generation with
# a 50 ms provider at 64 connections, each request with its own idempotency key.
# Usage: scripts/bench-shipments.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-10}
CONNS=${CONNS:-64}
PORT=${PORT:-18680}
SIM_PORT=$((PORT + 5))
cargo build --release -q -p crm-tests --bin envia-sim
. scripts/bench-lib.sh
ADMIN=http://127.0.0.1:$((PORT + 1))
J="content-type: application/json"
A="Authorization: Bearer $CRM_ADMIN_TOKEN"

target/release/envia-sim --listen 127.0.0.1:$SIM_PORT --rate-latency-ms 100 --generate-latency-ms 50 >"$WORK/sim.txt" 2>&1 &
SIM=$!
trap 'kill $SIM 2>/dev/null; cleanup' EXIT
start_host "$HOST"

new_org bench unlimited
curl -fs -XPUT "$ADMIN/admin/orgs/$ORG/integrations/envia" -H "$A" -H "$J" \
  -d "{\"apiKey\":\"sim-envia-key\",\"baseUrl\":\"http://127.0.0.1:$SIM_PORT\"}" >/dev/null
curl -fs -XPUT "$ADMIN/admin/orgs/$ORG/shipping/origin" -H "$A" -H "$J" \
  -d '{"name":"Bodega","phone":"3001234567","street":"Calle 10 # 20-30","cityCode":"11001"}' >/dev/null
BASE=http://127.0.0.1:$PORT/api
AUTH="Authorization: Bearer $ORG_TOKEN"
CONTACT=$(curl -fs -XPOST "$BASE/contacts" -H "$AUTH" -H "$J" \
  -d '{"email":"bench@x.co","firstName":"Ana","cityCode":"05001","address":"Cra 45 # 12-08"}' | sed 's/.*"id":"\([0-9a-f]*\)".*/\1/')
PKG='{"content":"Ropa","weight":2,"dimensions":{"length":30,"width":20,"height":10},"declaredValue":150000}'

echo "# POST /api/shipments/rates: 5 carriers at 100 ms each, 1 connection (latency)"
"$LOAD" -c 1 -d "$SECS" -X POST -H "$AUTH" -H "$J" -b "{\"contactId\":\"$CONTACT\",\"packages\":[$PKG]}" "$BASE/shipments/rates"
echo
echo "# POST /api/shipments/rates at $CONNS connections"
"$LOAD" -c "$CONNS" -d "$SECS" -X POST -H "$AUTH" -H "$J" -b "{\"contactId\":\"$CONTACT\",\"packages\":[$PKG]}" "$BASE/shipments/rates"
echo
echo "# POST /api/shipments: 50 ms provider, $CONNS connections, one idempotency key per request"
"$LOAD" -c "$CONNS" -d "$SECS" -X POST -H "$AUTH" -H "$J" \
  -b "{\"contactId\":\"$CONTACT\",\"carrier\":\"coordinadora\",\"service\":\"ground\",\"idempotencyKey\":\"bench-{n}\",\"packages\":[$PKG]}" \
  "$BASE/shipments"
echo
echo "# host threads while idle after the run (tokio workers + blocking pool + epoch ticker + sled)"
ls "/proc/$PID/task" | wc -l
