#!/usr/bin/env bash
# The rare-term search (`search=user4242`, its first page of 100 and its
# total) beside PostgreSQL 15, steadily: N contacts in one organization
# (default 100,000), ROUNDS alternated rounds (default 9) of SECS seconds
# (default 5), one client, in two states of our search index's fold:
#   idle     no write for 2 s before and during: the log is folded
#   running  WRITE_RATE creates a second (default 1,000, 8 connections) into
#            the searched organization the whole time: the fold (every
#            200 ms) folds them while the search reads the lists and the log
# PostgreSQL gets the same writes at the same rate (pgbench -R) into its
# searched organization. Per state: each round's p50 on both sides, then
# the median and range of the rounds and the ratio ours/theirs (above 1
# means we are slower), and whether our slowest round beats their fastest.
# PostgreSQL is held to its best plan for the search, the bitmap scan of
# its trigram index (with plain index scans off: left free, its planner
# took the creation-order index and filtered every row, 48 ms, until an
# autovacuum's statistics turned it back); the plan and its buffer counts
# are printed, and checked, before the first round and after the last.
# While writes run, its trigram index takes them into the GIN pending list
# (fastupdate, the default), which every search reads until a vacuum or a
# full list merges it: PostgreSQL's own fold.
#
# The same schema, data and search as scripts/bench-peer.sh (bench-lib.sh).
# Needs Debian's postgresql package (PostgreSQL 15) and root.
#
# Usage: scripts/bench-search.sh [N] [ROUNDS] [SECS]   (WRITE_RATE=... to change the writes)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
ROUNDS=${2:-9}
SECS=${3:-5}
WRITE_RATE=${WRITE_RATE:-1000}
PORT=${PORT:-18880}
PGPORT=${PGPORT:-18890}
. scripts/bench-lib.sh

start_postgres "$PGPORT" max_connections=200 shared_buffers=256MB synchronous_commit=on
postgres_contacts "$N"
"${PSQL[@]}" -c "ALTER DATABASE postgres SET enable_indexscan = off"
SEARCH="FROM contacts WHERE org = 'r' AND search LIKE '%user4242%'"
printf "SELECT id, email, first_name, last_name, city_code, state_code, props, created_at %s ORDER BY created_at DESC, id DESC LIMIT 100;\nSELECT count(*) %s;\n" \
  "$SEARCH" "$SEARCH" >"$WORK/rare.sql"
# The writes into the searched organization, as $WORK/create.sql's into 'w'.
sed "s/VALUES ('w', 'new'/VALUES ('r', 'new'/" "$WORK/create.sql" >"$WORK/write.sql"

start_host "$HOST"
new_org Read unlimited
READ_TOKEN=$ORG_TOKEN
seed_contacts "$ORG" "$N"
URL="http://127.0.0.1:$PORT/api/contacts?limit=100&search=user4242"

total_ours() { curl -fs -H "Authorization: Bearer $READ_TOKEN" "$URL" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pagination"]["total"])'; }
total_theirs() { "${PSQL[@]}" -tA -c "SELECT count(*) $SEARCH"; }
same_totals() {
  local ours theirs
  ours=$(total_ours) theirs=$(total_theirs)
  [ "$ours" = "$theirs" ] || { echo "the totals differ ($ours against $theirs): the sides do not do the same work" >&2; exit 1; }
}
plan() {
  echo "PostgreSQL's plan, $1:"
  "${PSQL[@]}" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) SELECT id $SEARCH ORDER BY created_at DESC, id DESC LIMIT 100" |
    tee "$WORK/plan.txt" | sed 's/^/  /'
  grep -q 'Bitmap Index Scan on contacts_search' "$WORK/plan.txt" || { echo "PostgreSQL does not use its trigram index" >&2; exit 1; }
}

# One side's search for SECS seconds in STATE (idle or running): its "rate p50 p99".
ours() {
  local writer=
  if [ "$1" = running ]; then
    "$LOAD" -c 8 --rate "$WRITE_RATE" --warmup 0 -d $((SECS + 2)) -X POST -H "Authorization: Bearer $READ_TOKEN" \
      -H "content-type: application/json" -b '{"email":"w{n}r'"$round"'@w.co","firstName":"N","cityCode":"{city}"}' \
      "http://127.0.0.1:$PORT/api/contacts" >"$WORK/writer.txt" &
    writer=$!
    sleep 1
  else
    sleep 2
  fi
  load_figures -c 1 --warmup 0.5 -d "$SECS" -H "Authorization: Bearer $READ_TOKEN" "$URL"
  if [ -n "$writer" ]; then
    wait "$writer"
    grep -q ' errors=0$' "$WORK/writer.txt" || { echo "our writes failed: $(cat "$WORK/writer.txt")" >&2; exit 1; }
    field 'req/s' "$(grep '^req/s=' "$WORK/writer.txt")" >>"$WORK/writes.ours"
  fi
}
theirs() {
  local writer=
  if [ "$1" = running ]; then
    "$PGBIN/pgbench" -h 127.0.0.1 -p "$PGPORT" -U postgres -n -c 8 -j 2 -R "$WRITE_RATE" -T $((SECS + 2)) \
      -f "$WORK/write.sql" postgres >"$WORK/pgwriter.txt" 2>&1 &
    writer=$!
    sleep 1
  else
    sleep 2
  fi
  pg_measure "$WORK/rare.sql" 1
  if [ -n "$writer" ]; then
    wait "$writer" || { echo "PostgreSQL's writes failed: $(cat "$WORK/pgwriter.txt")" >&2; exit 1; }
    sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$WORK/pgwriter.txt" >>"$WORK/writes.theirs"
  fi
}

same_totals
plan "before the first round"
# One unmeasured round of each, so both sides start warm.
round=0
ours idle >/dev/null
theirs idle >/dev/null
declare -A FIG
for round in $(seq "$ROUNDS"); do
  for state in idle running; do
    for side in $(alternate "$round" ours theirs); do
      FIG[$side,$state]+="$($side "$state");"
    done
  done
  same_totals
  echo "round $round done"
done
plan "after the last round"

echo
echo "rare-term search, $N contacts, $ROUNDS rounds of $SECS s; writes while running: $WRITE_RATE/s asked," \
  "ours made $(median "$(tr '\n' ' ' <"$WORK/writes.ours")")/s, PostgreSQL $(median "$(tr '\n' ' ' <"$WORK/writes.theirs")")/s (medians)"
for state in idle running; do
  ours=$(figures_column 2 "${FIG[ours,$state]}") theirs=$(figures_column 2 "${FIG[theirs,$state]}")
  printf '%s\n  ours p50 a round        %s\n  PostgreSQL p50 a round  %s\n' "$state" "$ours" "$theirs"
  awk -v o="$(spread "$ours")" -v t="$(spread "$theirs")" -v om="$(median "$ours")" -v tm="$(median "$theirs")" \
    'BEGIN {printf "  ms, median (range)      ours %s, PostgreSQL %s; ours/theirs %.2f\n", o, t, om / tm}'
  tr ' ' '\n' <<<"$ours" | sort -g | tail -1 >"$WORK/slowest"
  tr ' ' '\n' <<<"$theirs" | sort -g | sed '/^$/d' | head -1 >"$WORK/fastest"
  awk -v s="$(cat "$WORK/slowest")" -v f="$(cat "$WORK/fastest")" \
    'BEGIN {printf "  our slowest round %s ms against their fastest %s ms: %s\n", s, f, (s <= f ? "below in every round" : "the rounds overlap")}'
done
