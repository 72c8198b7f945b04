#!/usr/bin/env bash
# Public form submits beside POST /api/contacts, in one run, interleaved
# (contacts, form, contacts, form...), against a release host: every request
# creates a new contact, durably, at 64 connections, and every line makes the
# same kind of contact (a new email, a first and a last name, a city), so
# that a submit is measured by what the form adds to it. A third line
# measures a form that also opens a deal and notifies two addresses; a fourth
# a module that only forwards the body to contacts.upsert (the
# contacts-client test component): the cost of a nested call alone.
# Prints each round with the host's CPU per request (user and kernel, from
# /proc/<pid>/stat), and the medians of both, with their ratios.
# Each round adds its leads to one organization, so a later load meets a
# larger store than an earlier one: rounds alternate the order of the loads
# (`alternate`: contacts first, then last; give an even number of rounds), and the
# organization first gets SEED contacts (default 100,000, the pro plan's
# size) through the bulk path, so that every load meets a store of the size
# the plans sell, which a round's leads change little.
# Usage: [SEED=N] scripts/bench-forms.sh [SECONDS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-10}
ROUNDS=${2:-4}
# FORMS_WASM=some/forms.wasm (CONTACTS_WASM=some/contacts.wasm) measures a
# variant of the forms (contacts) module in the same host (a component named
# like a first-party one replaces it), without relinking the release host
# (about 3.4 min with its LTO).
PORT=${PORT:-18790}
. scripts/bench-lib.sh
mkdir -p "$WORK/plugins"
cp target/plugins/wasm32-wasip2/release/contacts_client.wasm "$WORK/plugins/"
if [ -n "${FORMS_WASM:-}" ]; then cp "$FORMS_WASM" "$WORK/plugins/forms.wasm"; fi
if [ -n "${CONTACTS_WASM:-}" ]; then cp "$CONTACTS_WASM" "$WORK/plugins/contacts.wasm"; fi
start_host "$HOST" CRM_FORM_RATE_PER_MINUTE=0 CRM_PLUGINS_DIR="$WORK/plugins" RUST_LOG=warn
new_org Bench unlimited
SEED=${SEED:-100000}
if [ "$SEED" -gt 0 ]; then seed_contacts "$ORG" "$SEED"; fi
API=http://127.0.0.1:$PORT
ADMIN=http://127.0.0.1:$((PORT + 1))
form() {
  curl -fs -H "Authorization: Bearer $CRM_ADMIN_TOKEN" -H 'content-type: application/json' \
    "$ADMIN/admin/orgs/$ORG/forms" -d "$1" | python3 -c 'import json,sys; f=json.load(sys.stdin); print(f["id"], f["publicKey"])'
}
read -r PLAIN PLAIN_KEY < <(form '{"name":"Bench"}')
read -r DEAL DEAL_KEY < <(form '{"name":"Bench deal","createDeal":true,"notify":["a@bench.co","b@bench.co"]}')

run() { # NAME URL BODY [HEADER...]
  local name=$1 url=$2 body=$3
  shift 3
  local headers=()
  for h in "$@"; do headers+=(-H "$h"); done
  local before
  before=$(cpu_micros)
  "$LOAD" -X POST -c 64 -d "$SECONDS_EACH" --warmup 0 --threads 2 -H 'content-type: application/json' "${headers[@]}" \
    -b "$body" "$url" >"$WORK/run.txt"
  local summary rate requests
  summary=$(grep 'req/s=' "$WORK/run.txt")
  rate=$(field 'req/s' "$summary")
  requests=$(awk -v r="$rate" -v s="$SECONDS_EACH" 'BEGIN {printf "%.0f", r * s}')
  echo "$name $rate $summary  host CPU per request: $(micros_per "$before" "$(cpu_micros)" "$requests") µs"
}
declare -A RATES CPUS
for round in $(seq "$ROUNDS"); do
  for kind in $(alternate "$round" contacts form form_deal nested); do
    case $kind in
      contacts) line=$(run contacts "$API/api/contacts" "{\"email\":\"c$round-{n}@bench.co\",\"firstName\":\"Bench\",\"lastName\":\"User\",\"cityCode\":\"{city}\"}" "Authorization: Bearer $ORG_TOKEN") ;;
      form) line=$(run form "$API/api/v1/forms/submit/$PLAIN?key=$PLAIN_KEY" "{\"correo\":\"f$round-{n}@bench.co\",\"nombre\":\"Bench User\",\"cityCode\":\"{city}\",\"utm_source\":\"bench\"}") ;;
      nested) line=$(run nested "$API/api/contacts-client/upsert" "{\"email\":\"n$round-{n}@bench.co\",\"firstName\":\"Bench\",\"lastName\":\"User\",\"cityCode\":\"{city}\"}" "Authorization: Bearer $ORG_TOKEN") ;;
      form_deal) line=$(run form_deal "$API/api/v1/forms/submit/$DEAL?key=$DEAL_KEY" "{\"correo\":\"d$round-{n}@bench.co\",\"nombre\":\"Bench User\",\"cityCode\":\"{city}\",\"utm_source\":\"bench\"}") ;;
    esac
    echo "round $round: $line"
    RATES[$kind]+="$(awk '{print $2}' <<<"$line") "
    CPUS[$kind]+="$(sed -n 's/.*host CPU per request: \([0-9]*\) µs.*/\1/p' <<<"$line") "
  done
done
c=$(median "${RATES[contacts]}"); f=$(median "${RATES[form]}"); d=$(median "${RATES[form_deal]}"); n=$(median "${RATES[nested]}")
echo "median req/s: POST /api/contacts $c | public submit $f | public submit with deal and 2 notifications $d | nested upsert only $n"
awk -v c="$c" -v f="$f" -v d="$d" 'BEGIN { printf "contacts / form = %.2f   contacts / form with deal = %.2f   (goal: within 1.3)\n", c / f, c / d }'
# What a request costs the host's CPU, apart from the time the host sat idle
# waiting on its flushes (which throughput counts too).
cc=$(median "${CPUS[contacts]}"); cf=$(median "${CPUS[form]}"); cn=$(median "${CPUS[nested]}")
awk -v c="$cc" -v f="$cf" -v n="$cn" 'BEGIN { printf "median host CPU per request: contacts %d µs | public submit %d µs (%.2f×) | nested upsert only %d µs (%.2f×)\n", c, f, f / c, n, n / c }'
