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
cargo build --release -q -p crm-host -p crm-load
HOST=target/release/crm-host
LOAD=target/release/crm-load
DATA=$(mktemp -d)
PORT=${PORT:-18580}
ADMIN=http://127.0.0.1:$((PORT + 1))
mkdir -p "$DATA/plugins"
cp target/plugins/wasm32-wasip2/release/misbehave.wasm "$DATA/plugins/"
export CRM_ADMIN_TOKEN=bench-admin
start() {
  "$HOST" serve --listen 127.0.0.1:$PORT --admin-listen 127.0.0.1:$((PORT + 1)) --data-dir "$DATA/data" \
    --plugins-dir "$DATA/plugins" >>"$DATA/out.txt" 2>>"$DATA/err.txt" &
  PID=$!
  for _ in $(seq 400); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && return; sleep 0.025; done
  echo "host did not start"; cat "$DATA/err.txt"; exit 1
}
start
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null || true; rm -rf "$DATA"' EXIT
BASE=http://127.0.0.1:$PORT/api
J="content-type: application/json"
new_org() { # name -> prints "org token"
  local org token
  org=$(curl -fs -XPOST "$ADMIN/admin/orgs" -H "Authorization: Bearer $CRM_ADMIN_TOKEN" -H "$J" \
    -d "{\"name\":\"$1\",\"plan\":\"unlimited\"}" | sed 's/.*"id":"\([0-9a-f]*\)".*/\1/')
  token=$(curl -fs -XPOST "$ADMIN/admin/orgs/$org/tokens" -H "Authorization: Bearer $CRM_ADMIN_TOKEN" -H "$J" \
    -d '{"name":"bench","permissions":["*"]}' | sed 's/.*"token":"\([^"]*\)".*/\1/')
  echo "$org $token"
}
seed() { # token count
  "$LOAD" -c "$CONNS" -d 600 --warmup 0 --requests "$2" -X POST -H "Authorization: Bearer $1" -H "$J" \
    -b '{"email":"u{n}@bench.co","firstName":"User{n}","lastName":"Bench","cityCode":"{city}","tier":"t{n}"}' "$BASE/contacts"
}

DEMO=$(grep -o 'crm_[0-9a-f_]*' "$DATA/out.txt" | head -1)
echo "# on the fresh host, side by side: component route GET /api/misbehave/ok"
"$LOAD" -c "$CONNS" -d "$SECS" -H "Authorization: Bearer $DEMO" "$BASE/misbehave/ok"
echo
echo "# native route GET /api/me"
"$LOAD" -c "$CONNS" -d "$SECS" -H "Authorization: Bearer $DEMO" "$BASE/me"
echo
read -r _ BIG < <(new_org big)
echo "# seeding 100,000 contacts in one organization (POST /api/contacts, durable)"
seed "$BIG" "$SEED"
echo
echo "# seeding 10 x 10,000 contacts in other organizations"
for i in $(seq 10); do read -r _ T < <(new_org "org$i"); seed "$T" $((SEED / 10)) | tail -1; done
echo

AUTH="Authorization: Bearer $BIG"
read -r _ FRESH < <(new_org fresh)
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
kill $PID; wait $PID 2>/dev/null || true
for run in 1 2 3; do
  t0=$(date +%s%N); start; t1=$(date +%s%N)
  echo "start to ready: $(( (t1 - t0) / 1000000 )) ms"
  kill $PID; wait $PID 2>/dev/null || true
done
start
