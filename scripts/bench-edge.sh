#!/usr/bin/env bash
# An edge host (its PostgreSQL hot standby beside it, the primary and a
# write host a WAN away) beside the same requests on a host on sled, for
# each WAN round trip given (default 0, 30 and 100 ms). One client at a time
# for the latencies (median of a few seconds' requests); then creates at 64
# connections from the edge host.
#
#   me       GET /api/me
#   catalog  GET /api/catalogs/municipalities?q=san
#   page     GET /api/contacts?limit=20 (the newest page, with its total)
#   search   GET /api/contacts?search=user42
#   fresh    GET /api/contacts?search=user1000, user1001...: a new term each
#            time, so an edge host has no answer of its standby kept
#   create   POST /api/contacts, a new email each time
#   upsert   POST /api/contacts of an email that exists
#   form     POST /api/v1/forms/submit/<id>?key=..., a new email each time
#
# The WAN is `wan-link` (crm-tests' user-space proxy: each chunk held for
# the one-way delay) on three links: edge host to the primary database, edge
# host to the write host, and the standby's log stream from the primary.
# The organization holds SEED contacts (default 10,000) on both sides.
#
# Usage: scripts/bench-edge.sh ["RTT_MS ..."] [seconds, default 4]
set -euo pipefail
cd "$(dirname "$0")/.."
RTTS=${1:-0 30 100}
SECS=${2:-4}
SEED=${SEED:-10000}
PORT=${PORT:-18960}
PGPORT=${PGPORT:-18970}
EDGE_PORT=$((PORT + 2))
STANDBY_PORT=$((PGPORT + 1))
# The links: edge → primary database, edge → write host, primary → standby.
DB_LINK=$((PGPORT + 2))
WRITE_LINK=$((PORT + 4))
STREAM_LINK=$((PGPORT + 3))
. scripts/bench-lib.sh
cargo build --release -q -p crm-tests --bin wan-link
WAN_LINK=target/release/wan-link
LINKS=()
EDGE=
trap 'kill ${LINKS[*]:-} $EDGE 2>/dev/null || true; cleanup' EXIT

# One client's median latency of a request (ms): `measure NAME URL [METHOD BODY]`.
measure() {
  local url=$1 method=${2:-GET} body=${3:-}
  local args=(-c 1 -d "$SECS" --warmup 0.5 -X "$method" -H "Authorization: Bearer $TOK" -H 'content-type: application/json')
  if [ -n "$body" ]; then args+=(-b "$body"); fi
  field p50 "$("$LOAD" "${args[@]}" "$url" | grep 'req/s=')"
}

# One client's median latency of GETs of each path in FILE in turn (ms).
measure_paths() {
  local file=$1 url=$2
  field p50 "$("$LOAD" -c 1 -d "$SECS" --warmup 0.5 -H "Authorization: Bearer $TOK" --paths-file "$file" "$url" | grep 'req/s=')"
}

# Every workload against one host's public listener; prints "name=ms ...".
workloads() {
  local api=$1 prefix=$2
  local line=""
  line+=" me=$(measure "$api/api/me")"
  line+=" catalog=$(measure "$api/api/catalogs/municipalities?q=san")"
  line+=" page=$(measure "$api/api/contacts?limit=20")"
  line+=" search=$(measure "$api/api/contacts?search=user42")"
  seq 1000 9999 | sed 's|^|/api/contacts?search=user|' >"$WORK/fresh-terms.txt"
  line+=" fresh=$(measure_paths "$WORK/fresh-terms.txt" "$api/api/contacts")"
  line+=" create=$(measure "$api/api/contacts" POST "{\"email\":\"$prefix-{n}@bench.co\",\"firstName\":\"N\"}")"
  line+=" upsert=$(measure "$api/api/contacts" POST '{"email":"bulk7@bench.co","firstName":"Updated"}')"
  line+=" form=$(measure "$api/api/v1/forms/submit/$FORM?key=$FORM_KEY" POST "{\"correo\":\"$prefix-f{n}@bench.co\",\"nombre\":\"Bench\"}")"
  echo "$line"
}

new_form() {
  read -r FORM FORM_KEY < <(curl -fs -H "Authorization: Bearer $CRM_ADMIN_TOKEN" -H 'content-type: application/json' \
    "http://127.0.0.1:$((PORT + 1))/admin/orgs/$ORG/forms" -d '{"name":"Bench"}' \
    | python3 -c 'import json,sys; f=json.load(sys.stdin); print(f["id"], f["publicKey"])')
}

# ---- the host on sled
start_host "$HOST" CRM_FORM_RATE_PER_MINUTE=0 RUST_LOG=warn
new_org Bench unlimited
seed_contacts "$ORG" "$SEED"
new_form
TOK=$ORG_TOKEN
SLED=$(workloads "http://127.0.0.1:$PORT" sled)
echo "sled:$SLED"
stop_host

# ---- the primary, the write host beside it, and a standby
start_postgres "$PGPORT" max_connections=300 fsync=off
"${PSQL[@]}" -c 'CREATE DATABASE crm'
PRIMARY_URL="postgres://postgres@127.0.0.1:$PGPORT/crm"
start_host "$HOST" CRM_STORE_URL="$PRIMARY_URL" CRM_TRUST_FORWARDED_FOR=127.0.0.1 CRM_FORM_RATE_PER_MINUTE=0 RUST_LOG=warn
new_org Bench unlimited
seed_contacts "$ORG" "$SEED"
new_form
TOK=$ORG_TOKEN
runuser -u postgres -- "$PGBIN/pg_basebackup" -h 127.0.0.1 -p "$PGPORT" -U postgres -X stream -R --checkpoint=fast -D "$PGDIR/standby"
printf "primary_conninfo = 'host=127.0.0.1 port=%s user=postgres'\nwal_retrieve_retry_interval = '500ms'\n" "$STREAM_LINK" \
  >>"$PGDIR/standby/postgresql.auto.conf"

links() { # one-way ms
  local one_way=$1 listen target
  if [ ${#LINKS[@]} -gt 0 ]; then
    kill "${LINKS[@]}" 2>/dev/null || true
    wait "${LINKS[@]}" 2>/dev/null || true
  fi
  LINKS=()
  for link in "$DB_LINK $PGPORT" "$WRITE_LINK $PORT" "$STREAM_LINK $PGPORT"; do
    read -r listen target <<<"$link"
    "$WAN_LINK" "127.0.0.1:$listen" "$target" "$one_way" >/dev/null &
    LINKS+=($!)
  done
  sleep 0.3
}

links 0
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDIR/standby" -l "$PGDIR/standby.log" -w start \
  -o "-p $STANDBY_PORT -k $PGDIR -c listen_addresses=127.0.0.1 -c max_connections=300" >/dev/null

for rtt in $RTTS; do
  links $((rtt / 2))
  CRM_STORE_URL="postgres://postgres@127.0.0.1:$DB_LINK/crm" CRM_STORE_READ_URL="postgres://postgres@127.0.0.1:$STANDBY_PORT/crm" \
    CRM_WRITE_HOST_URL="http://127.0.0.1:$WRITE_LINK" RUST_LOG=warn \
    "$HOST" serve --listen 127.0.0.1:$EDGE_PORT --admin-listen 127.0.0.1:$((EDGE_PORT + 1)) --data-dir "$WORK/edge-$rtt" \
    --tracking-refresh-ms 0 >/dev/null 2>>"$WORK/edge.txt" &
  EDGE=$!
  for _ in $(seq 600); do
    curl -fs "http://127.0.0.1:$EDGE_PORT/readyz" | grep -q '"mode":"edge"' && break
    sleep 0.1
  done
  curl -fs "http://127.0.0.1:$EDGE_PORT/readyz" | grep -q '"mode":"edge"' ||
    { echo "the edge host did not start reading its standby:" >&2; tail -20 "$WORK/edge.txt" >&2; exit 1; }
  echo "edge at ${rtt} ms:$(workloads "http://127.0.0.1:$EDGE_PORT" "edge$rtt")"
  line=$("$LOAD" -X POST -c 64 -d "$SECS" --warmup 1 --threads 2 -H "Authorization: Bearer $TOK" \
    -H 'content-type: application/json' -b "{\"email\":\"edge$rtt-c64-{n}@bench.co\"}" \
    "http://127.0.0.1:$EDGE_PORT/api/contacts" | grep 'req/s=')
  echo "edge at ${rtt} ms, creates at 64 connections: $line"
  kill "$EDGE"
  wait "$EDGE" 2>/dev/null || true
  EDGE=
done
echo "sled:$SLED"
