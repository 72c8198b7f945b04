#!/usr/bin/env bash
# The embedded engines side by side with PostgreSQL 15, in one run, over N
# contacts of one organization (default 200,000): what the store costs an
# operator. For each engine (fjall, then sled) a fresh release host is seeded
# through the admin bulk path, then measured:
#   create   durable creates in another organization, 64 connections (req/s, p99)
#   page     the newest page of 100, one client (median ms)
#   rare     search=user4242, one client (median ms)
#   disk     the data dir (MB); rss the host's resident memory after the reads
#   backup   `crm-host store backup` of the running host (s), and the p99 of
#            pages read by 4 clients during a second one against the same
#            load without it (fjall only: sled takes no online backup)
#   restart  kill -9, then the next start until /readyz answers (s)
# and PostgreSQL, the same N rows with the indexes a good schema has
# (scripts/bench-lib.sh, postgres_contacts): the database's size, and its
# create rate at 64 connections (pgbench, synchronous_commit on).
#
# Usage: scripts/bench-engines.sh [N] [seconds, default 5]
# (ENGINES=fjall for the default engine alone: sled at 1,000,000 takes long)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200000}
SECS=${2:-5}
PORT=${PORT:-18780}
PGPORT=${PGPORT:-18790}
. scripts/bench-lib.sh
API=http://127.0.0.1:$PORT/api


start_postgres "$PGPORT" max_connections=200 shared_buffers=256MB synchronous_commit=on
postgres_contacts "$N"
pg_mb=$("${PSQL[@]}" -tA -c "SELECT pg_total_relation_size('contacts') / 1048576")
read -r pg_rate _ pg_p99 < <(pg_measure "$WORK/create.sql" 64)
echo "PostgreSQL: contacts table and indexes ${pg_mb} MB; creates ${pg_rate}/s p99 ${pg_p99} ms"

for engine in ${ENGINES:-fjall sled}; do
  start_host "$HOST" CRM_STORE_ENGINE=$engine
  read_and_write_orgs "$N"
  read -r rate _ p99 < <(load_figures -c 64 -d "$SECS" -X POST -H "Authorization: Bearer $WRITE_TOKEN" \
    -H "content-type: application/json" -b '{"email":"new{n}@w.co","firstName":"N","cityCode":"{city}"}' "$API/contacts")
  read -r _ page _ < <(load_figures -c 1 -d 3 --warmup 0.5 -H "Authorization: Bearer $READ_TOKEN" "$API/contacts?limit=100")
  read -r _ rare _ < <(load_figures -c 1 -d 3 --warmup 0.5 -H "Authorization: Bearer $READ_TOKEN" "$API/contacts?limit=100&search=user4242")
  rss=$(($(awk '/VmRSS/ {print $2}' "/proc/$PID/status") / 1024))
  disk=$(du -sm "$WORK/data" | cut -f1)
  backup="-"
  if [ "$engine" = fjall ]; then
    # Once alone, for its time; then again under the load, which lasts as long.
    started=$(date +%s.%N)
    "$HOST" store backup --url "http://127.0.0.1:$((PORT + 1))" --to "$WORK/backup" >/dev/null
    took=$(seconds_since "$started")
    span=$(awk -v t="$took" 'BEGIN {printf "%.1f", t < 2 ? 2 : t}')
    read -r _ _ quiet_p99 < <(load_figures -c 4 -d "$span" -H "Authorization: Bearer $READ_TOKEN" "$API/contacts?limit=100")
    rm -rf "$WORK/backup"
    load_figures -c 4 -d "$span" -H "Authorization: Bearer $READ_TOKEN" "$API/contacts?limit=100" >"$WORK/during.txt" &
    loading=$!
    sleep 0.2
    "$HOST" store backup --url "http://127.0.0.1:$((PORT + 1))" --to "$WORK/backup" >/dev/null
    wait $loading
    read -r _ _ busy_p99 <"$WORK/during.txt"
    backup="${took}s (p99 ${busy_p99} ms, without ${quiet_p99} ms; $(du -sm "$WORK/backup" | cut -f1) MB)"
  fi
  kill -9 "$PID"
  wait "$PID" 2>/dev/null || true
  restarted=$(date +%s.%N)
  restart_host "$HOST"
  ready=$(seconds_since "$restarted")
  stop_host
  echo "$engine, $N contacts: create ${rate}/s p99 ${p99} ms ($(awk -v a="$rate" -v b="$pg_rate" 'BEGIN {printf "%.2f", a / b}')x PostgreSQL's); page ${page} ms; search rare ${rare} ms; disk ${disk} MB ($(awk -v a="$disk" -v b="$pg_mb" 'BEGIN {printf "%.1f", a / b}')x PostgreSQL's table); RSS ${rss} MB; backup ${backup}; restart after kill -9 ${ready} s"
done
