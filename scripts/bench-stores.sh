#!/usr/bin/env bash
# One host binary on its two stores, in one run, in turns (embedded sled,
# PostgreSQL, sled, PostgreSQL...), over N contacts of one organization
# (default 20,000):
#   create  durable create of a new contact with a city, 64 connections (req/s, p99)
#   page    the newest page of 100, with the total
#   city    one city's newest page of 100, with the total
#   plan    a custom-property filter (plan=gold: a fifth of them), with the total
# Reads run one client at a time and report the median latency; per workload
# the median of the rounds and the ratio PostgreSQL/sled (for latency, above 1
# means PostgreSQL is slower; for create's rate, below 1).
#
# PostgreSQL is a throw-away server on loopback with synchronous_commit on
# (its default): a 2xx is durable on both sides. Needs root and Debian's
# postgresql package (scripts/install-postgresql.sh).
#
# Usage: scripts/bench-stores.sh [N] [rounds, default 3] [seconds, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20000}
ROUNDS=${2:-3}
SECS=${3:-5}
cargo build --release -q -p crm-host -p crm-load
HOST=target/release/crm-host
LOAD=target/release/crm-load
WORK=$(mktemp -d)
PORT=${PORT:-18980}
PGPORT=${PGPORT:-18990}
. scripts/bench-lib.sh
start_postgres "$PGPORT" max_connections=200 shared_buffers=256MB synchronous_commit=on
"${PSQL[@]}" -c "CREATE DATABASE crm"
STORE_URL="postgres://postgres@127.0.0.1:$PGPORT/crm"

declare -A QUERY=([page]="" [city]="cityCode=05001" [plan]="plan=gold")
# crm-load; prints "rate p50_ms p99_ms".
measure() {
  "$LOAD" -d "$SECS" "$@" | awk '/^req\/s=/ {gsub(/[a-z0-9\/]+=|ms/, ""); print $1, $2, $4}'
}

# Each store gets its data dir (kept between its turns) and the same seed.
declare -A READ WRITE DATA
for store in sled postgres; do
  DATA[$store]="$WORK/data-$store"
done
# Starts the host on `store`, on that store's data dir.
on() {
  local env=()
  [ "$1" = postgres ] && env=(CRM_STORE_URL="$STORE_URL")
  env "${env[@]}" "$HOST" serve --listen 127.0.0.1:$PORT --admin-listen 127.0.0.1:$((PORT + 1)) \
    --data-dir "${DATA[$1]}" --tracking-refresh-ms 0 >>"$WORK/out.txt" 2>>"$WORK/err.txt" &
  PID=$!
  for _ in $(seq 400); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && return; sleep 0.025; done
  echo "the host did not start on $1" >&2
  cat "$WORK/err.txt" >&2
  exit 1
}
for store in sled postgres; do
  on "$store"
  new_org Read unlimited
  READ[$store]=$ORG_TOKEN
  echo -n "$store: "
  seed_contacts "$ORG" "$N"
  new_org Write unlimited
  WRITE[$store]=$ORG_TOKEN
  stop_host
done

declare -A FIG
for round in $(seq "$ROUNDS"); do
  for store in sled postgres; do
    on "$store"
    for w in page city plan; do
      FIG[$store,$w]+="$(measure -c 1 --warmup 0.5 -H "Authorization: Bearer ${READ[$store]}" \
        "http://127.0.0.1:$PORT/api/contacts?limit=100&${QUERY[$w]}");"
    done
    FIG[$store,create]+="$(measure -c 64 -X POST -H "Authorization: Bearer ${WRITE[$store]}" -H "content-type: application/json" \
      -b "{\"email\":\"r${round}n{n}@w.co\",\"firstName\":\"N\",\"cityCode\":\"{city}\"}" "http://127.0.0.1:$PORT/api/contacts");"
    stop_host
  done
  echo "round $round done"
done

echo
python3 - <<EOF
figs = {$(for k in "${!FIG[@]}"; do printf '"%s": "%s", ' "$k" "${FIG[$k]}"; done)}
from statistics import median
def parse(s): return [tuple(map(float, r.split())) for r in s.strip(";").split(";")]
show = lambda rs: " | ".join(f"{r[0]:.0f}/s p50 {r[1]:.2f} p99 {r[2]:.2f}" for r in rs)
for w in ["create", "page", "city", "plan"]:
    sled, pg = parse(figs[f"sled,{w}"]), parse(figs[f"postgres,{w}"])
    if w == "create":
        s, p = median(r[0] for r in sled), median(r[0] for r in pg)
        ratio = f"rate PostgreSQL/sled {p:.0f}/{s:.0f} = {p / s:.2f}; p99 sled {median(r[2] for r in sled):.1f} ms, PostgreSQL {median(r[2] for r in pg):.1f} ms"
    else:
        s, p = median(r[1] for r in sled), median(r[1] for r in pg)
        ratio = f"p50 PostgreSQL/sled {p:.2f}/{s:.2f} ms = {p / s:.2f}"
    print(f"{w}\n  sled        {show(sled)}\n  PostgreSQL  {show(pg)}\n  median      {ratio}")
EOF
