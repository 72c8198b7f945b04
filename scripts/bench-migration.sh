#!/usr/bin/env bash
# A sled data dir moved to fjall at start while the host serves it
# (host/store/src/migrate.rs), over N contacts of one organization (default
# 200,000): a release host on sled is seeded through the admin bulk path and
# stopped; the next start, on the default engine, moves the store. Prints:
#   the pages read by 4 clients (newest 100, with the total) on sled before,
#   during the move, and on fjall after: req/s, p50 and p99 (ms);
#   how long the move took (start to sled's folder gone);
#   the data dir's size before and after (MB).
# Usage: scripts/bench-migration.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200000}
PORT=${PORT:-18800}
. scripts/bench-lib.sh
API=http://127.0.0.1:$PORT/api

pages() { load_figures -c 4 -d "$1" -H "Authorization: Bearer $READ_TOKEN" "$API/contacts?limit=100"; }

start_host "$HOST" CRM_STORE_ENGINE=sled
read_and_write_orgs "$N"
echo "on sled:          $(pages 3)  (req/s p50 p99)"
before_mb=$(du -sm "$WORK/data" | cut -f1)
stop_host

started=$(date +%s.%N)
restart_host "$HOST"
ready=$(seconds_since "$started")
pages 3 >"$WORK/during.txt" &
reading=$!
while [ -d "$WORK/data/store" ]; do sleep 0.1; done
moved=$(seconds_since "$started")
wait "$reading"
echo "during the move:  $(cat "$WORK/during.txt")  (its first 3 s)"
echo "on fjall after:   $(pages 3)"
echo "ready ${ready} s after the start; sled's folder gone after ${moved} s"
echo "data dir: ${before_mb} MB on sled, $(du -sm "$WORK/data" | cut -f1) MB on fjall"
