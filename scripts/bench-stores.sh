#!/usr/bin/env bash
# One host binary on its two stores, in one run, in turns (embedded sled,
# PostgreSQL, sled, PostgreSQL...), over N contacts of one organization
# (default 20,000):
#   create  durable create of a new contact with a city, 64 connections (req/s, p99)
#   page    the newest page of 100, with the total
#   city    one city's newest page of 100, with the total
#   plan    a custom-property filter (plan=gold: a fifth of them), with the total
#   create2 (PostgreSQL only) the creates of two hosts on the one database at
#           once, 32 connections each: their summed rate against one host's
# and, each round on PostgreSQL, the store calls one create makes (from the
# host's own metrics around the create run).
# Reads run one client at a time and report the median latency; per workload
# the median of the rounds and the ratio PostgreSQL/sled (for latency, above 1
# means PostgreSQL is slower; for create's rate, below 1).
#
# PostgreSQL is a throw-away server on loopback with its defaults for
# durability (fsync, synchronous_commit on); the host's sessions commit
# asynchronously and flush before each 2xx (host/store-postgres/src/
# durability.rs): a 2xx is durable on both sides. Needs root and Debian's
# postgresql package (scripts/install-postgresql.sh).
#
# Usage: scripts/bench-stores.sh [N] [rounds, default 3] [seconds, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20000}
ROUNDS=${2:-3}
SECS=${3:-5}
PORT=${PORT:-18980}
PGPORT=${PGPORT:-18990}
. scripts/bench-lib.sh
PID2=
trap 'kill $PID2 2>/dev/null || true; cleanup' EXIT
start_postgres "$PGPORT" max_connections=200 shared_buffers=256MB synchronous_commit=on
"${PSQL[@]}" -c "CREATE DATABASE crm"
STORE_URL="postgres://postgres@127.0.0.1:$PGPORT/crm"

declare -A QUERY=([page]="" [city]="cityCode=05001" [plan]="plan=gold")
# crm-load; prints "rate p50_ms p99_ms".
measure() { load_figures -d "$SECS" "$@"; }

# Each store gets its data dir (kept between its turns) and the same seed.
declare -A READ WRITE DATA
for store in sled postgres; do
  DATA[$store]="$WORK/data-$store"
done
# Starts a host on `store` with data dir DIR on port P; sets LAUNCHED (its pid).
launch() {
  local store=$1 dir=$2 port=$3 env=()
  [ "$store" = postgres ] && env=(CRM_STORE_URL="$STORE_URL")
  env "${env[@]}" "$HOST" serve --listen 127.0.0.1:$port --admin-listen 127.0.0.1:$((port + 1)) \
    --data-dir "$dir" --tracking-refresh-ms 0 >>"$WORK/out.txt" 2>>"$WORK/err.txt" &
  LAUNCHED=$!
  for _ in $(seq 400); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return; sleep 0.025; done
  echo "the host did not start on $store" >&2
  cat "$WORK/err.txt" >&2
  exit 1
}
# The host of `store` on its own data dir.
on() {
  launch "$1" "${DATA[$1]}" "$PORT"
  PID=$LAUNCHED
}
# POST /api/contacts to the host on port P with C connections; "rate p50 p99".
creates() { # port connections tag token
  measure -c "$2" -X POST -H "Authorization: Bearer $4" -H "content-type: application/json" \
    -b "{\"email\":\"${3}n{n}@w.co\",\"firstName\":\"N\",\"cityCode\":\"{city}\"}" "http://127.0.0.1:$1/api/contacts"
}
# Store calls per create between two snapshots of the host's metrics.
calls_per_create() {
  python3 - "$1" "$2" <<'EOF'
import re, sys
def read(path):
    out = {}
    for line in open(path):
        m = re.match(r'^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$', line)
        if m:
            out[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return out
b, a = read(sys.argv[1]), read(sys.argv[2])
d = lambda k: a.get(k, 0) - b.get(k, 0)
creates = sum(d(k) for k in a if k.startswith("crm_http_requests_total") and 'route="/api/contacts"' in k and 'status="201"' in k)
ops = {re.search(r'op="([^"]+)"', k).group(1): d(k) for k in a if k.startswith("crm_store_operations_total")}
print(f"  PostgreSQL: {creates:.0f} creates; store calls per create: "
      + ", ".join(f"{op} {n / creates:.2f}" for op, n in sorted(ops.items()) if n)
      + f"; {sum(ops.values()) / creates:.1f} in all")
EOF
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
  for store in $(alternate "$round" sled postgres); do
    on "$store"
    for w in page city plan; do
      FIG[$store,$w]+="$(measure -c 1 --warmup 0.5 -H "Authorization: Bearer ${READ[$store]}" \
        "http://127.0.0.1:$PORT/api/contacts?limit=100&${QUERY[$w]}");"
    done
    METRICS=http://127.0.0.1:$((PORT + 1))/metrics
    curl -fs "$METRICS" >"$WORK/metrics.before"
    FIG[$store,create]+="$(creates "$PORT" 64 "r$round" "${WRITE[$store]}");"
    if [ "$store" = postgres ]; then
      curl -fs "$METRICS" >"$WORK/metrics.after"
      calls_per_create "$WORK/metrics.before" "$WORK/metrics.after"
      # A second host on the same database, and the two at once.
      launch postgres "$WORK/data-second" $((PORT + 2))
      PID2=$LAUNCHED
      creates "$PORT" 32 "r${round}a" "${WRITE[postgres]}" >"$WORK/one.txt" &
      creates $((PORT + 2)) 32 "r${round}b" "${WRITE[postgres]}" >"$WORK/two.txt"
      wait $!
      FIG[postgres,create2]+="$(cat "$WORK/one.txt" "$WORK/two.txt" |
        awk '{r += $1; if ($2 > p) p = $2; if ($3 > q) q = $3} END {print r, p, q}');"
      kill "$PID2"
      wait "$PID2" 2>/dev/null || true
      PID2=
    fi
    stop_host
  done
  echo "round $round done"
done

echo
two=${FIG[postgres,create2]}
echo "create2 (two hosts, 32 connections each; p50 and p99 of the slower)"
echo "  PostgreSQL  $(show_figures "$two")"
awk -v b="$(median "$(figures_column 1 "$two")")" -v a="$(median "$(figures_column 1 "${FIG[postgres,create]}")")" \
  'BEGIN {printf "  median      two hosts / one host %.0f/%.0f = %.2f\n", b, a, b / a}'
for w in create page city plan; do
  sled=${FIG[sled,$w]} pg=${FIG[postgres,$w]}
  if [ "$w" = create ]; then
    ratio=$(awk -v s="$(median "$(figures_column 1 "$sled")")" -v p="$(median "$(figures_column 1 "$pg")")" \
      -v s99="$(median "$(figures_column 3 "$sled")")" -v p99="$(median "$(figures_column 3 "$pg")")" \
      'BEGIN {printf "rate PostgreSQL/sled %.0f/%.0f = %.2f; p99 sled %.1f ms, PostgreSQL %.1f ms", p, s, p / s, s99, p99}')
  else
    ratio=$(awk -v s="$(median "$(figures_column 2 "$sled")")" -v p="$(median "$(figures_column 2 "$pg")")" \
      'BEGIN {printf "p50 PostgreSQL/sled %.2f/%.2f ms = %.2f", p, s, p / s}')
  fi
  printf '%s\n  sled        %s\n  PostgreSQL  %s\n  median      %s\n' "$w" "$(show_figures "$sled")" "$(show_figures "$pg")" "$ratio"
done
