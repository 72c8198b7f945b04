#!/usr/bin/env bash
# Our host beside PostgreSQL 15 on the same logical work, in one run, in turns
# (ours, theirs, ours, theirs...), over N contacts of one organization
# (default 100,000; `scripts/bench-peer.sh 1000000` for a million):
#   create  durable create of a new contact with a city, 64 connections (req/s, p99)
#   page    the newest page of 100, with the total
#   city    one city's newest page of 100, with the total
#   rare    search for a rare term (user4242), first page and total
#   common  search for a term every contact matches (bench), first page and total
# Reads run one client at a time and report the median latency; each figure
# is printed, then per workload the median of the rounds and the ratio
# ours/theirs (for latency, above 1 means we are slower; for create's rate,
# below 1 means we are slower).
#
# PostgreSQL does it the way a good schema would: unique (org, email), an
# index on (org, created_at) and on (org, city_code, created_at), a pg_trgm
# GIN index on the lowercased searched text, synchronous_commit on, driven
# over its own protocol by pgbench. It runs from a throw-away initdb as the
# `postgres` user on a free loopback port. Needs Debian's postgresql package
# (PostgreSQL 15) and root.
#
# Usage: scripts/bench-peer.sh [N] [rounds, default 3] [seconds, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
ROUNDS=${2:-3}
SECS=${3:-5}
PORT=${PORT:-18880}
PGPORT=${PGPORT:-18890}
. scripts/bench-lib.sh

# ---- PostgreSQL: a cluster, the schema, N rows like ours
start_postgres "$PGPORT" max_connections=200 shared_buffers=256MB synchronous_commit=on
postgres_contacts "$N"

page_sql() { # WHERE clause -> the page and its total, as our API answers them
  printf "SELECT id, email, first_name, last_name, city_code, state_code, props, created_at FROM contacts WHERE org = 'r'%s ORDER BY created_at DESC, id DESC LIMIT 100;\nSELECT count(*) FROM contacts WHERE org = 'r'%s;\n" "$1" "$1"
}
page_sql "" >"$WORK/page.sql"
page_sql " AND city_code = '05001'" >"$WORK/city.sql"
page_sql " AND search LIKE '%user4242%'" >"$WORK/rare.sql"
page_sql " AND search LIKE '%bench%'" >"$WORK/common.sql"

# ---- ours: the same N contacts through the admin bulk path, one host for the run
start_host "$HOST"
read_and_write_orgs "$N"

declare -A QUERY=([page]="" [city]="cityCode=05001" [rare]="search=user4242" [common]="search=bench")
# crm-load against our host; prints "rate p50_ms p99_ms".
our_measure() { load_figures -d "$SECS" "$@"; }

# Both sides answer each query with the same total.
for w in page city rare common; do
  ours=$(curl -fs -H "Authorization: Bearer $READ_TOKEN" "http://127.0.0.1:$PORT/api/contacts?limit=100&${QUERY[$w]}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["pagination"]["total"])')
  theirs=$("${PSQL[@]}" -tA -c "$(tail -1 "$WORK/$w.sql")")
  echo "$w: total ours=$ours theirs=$theirs"
  [ "$ours" = "$theirs" ] || { echo "the totals differ: the two sides do not do the same work" >&2; exit 1; }
done

# Where a create's time goes, from the host's own metrics around one round:
# store calls per create by kind, group-commit flushes, the component's time.
profile() {
  python3 - "$SECS" "$1" "$2" <<'EOF' # seconds: the measured ones and the warm-up second
import re, sys
secs, before, after = float(sys.argv[1]) + 1, open(sys.argv[2]).read(), open(sys.argv[3]).read()
def read(text):
    out = {}
    for line in text.splitlines():
        m = re.match(r'^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$', line)
        if m:
            out[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return out
b, a = read(before), read(after)
d = lambda k: a.get(k, 0) - b.get(k, 0)
creates = sum(d(k) for k in a if k.startswith("crm_http_requests_total") and 'route="/api/contacts"' in k and 'status="201"' in k)
ops = {re.search(r'op="([^"]+)"', k).group(1): d(k) for k in a if k.startswith("crm_store_operations_total")}
flushes = d("crm_store_flush_seconds_count")
comp = [k for k in a if k.startswith("crm_component_call_seconds_sum") and 'component="contacts"' in k]
comp_s = sum(d(k) for k in comp)
calls = sum(d(k.replace("_sum", "_count")) for k in comp)
http_s = sum(d(k) for k in a if k.startswith("crm_http_request_seconds_sum") and 'route="/api/contacts"' in k)
print(f"  profile: {creates:.0f} creates; store calls per create: "
      + ", ".join(f"{op} {n / creates:.1f}" for op, n in sorted(ops.items()) if n)
      + f"; {flushes / secs:.0f} flushes/s, {d('crm_store_flush_batch_size_sum') / max(flushes, 1):.1f} writes a flush, "
      + f"{1000 * d('crm_store_flush_seconds_sum') / max(flushes, 1):.2f} ms a flush; "
      + f"in the component {1e6 * comp_s / max(calls, 1):.0f} us a call, in the host {1e3 * http_s / max(creates, 1):.2f} ms a request")
EOF
}

METRICS=http://127.0.0.1:$((PORT + 1))/metrics
declare -A FIG
for round in $(seq "$ROUNDS"); do
  for w in page city rare common; do
    FIG[ours,$w]+="$(our_measure -c 1 --warmup 0.5 -H "Authorization: Bearer $READ_TOKEN" "http://127.0.0.1:$PORT/api/contacts?limit=100&${QUERY[$w]}");"
    FIG[theirs,$w]+="$(pg_measure "$WORK/$w.sql" 1);"
  done
  curl -fs "$METRICS" >"$WORK/metrics.before"
  FIG[ours,create]+="$(our_measure -c 64 -X POST -H "Authorization: Bearer $WRITE_TOKEN" -H "content-type: application/json" \
    -b "{\"email\":\"r${round}n{n}@w.co\",\"firstName\":\"N\",\"cityCode\":\"{city}\"}" "http://127.0.0.1:$PORT/api/contacts");"
  curl -fs "$METRICS" >"$WORK/metrics.after"
  profile "$WORK/metrics.before" "$WORK/metrics.after"
  FIG[theirs,create]+="$(pg_measure "$WORK/create.sql" 64);"
  echo "round $round done"
done

echo
for w in create page city rare common; do
  ours=${FIG[ours,$w]} theirs=${FIG[theirs,$w]}
  if [ "$w" = create ]; then
    ratio=$(awk -v o="$(median "$(figures_column 1 "$ours")")" -v t="$(median "$(figures_column 1 "$theirs")")" \
      -v p="$(median "$(figures_column 3 "$ours")")" 'BEGIN {printf "rate ours/theirs %.0f/%.0f = %.2f; p99 ours %.1f ms", o, t, o / t, p}')
  else
    ratio=$(awk -v o="$(median "$(figures_column 2 "$ours")")" -v t="$(median "$(figures_column 2 "$theirs")")" \
      'BEGIN {printf "p50 ours/theirs %.2f/%.2f ms = %.2f", o, t, o / t}')
  fi
  printf '%s\n  ours        %s\n  PostgreSQL  %s\n  median      %s\n' "$w" "$(show_figures "$ours")" "$(show_figures "$theirs")" "$ratio"
done
