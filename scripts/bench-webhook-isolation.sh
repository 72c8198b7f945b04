#!/usr/bin/env bash
# Deliveries never slow the API (issue 56's goal), in two parts.
#
# 1. isolation: deal moves at a fixed $RATE a second (default 1,000, below
#    saturation) from 64 connections, latency counted from each request's due
#    time, in three settings of one release host:
#      clean    an organization without automations, once it has imported
#               $BACKLOG contacts (so that the store has grown as much as it
#               will with the backlog's contacts), before any backlog;
#      none     the same organization, once another holds a backlog;
#      hanging  an organization whose automations send every contact.created
#               and deal.stage_changed to a receiver that never answers (each
#               attempt ends at the 15 s timeout), holding $BACKLOG pending
#               deliveries (its own import of $BACKLOG contacts) and one more
#               per move.
#    Goal: hanging's p99 within 1.2x clean's (medians over $ROUNDS rounds).
# 2. throughput: a fast receiver (`webhook-receiver`, 204) on core 1 of its own;
#    the host and the load generator on core 0. $FAST_RATE moves a second
#    (default 2,000) for $FAST_SECS seconds in an organization whose automation
#    sends each move to it; then the same rate of events from imports (one
#    of $FAST_RATE contacts a second, each contact.created sent to it), which
#    leave the host's core to the deliveries. Goal: deliveries keep up with
#    the events: the rate they arrive at while the events come, and how long
#    after the last one the receiver has them all.
# Usage: scripts/bench-webhook-isolation.sh [ROUNDS, default 3]   (PARTS="1" or "2": one part)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
RATE=${RATE:-1000}
BACKLOG=${BACKLOG:-100000}
FAST_RATE=${FAST_RATE:-2000}
FAST_SECS=${FAST_SECS:-10}
MOVES=$((RATE * 5))  # five seconds a round
PORT=${PORT:-18820}
HANG_PORT=$((PORT + 7))
FAST_PORT=$((PORT + 8))
cargo build --release -q -p crm-tests --bin webhook-receiver
. scripts/bench-lib.sh
SIDE=()
trap 'for p in "${SIDE[@]}"; do kill "$p" 2>/dev/null || true; done; cleanup' EXIT
# Accepts connections and never reads nor answers them.
python3 -c "import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', $HANG_PORT)); s.listen(4096); time.sleep(1e9)" &
SIDE+=($!)
taskset -c 1 target/release/webhook-receiver "127.0.0.1:$FAST_PORT" >/dev/null &
SIDE+=($!)

API=http://127.0.0.1:$PORT
ADMIN=http://127.0.0.1:$((PORT + 1))
admin() { curl -fs -H "Authorization: Bearer $CRM_ADMIN_TOKEN" -H 'content-type: application/json' "$ADMIN$1" ${2:+-d "$2"}; }
id_of() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("data", d)["id"])'; }
api() { curl -fs -H "Authorization: Bearer $ORG_TOKEN" -H 'content-type: application/json' "$API$1" ${2:+-d "$2"}; }
received() { curl -fs "http://127.0.0.1:$FAST_PORT/count"; }
# Waits until the receiver has $FAST_MOVES more events than $1, or 30 s past
# the moment $2 (a `date +%s.%N`); prints the seconds past $2 it ended.
wait_for_all() {
  until [ $(($(received) - $1)) -ge "$FAST_MOVES" ]; do
    sleep 0.05
    if awk -v a="$(seconds_since "$2")" 'BEGIN { exit !(a > 30) }'; then break; fi
  done
  seconds_since "$2" 3
}
# An active automation of ORG sending trigger $1's events to $2.
automation() {
  local id
  id=$(api /api/automations "{\"name\":\"bench\",\"trigger\":{\"type\":\"$1\"},\"actions\":[{\"type\":\"http_request\",\"url\":\"$2\"}]}" | id_of)
  admin "/admin/orgs/$ORG/automations/$id/activate" '{}' >/dev/null
}
# $1 deals at stage new in ORG, opened by token form submissions; their paths in $2.
open_deals() {
  local form
  form=$(admin "/admin/orgs/$ORG/forms" '{"name":"Bench","createDeal":true}' | id_of)
  "$LOAD" -X POST -c 64 -d 600 --warmup 0 --threads 2 --requests "$1" -H 'content-type: application/json' \
    -H "Authorization: Bearer $ORG_TOKEN" -b "{\"email\":\"d{n}@$ORG.co\",\"nombre\":\"Bench\"}" \
    "$API/api/forms/$form/submit" >/dev/null
  for page in $(seq $((($1 + 99) / 100))); do
    api "/api/deals?limit=100&page=$page" |
      python3 -c 'import json,sys; [print("/api/deals/" + d["id"]) for d in json.load(sys.stdin)["data"]]'
  done >"$2"
}
# Imports $1 new contacts (emails $2<n>@bench.co) into ORG, 10,000 rows a call.
import_contacts() {
  python3 - "$1" "$2" "$WORK/rows" <<'EOF'
import json, sys
n, name, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
for start in range(0, n, 10000):
    rows = [{"email": f"{name}{i}@bench.co"} for i in range(start, min(n, start + 10000))]
    with open(f"{out}.{start // 10000:05d}.json", "w") as f:
        json.dump({"rows": rows}, f)
EOF
  post_rows "$API/api/import/contacts" "Authorization: Bearer $ORG_TOKEN"
}
# Moves new → qualified the deals of lines $2.. of file $1 with ORG's token at
# $3 a second ($4 of them); prints crm-load's summary line and its errors.
paced_moves() {
  sed -n "$2,$(($2 + $4 - 1))p" "$1" >"$WORK/part.paths"
  # shellcheck disable=SC2086 # PIN is a command prefix, split on purpose
  ${PIN:-} "$LOAD" -X PUT -c 64 --threads 2 -d 600 --warmup 0 --rate "$3" --requests "$4" --paths-file "$WORK/part.paths" \
    -H 'content-type: application/json' -H "Authorization: Bearer $ORG_TOKEN" -b '{"stage":"qualified"}' \
    "$API/api/deals" >"$WORK/run.txt"
  echo "$(grep 'req/s=' "$WORK/run.txt") $(grep -o 'errors=[0-9]*' "$WORK/run.txt")"
}

PARTS=${PARTS:-1 2}
if [[ " $PARTS " == *" 1 "* ]]; then
echo "== part 1: moves at $RATE a second beside a hanging receiver's backlog of $BACKLOG"
start_host "$HOST" CRM_WEBHOOK_ALLOW_PRIVATE=true CRM_FORM_RATE_PER_MINUTE=0 RUST_LOG=warn
declare -A TOKENS ORGS P99 P50
for kind in none hanging; do
  new_org "$kind" unlimited
  TOKENS[$kind]=$ORG_TOKEN
  ORGS[$kind]=$ORG
  deals=$((MOVES * ROUNDS))
  [ "$kind" = none ] && deals=$((deals * 2))
  open_deals "$deals" "$WORK/$kind.paths"
  echo "$kind: $(wc -l <"$WORK/$kind.paths") deals"
done
ORG_TOKEN=${TOKENS[none]}
ORG=${ORGS[none]}
import_contacts "$BACKLOG" quiet
line=0
for round in $(seq "$ROUNDS"); do
  out=$(paced_moves "$WORK/none.paths" $((line + 1)) "$RATE" "$MOVES")
  line=$((line + MOVES))
  echo "round $round clean: $out"
  P50[clean]+="$(field p50 "$out") "; P99[clean]+="$(field p99 "$out") "
done
ORG_TOKEN=${TOKENS[hanging]}
ORG=${ORGS[hanging]}
automation contact.created "http://127.0.0.1:$HANG_PORT/hook"
automation deal.stage_changed "http://127.0.0.1:$HANG_PORT/hook"
started=$(date +%s.%N)
import_contacts "$BACKLOG" backlog
pending=$(api "/api/webhooks/deliveries?status=pending&limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pagination"]["total"])')
echo "backlog: $pending pending deliveries to the hanging receiver, made in $(seconds_since "$started" 1) s"
nline=$line
hline=0
for round in $(seq "$ROUNDS"); do
  for kind in none hanging; do
    ORG_TOKEN=${TOKENS[$kind]}
    if [ "$kind" = none ]; then
      out=$(paced_moves "$WORK/none.paths" $((nline + 1)) "$RATE" "$MOVES"); nline=$((nline + MOVES))
    else
      out=$(paced_moves "$WORK/hanging.paths" $((hline + 1)) "$RATE" "$MOVES"); hline=$((hline + MOVES))
    fi
    echo "round $round $kind: $out"
    P50[$kind]+="$(field p50 "$out") "; P99[$kind]+="$(field p99 "$out") "
  done
done
stop_host
for kind in clean none hanging; do
  echo "at $RATE moves a second, $kind: p50 $(spread "${P50[$kind]}") ms, p99 $(spread "${P99[$kind]}") ms (median (min–max) of the rounds)"
done
awk -v h="$(median "${P99[hanging]}")" -v c="$(median "${P99[clean]}")" -v n="$(median "${P99[none]}")" \
  'BEGIN { printf "p99 hanging / clean = %.2f (goal within 1.2); hanging / none (same time) = %.2f\n", h / c, h / n }'
fi
[[ " $PARTS " == *" 2 "* ]] || exit 0

echo "== part 2: $FAST_RATE moves a second, each delivered to a receiver on core 1 of its own"
printf '#!/bin/sh\nexec taskset -c 0 %s "$@"\n' "$PWD/$HOST" >"$WORK/pinned-host"
chmod +x "$WORK/pinned-host"
start_host "$WORK/pinned-host" CRM_WEBHOOK_ALLOW_PRIVATE=true CRM_FORM_RATE_PER_MINUTE=0 RUST_LOG=warn
new_org fast unlimited
FAST_MOVES=$((FAST_RATE * FAST_SECS))
open_deals $((FAST_MOVES * ROUNDS)) "$WORK/fast.paths"
automation deal.stage_changed "http://127.0.0.1:$FAST_PORT/hook"
PIN="taskset -c 0"
KEPT=()
DURING=()
DRAIN=()
for round in $(seq "$ROUNDS"); do
  before=$(received)
  started=$(date +%s.%N)
  out=$(paced_moves "$WORK/fast.paths" $(((round - 1) * FAST_MOVES + 1)) "$FAST_RATE" "$FAST_MOVES")
  moved=$(seconds_since "$started" 3)
  during=$(($(received) - before))
  behind=$(wait_for_all "$before" "$(date +%s.%N)")
  got=$(($(received) - before))
  rate=$(awk -v n="$during" -v t="$moved" 'BEGIN { printf "%.0f", n / t }')
  drain=$(awk -v n="$((got - during))" -v t="$behind" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }')
  echo "round $round: $out; moves took $moved s, $during delivered meanwhile ($rate/s), the other $((got - during)) in $behind s after the last move ($drain/s)"
  KEPT+=("$behind")
  DURING+=("$rate")
  DRAIN+=("$drain")
done
echo "median deliveries a second while $FAST_RATE moves a second ran: $(median "${DURING[*]}"); once they stopped: $(median "${DRAIN[*]}"); the last one $(median "${KEPT[*]}") s after the last move"

# The same receiver, the events from imports: one of $FAST_RATE new contacts
# a second for $FAST_SECS seconds, each contact.created sent to it (an import
# costs the host far less a contact than a move, so the core is left to the
# deliveries).
automation contact.created "http://127.0.0.1:$FAST_PORT/hook"
KEPT=()
DURING=()
for round in $(seq "$ROUNDS"); do
  python3 - "$FAST_RATE" "$FAST_SECS" "$round" "$WORK/second" <<'EOF'
import json, sys
rate, secs, round_, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
for s in range(secs):
    rows = [{"email": f"r{round_}s{s}n{i}@fast.co"} for i in range(rate)]
    with open(f"{out}.{s:03d}.json", "w") as f:
        json.dump({"rows": rows}, f)
EOF
  before=$(received)
  started=$(date +%s.%N)
  for s in $(seq 0 $((FAST_SECS - 1))); do
    # Each import leaves on its second, whatever the one before took.
    until awk -v a="$(seconds_since "$started" 3)" -v s="$s" 'BEGIN { exit !(a >= s) }'; do sleep 0.01; done
    taskset -c 0 curl -fs -o /dev/null -H "Authorization: Bearer $ORG_TOKEN" -H 'content-type: application/json' \
      "$API/api/import/contacts" --data-binary @"$WORK/second.$(printf %03d "$s").json"
  done
  imported=$(seconds_since "$started" 3)
  during=$(($(received) - before))
  behind=$(wait_for_all "$before" "$(date +%s.%N)")
  rate=$(awk -v n="$during" -v t="$imported" 'BEGIN { printf "%.0f", n / t }')
  echo "imports round $round: $FAST_MOVES contacts in $imported s, $during delivered meanwhile ($rate/s), all $(($(received) - before)) by $behind s after the last import"
  KEPT+=("$behind")
  DURING+=("$rate")
  rm -f "$WORK"/second.*.json
done
echo "median deliveries a second while imports made $FAST_RATE events a second: $(median "${DURING[*]}"); the last one $(median "${KEPT[*]}") s after the last import"
