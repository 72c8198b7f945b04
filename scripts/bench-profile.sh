#!/usr/bin/env bash
# Where a release host's time goes at N contacts (default 1,000,000, seeded
# through the admin bulk path): `perf record -g` of the host while one client
# searches a term every contact holds (`search=bench`, 8 s), then while 64
# connections create contacts (6 s). Prints crm-load's line for each and the
# share of the samples by part (the store engine, wasmtime, the kernel...).
# Needs `perf`. Usage: scripts/bench-profile.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000000}
PORT=${PORT:-18820}
. scripts/bench-lib.sh
API=http://127.0.0.1:$PORT/api

# `record NAME SECONDS crm-load-args...`: the load, with perf on the host meanwhile.
record() {
  local name=$1 secs=$2
  shift 2
  perf record -F 999 -g -p "$PID" -o "$WORK/$name.data" -- sleep "$secs" >/dev/null 2>&1 &
  local perf=$!
  echo "$name: $("$LOAD" -d "$secs" "$@" | grep 'req/s=')"
  wait "$perf" || true
  perf report -i "$WORK/$name.data" --no-children --sort symbol --stdio -g none 2>/dev/null | grep '%' |
    awk '{p = $1; sub("%", "", p); $1 = ""; s = $0; k = "other (the component'"'"'s compiled code among it)"
      if (s ~ /lsm_tree|fjall|crossbeam|quick_cache|byteview|interval_heap|lz4|sled/) k = "store engine"
      else if (s ~ /wasmtime|cranelift/) k = "wasmtime"
      else if (s ~ /\[k\]/) k = "kernel"
      else if (s ~ /mi_/) k = "allocator"
      else if (s ~ /memcmp|memmove|memset|memcpy/) k = "memcmp, memmove, memset"
      else if (s ~ /hyper|warp|tokio|h2::|http::/) k = "HTTP and tokio"
      else if (s ~ /crm_/) k = "crm crates"
      t[k] += p}
      END {for (k in t) printf "  %5.1f%%  %s\n", t[k], k}' | sort -rn
}

start_host "$HOST"
read_and_write_orgs "$N"
"$LOAD" -c 1 -d 3 -H "Authorization: Bearer $READ_TOKEN" "$API/contacts?limit=100&search=bench" >/dev/null
record search 8 -c 1 -H "Authorization: Bearer $READ_TOKEN" "$API/contacts?limit=100&search=bench"
record create 6 -c 64 -X POST -H "Authorization: Bearer $WRITE_TOKEN" -H "content-type: application/json" \
  -b '{"email":"p{n}@w.co","firstName":"N","cityCode":"{city}"}' "$API/contacts"
