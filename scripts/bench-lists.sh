#!/usr/bin/env bash
# Every list filter over one large organization, against a release host:
# seeds N contacts (default 100,000) through the admin bulk path (the same
# rows as tests/it/large_org.rs), then times each query (median of 3, with
# curl) and reads the contacts component's peak linear memory from the host's
# debug log. Then the same for company lists over N/5 companies, created
# through the API. Usage: scripts/bench-lists.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
PORT=${PORT:-18780}
. scripts/bench-lib.sh
DATA=$WORK
start_host "$HOST" RUST_LOG=crm_runtime=debug,info
new_org Big unlimited
TOKEN=$ORG_TOKEN
seed_contacts "$ORG" "$N"
echo "disk: $(du -sh "$DATA/data" | cut -f1)  host RSS: $(($(awk '/VmRSS/ {print $2}' /proc/$PID/status) / 1024)) MB"

# The median time and the total of GET /api/<list>?<query>, three times.
time_list() {
  local list=$1 q=$2 times=()
  for _ in 1 2 3; do
    times+=("$(curl -fs -o "$DATA/body.json" -w '%{time_total}' -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/$list?limit=100&$q")")
  done
  total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pagination"]["total"])' "$DATA/body.json")
  median=$(median "${times[*]}")
}

printf '%-50s %10s %12s %14s\n' query total "median ms" "peak memory"
for q in "" "plan=gold" "plan=gold&matchMode=exact" "createdFrom=2020-01-01" "missing=companyId" "exists=plan" \
  "search=bench" "search=user4242" "cityCode=05001" "cityCode=05001&cityCode=11001" "stateCode=05" \
  "stateCode=05&cityCode=11001" "cityCode=05001&plan=gold" "city=medellin" "city=bogota&plan=gold" \
  "sortBy=updatedAt&plan=silver" "page=1000&limit=100"; do
  : >"$DATA/err.txt"
  time_list contacts "$q"
  peak=$(grep -ao 'peak_memory=[0-9]*' "$DATA/err.txt" | cut -d= -f2 | sort -n | tail -1 || true)
  printf '%-50s %10s %12.1f %11.1f MiB\n' "${q:-(none)}" "$total" "$(awk -v t="$median" 'BEGIN {print t * 1000}')" "$(awk -v p="${peak:-0}" 'BEGIN {print p / 1048576}')"
done

COMPANIES=$((N / 5))
target/release/crm-load -X POST -c 32 -d 600 --warmup 0 --requests "$COMPANIES" -H 'content-type: application/json' \
  -H "Authorization: Bearer $TOKEN" -b '{"name":"Company {n}","cityCode":"05001"}' \
  "http://127.0.0.1:$PORT/api/companies" >/dev/null
printf '\n%-50s %10s %12s\n' "companies query" total "median ms"
for q in "" "page=100" "search=company%201234" "search=zzzz"; do
  time_list companies "$q"
  printf '%-50s %10s %12.1f\n' "${q:-(none)}" "$total" "$(awk -v t="$median" 'BEGIN {print t * 1000}')"
done
