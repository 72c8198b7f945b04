#!/usr/bin/env bash
# Outbound events against a release host and a local receiver
# (`webhook-receiver`, 204 to every POST), in one run, interleaved:
#   move     PUT /api/deals/{id} new → qualified at 64 connections, each
#            request a different deal, in an organization whose active
#            automation sends every deal.stage_changed to the receiver
#            ("event") and in one without automations ("none"): the added
#            latency of writing the event in the move's commit;
#   single   the same move from one connection (1,000 deals a round): the
#            latency a move adds when the machine is not saturated, and the
#            host's CPU per move (its delivery included);
#   paced    the same move at a fixed $RATE a second (default 1,000) from 64
#            connections, latency counted from each request's due time: the
#            latency a move adds at a load the host carries, below saturation;
#   deliver  deliveries per second: from the first move of a round until the
#            receiver has every event of it (the worker's throughput).
# Deals are opened by token form submissions (a form with createDeal).
# Usage: scripts/bench-events.sh [DEALS_PER_ROUND] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
PER_ROUND=${1:-8000}
ROUNDS=${2:-3}
SINGLE=1000
RATE=${RATE:-1000}
PACED=$((RATE * 2))  # two seconds of it a round
cargo build --release -q -p crm-tests --bin webhook-receiver
PORT=${PORT:-18790}
RECEIVER_PORT=$((PORT + 7))
. scripts/bench-lib.sh
target/release/webhook-receiver "127.0.0.1:$RECEIVER_PORT" >/dev/null &
RECEIVER=$!
trap 'kill $RECEIVER 2>/dev/null; cleanup' EXIT
start_host "$HOST" CRM_WEBHOOK_ALLOW_PRIVATE=true CRM_FORM_RATE_PER_MINUTE=0 RUST_LOG=warn
API=http://127.0.0.1:$PORT
ADMIN=http://127.0.0.1:$((PORT + 1))
admin() { curl -fs -H "Authorization: Bearer $CRM_ADMIN_TOKEN" -H 'content-type: application/json' "$ADMIN$1" ${2:+-d "$2"}; }
id_of() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("data", d)["id"])'; }
received() { curl -fs "http://127.0.0.1:$RECEIVER_PORT/count"; }

# Two organizations, each with a deal-opening form and $ROUNDS × $PER_ROUND deals at stage new.
declare -A TOKEN PATHS
for kind in event none; do
  new_org "$kind" unlimited
  TOKEN[$kind]=$ORG_TOKEN
  form=$(admin "/admin/orgs/$ORG/forms" '{"name":"Bench","createDeal":true}' | id_of)
  if [ "$kind" = event ]; then
    automation=$(curl -fs -H "Authorization: Bearer $ORG_TOKEN" -H 'content-type: application/json' "$API/api/automations" \
      -d "{\"name\":\"bench\",\"trigger\":{\"type\":\"deal.stage_changed\"},\"actions\":[{\"type\":\"http_request\",\"url\":\"http://127.0.0.1:$RECEIVER_PORT/hook\"}]}" | id_of)
    admin "/admin/orgs/$ORG/automations/$automation/activate" '{}' >/dev/null
  fi
  total=$(((PER_ROUND + SINGLE + PACED) * ROUNDS))
  "$LOAD" -X POST -c 64 -d 600 --warmup 0 --threads 2 --requests "$total" -H 'content-type: application/json' \
    -H "Authorization: Bearer $ORG_TOKEN" -b "{\"email\":\"d{n}@$kind.co\",\"nombre\":\"Bench\"}" \
    "$API/api/forms/$form/submit" >/dev/null
  PATHS[$kind]=$WORK/$kind.paths
  for page in $(seq $(((total + 99) / 100))); do
    curl -fs -H "Authorization: Bearer $ORG_TOKEN" "$API/api/deals?limit=100&page=$page" |
      python3 -c 'import json,sys; [print("/api/deals/" + d["id"]) for d in json.load(sys.stdin)["data"]]'
  done >"${PATHS[$kind]}"
  echo "$kind: $(wc -l <"${PATHS[$kind]}") deals"
done

# Host CPU between two cpu_micros readings, per deal moved (of the round,
# or of the $3 given).
cpu_per() { micros_per "$1" "$2" "${3:-$PER_ROUND}"; }
# Moves new → qualified the deals of $WORK/<part>.paths in organization <kind>,
# with crm-load's other options; prints its summary line and its errors count.
move() {
  local kind=$1 part=$2
  shift 2
  "$LOAD" -X PUT -d 600 --warmup 0 "$@" --paths-file "$WORK/$part.paths" -H 'content-type: application/json' \
    -H "Authorization: Bearer ${TOKEN[$kind]}" -b '{"stage":"qualified"}' "$API/api/deals" >"$WORK/run.txt"
  echo "$(grep 'req/s=' "$WORK/run.txt") $(grep -o 'errors=[0-9]*' "$WORK/run.txt")"
}
declare -A RATES P50 P99 SINGLE_P50 SINGLE_CPU PACED_P50 PACED_P99
DELIVER=()
for round in $(seq "$ROUNDS"); do
  first=$(((round - 1) * (PER_ROUND + SINGLE + PACED) + 1))
  for kind in $(alternate "$round" event none); do
    sed -n "${first},$((first + PER_ROUND - 1))p" "${PATHS[$kind]}" >"$WORK/round.paths"
    sed -n "$((first + PER_ROUND)),$((first + PER_ROUND + SINGLE - 1))p" "${PATHS[$kind]}" >"$WORK/single.paths"
    sed -n "$((first + PER_ROUND + SINGLE)),$((first + PER_ROUND + SINGLE + PACED - 1))p" "${PATHS[$kind]}" >"$WORK/paced.paths"
    before=$(received)
    cpu_before=$(cpu_micros)
    started=$(date +%s.%N)
    line=$(move "$kind" round -c 64 --threads 2 --requests "$PER_ROUND")
    cpu_moves=$(cpu_micros)
    echo "round $round $kind: $line; host CPU per move $(cpu_per "$cpu_before" "$cpu_moves") µs (while moving)"
    RATES[$kind]+="$(field req/s "$line") "
    P50[$kind]+="$(field p50 "$line") "
    P99[$kind]+="$(field p99 "$line") "
    if [ "$kind" = event ]; then
      until [ $(($(received) - before)) -ge "$PER_ROUND" ]; do sleep 0.05; done
      took=$(seconds_since "$started" 3)
      rate=$(awk -v n="$PER_ROUND" -v t="$took" 'BEGIN {printf "%.0f", n / t}')
      echo "round $round host CPU per event, moves and deliveries: $(cpu_per "$cpu_before" "$(cpu_micros)") µs"
      echo "round $round deliveries: $PER_ROUND in $took s = $rate/s"
      DELIVER+=("$rate")
    fi
    before=$(received)
    cpu_before=$(cpu_micros)
    line=$(move "$kind" single -c 1 --requests "$SINGLE")
    # A move's CPU from one connection, its delivery included (less noisy than its latency).
    if [ "$kind" = event ]; then
      until [ $(($(received) - before)) -ge "$SINGLE" ]; do sleep 0.05; done
    fi
    cpu=$(cpu_per "$cpu_before" "$(cpu_micros)" "$SINGLE")
    echo "round $round $kind, one connection: $line; host CPU per move $cpu µs"
    SINGLE_P50[$kind]+="$(field p50 "$line") "
    SINGLE_CPU[$kind]+="$cpu "
    line=$(move "$kind" paced -c 64 --threads 2 --rate "$RATE" --requests "$PACED")
    echo "round $round $kind, $RATE a second: $line"
    PACED_P50[$kind]+="$(field p50 "$line") "
    PACED_P99[$kind]+="$(field p99 "$line") "
    if [ "$kind" = event ]; then  # the next round starts with no deliveries behind
      until [ $(($(received) - before)) -ge $((SINGLE + PACED)) ]; do sleep 0.05; done
    fi
  done
done
e=$(median "${RATES[event]}"); n=$(median "${RATES[none]}")
e50=$(median "${P50[event]}"); n50=$(median "${P50[none]}"); e99=$(median "${P99[event]}"); n99=$(median "${P99[none]}")
d=$(median "${DELIVER[*]}")
s1=$(median "${SINGLE_P50[event]}"); s0=$(median "${SINGLE_P50[none]}")
c1=$(median "${SINGLE_CPU[event]}"); c0=$(median "${SINGLE_CPU[none]}")
echo "median deal moves/s: with an event $e (p50 $e50 ms, p99 $e99 ms) | without $n (p50 $n50 ms, p99 $n99 ms)"
awk -v e50="$e50" -v n50="$n50" -v e="$e" -v n="$n" 'BEGIN { printf "latency with / without = %.2f (p50; goal within 1.2), throughput ratio %.2f\n", e50 / n50, n / e }'
awk -v a="$s1" -v b="$s0" 'BEGIN { printf "one connection, p50: with an event %.2f ms, without %.2f ms = %.2f (goal within 1.2)\n", a, b, a / b }'
awk -v a="$c1" -v b="$c0" 'BEGIN { printf "one connection, host CPU per move: with an event %d µs (its delivery included), without %d µs = %.2f\n", a, b, a / b }'
p1=$(median "${PACED_P50[event]}"); p0=$(median "${PACED_P50[none]}")
q1=$(median "${PACED_P99[event]}"); q0=$(median "${PACED_P99[none]}")
awk -v a="$p1" -v b="$p0" -v c="$q1" -v d="$q0" -v r="$RATE" 'BEGIN { printf "%d moves a second, p50: with an event %.2f ms, without %.2f ms = %.2f (goal within 1.2); p99 %.2f / %.2f ms = %.2f\n", r, a, b, a / b, c, d, c / d }'
echo "median deliveries/s to the local receiver: $d"
