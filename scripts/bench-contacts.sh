#!/usr/bin/env bash
# Contacts and runtime benchmarks (issue 3) against a release host:
# seeds 100,000 contacts in one organization and 10,000 in each of 10 others,
# then measures writes, lists, filters, search, a component route beside a
# native one, and the restart time. Usage: scripts/bench-contacts.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-8}
SEED=${SEED:-100000}
CONNS=${CONNS:-64}
PORT=${PORT:-18580}
. scripts/bench-lib.sh
mkdir -p "$WORK/plugins"
cp target/plugins/wasm32-wasip2/release/misbehave.wasm "$WORK/plugins/"
PLUGINS=CRM_PLUGINS_DIR=$WORK/plugins
start_host "$HOST" "$PLUGINS"
BASE=http://127.0.0.1:$PORT/api
J="content-type: application/json"
seed() { # token count
  "$LOAD" -c "$CONNS" -d 600 --warmup 0 --requests "$2" -X POST -H "Authorization: Bearer $1" -H "$J" \
    -b '{"email":"u{n}@bench.co","firstName":"User{n}","lastName":"Bench","cityCode":"{city}","tier":"t{n}"}' "$BASE/contacts"
}

echo "# on the fresh host, side by side: component route GET /api/misbehave/ok"
"$LOAD" -c "$CONNS" -d "$SECS" -H "Authorization: Bearer $TOKEN" "$BASE/misbehave/ok"
echo
echo "# native route GET /api/me"
"$LOAD" -c "$CONNS" -d "$SECS" -H "Authorization: Bearer $TOKEN" "$BASE/me"
echo
new_org big unlimited
BIG=$ORG_TOKEN
echo "# seeding 100,000 contacts in one organization (POST /api/contacts, durable)"
seed "$BIG" "$SEED"
echo
echo "# seeding 10 x 10,000 contacts in other organizations"
for i in $(seq 10); do new_org "org$i" unlimited; seed "$ORG_TOKEN" $((SEED / 10)) | tail -1; done
echo

AUTH="Authorization: Bearer $BIG"
new_org fresh unlimited
FRESH=$ORG_TOKEN
echo "# POST /api/contacts creating new contacts (durable), beside 200,000 others"
"$LOAD" -c "$CONNS" -d "$SECS" -X POST -H "Authorization: Bearer $FRESH" -H "$J" \
  -b '{"email":"w{n}@bench.co","firstName":"W{n}","cityCode":"{city}"}' "$BASE/contacts"
echo
echo "# GET /api/contacts?limit=100 (100,000 contacts)"
"$LOAD" -c "$CONNS" -d "$SECS" -H "$AUTH" "$BASE/contacts?limit=100"
echo
echo "# GET /api/contacts?limit=100&cityCode=05001 (5,000 of them match)"
"$LOAD" -c "$CONNS" -d "$SECS" -H "$AUTH" "$BASE/contacts?limit=100&cityCode=05001"
echo
echo "# GET /api/contacts?search=user4242 over 100,000 (4 connections: latency)"
"$LOAD" -c 4 -d "$SECS" -H "$AUTH" "$BASE/contacts?search=user4242"
echo
echo "# restart: process start to /readyz = 200 (cached components)"
stop_host
for run in 1 2 3; do
  started=$(date +%s.%N)
  restart_host "$HOST" "$PLUGINS"
  echo "start to ready: $(seconds_since "$started" 3) s"
  stop_host
done
