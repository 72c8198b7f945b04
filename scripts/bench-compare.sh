#!/usr/bin/env bash
# Compares two crm-host builds in one run, interleaved (A, B, A, B...), on the
# same workloads: GET /api/me, a catalog search, its 304, a component list
# route, and durable POST /api/contacts creates. Prints each figure and, per
# workload, the median req/s of each build and the ratio B/A.
#
# Usage: scripts/bench-compare.sh BIN_A BIN_B [rounds, default 3] [seconds, default 5]
# e.g.   scripts/bench-compare.sh /tmp/crm-host-before target/release/crm-host
set -euo pipefail
cd "$(dirname "$0")/.."
A=${1:?first crm-host binary}
B=${2:?second crm-host binary}
ROUNDS=${3:-3}
SECS=${4:-5}
CONNS=${CONNS:-64}
PORT=${PORT:-18680}
. scripts/bench-lib.sh

# One measurement: prints req/s.
measure() {
  "$LOAD" -c "$CONNS" -d "$SECS" "$@" | awk -F'[ =]' '/^req\/s=/ {print $2}'
}

BASE=http://127.0.0.1:$PORT/api
J="content-type: application/json"
declare -A FIG
for round in $(seq "$ROUNDS"); do
  for side in $(alternate "$round" A B); do
    bin=$A; [ "$side" = B ] && bin=$B
    start_host "$bin"
    AUTH="Authorization: Bearer $TOKEN"
    for i in $(seq 20); do
      curl -fs -o /dev/null -H "$AUTH" -H "$J" "$BASE/contacts" -d "{\"email\":\"seed$i@x.co\",\"cityCode\":\"05001\"}"
    done
    ETAG=$(curl -fs -o /dev/null -D - -H "$AUTH" "$BASE/catalogs/municipalities?q=san" | awk -F': ' 'tolower($1)=="etag" {print $2}' | tr -d '\r')
    FIG[$side,me]+=" $(measure -H "$AUTH" "$BASE/me")"
    FIG[$side,catalog]+=" $(measure -H "$AUTH" "$BASE/catalogs/municipalities?q=san")"
    FIG[$side,304]+=" $(measure -H "$AUTH" -H "If-None-Match: $ETAG" "$BASE/catalogs/municipalities?q=san")"
    FIG[$side,list]+=" $(measure -H "$AUTH" "$BASE/contacts?limit=20")"
    FIG[$side,create]+=" $(measure -X POST -H "$AUTH" -H "$J" -b "{\"email\":\"r${round}${side}{n}@bench.co\",\"cityCode\":\"{city}\"}" "$BASE/contacts")"
    stop_host
    echo "round $round $side done" >&2
  done
done

printf '%-36s %-24s %-24s %s\n' workload "A req/s (runs)" "B req/s (runs)" "B/A (medians)"
for w in me catalog 304 list create; do
  ma=$(median "${FIG[A,$w]}"); mb=$(median "${FIG[B,$w]}")
  case $w in
    me) name="GET /api/me";; catalog) name="GET /api/catalogs/municipalities?q=san";; 304) name="same, If-None-Match (304)";;
    list) name="GET /api/contacts?limit=20";; create) name="POST /api/contacts (durable)";;
  esac
  printf '%-36s %-24s %-24s %s\n' "$name" "$ma (${FIG[A,$w]# })" "$mb (${FIG[B,$w]# })" "$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.2f", b / a}')"
done
