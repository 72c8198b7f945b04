# Shared by the bench scripts (sourced, not run): one throw-away host at a
# time on $PORT (admin on $PORT+1) with its data in $WORK/data.
#   start_host BIN [NAME=VALUE...]  starts BIN on a fresh data dir with that
#                                   environment; sets PID and TOKEN (the demo token)
#   restart_host BIN [NAME=VALUE...]
#                                   starts BIN on the data dir as the last host left it
#   stop_host                       stops it
#   seconds_since START [DECIMALS]  the seconds since START (a `date +%s.%N`), to DECIMALS
#                                   places (default 2)
#   new_org NAME [PLAN]             creates an organization; sets ORG and ORG_TOKEN (a `*` token)
#   read_and_write_orgs N           two unlimited organizations: Read, seeded with N contacts
#                                   (READ_ORG, READ_TOKEN), and Write, empty (WRITE_TOKEN)
#   seed_contacts ORG N             writes N contacts into ORG through the admin bulk path (the
#                                   rows of tests/it/large_org.rs); prints how long it took
#   post_rows URL HEADER            POSTs each $WORK/rows.*.json to URL with HEADER, then deletes it
#   start_postgres PGPORT [SETTING...]
#                                   a throw-away PostgreSQL (initdb, as the `postgres` user) on
#                                   127.0.0.1:PGPORT with `-c SETTING`s; sets PGBIN, PGDIR and
#                                   PSQL (an array); stopped and deleted at exit. Needs root and
#                                   Debian's postgresql package (scripts/install-postgresql.sh)
#   postgres_contacts N             in the PostgreSQL started: the contacts table a good schema
#                                   has (unique email per organization, creation and city orders, a
#                                   trigram index for search), N rows like seed_contacts' in
#                                   organization 'r', and $WORK/create.sql (pgbench: one new contact
#                                   with a city in organization 'w')
#   pg_measure SCRIPT CLIENTS       pgbench over SCRIPT for $SECS seconds; prints "rate p50_ms p99_ms"
#   median "N N ..."                the median of space-separated numbers (the mean of the
#                                   middle two when even)
#   spread "N N ..."                "median (min–max)"
#   cpu_micros [PID...]             the CPU (user + kernel) these processes have used, in µs
#                                   (default: the host, $PID)
#   micros_per BEFORE AFTER N       the CPU between two cpu_micros readings, in µs per one of N
#   acknowledged_creates            the POST /api/contacts the host has answered 201 so far
#                                   (its own metrics)
#   figures_column N "FIGURES"      the Nth number (from 1) of each ;-separated figure of a
#                                   round ("req/s p50 p99;req/s p50 p99;..."), for median
#   show_figures "FIGURES"          those figures as "R/s p50 P p99 Q | ..."
#   load_figures ARG...             crm-load with ARGs; prints "req/s p50_ms p99_ms", one figure
#                                   as figures_column reads them
#   as_figures                      the same figure, of crm-load's output on stdin
#   contact_creates SECONDS TAG URL crm-load's output for SECONDS of creates into URL at 64
#                                   connections with $WRITE_TOKEN, each a new contact with a
#                                   city (its email tagged TAG)
#   alternate ROUND ITEM...         the ITEMs in the order round ROUND (from 1) runs them: as
#                                   given in odd rounds, reversed in even ones, so each of what a
#                                   round compares goes first in half the rounds
# median, spread, cpu_micros, micros_per and alternate are `crm-stats`
# (bench/src/bin/crm-stats.rs): every script's statistics are that one routine.
# Sourced from the checkout's root once the script has read its arguments:
# builds the release host (its Wasm components too, contacts_client.wasm
# included) and the load generator, and sets
#   HOST  the host binary (HOST=other/crm-host measures another build)
#   LOAD  the load generator
#   STATS crm-stats, the statistics below
#   WORK  a throw-away folder, deleted at exit
# Needs PORT set; uses CRM_ADMIN_TOKEN (set here to bench-admin).
cargo build --release -q -p crm-host -p crm-load
HOST=${HOST:-target/release/crm-host}
LOAD=target/release/crm-load
STATS=target/release/crm-stats
WORK=$(mktemp -d)
export CRM_ADMIN_TOKEN=${CRM_ADMIN_TOKEN:-bench-admin}
PID=
PGDIR=
cleanup() {
  kill $PID 2>/dev/null || true
  wait $PID 2>/dev/null || true
  if [ -n "$PGDIR" ]; then
    runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$PGDIR"
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# One figure of a crm-load summary line: `field p50 "$line"` prints the
# number after `p50=` (`req/s`, `p50`, `p99`...).
field() { sed -n "s|.*$1=\([0-9.]*\).*|\1|p" <<<"$2"; }

seconds_since() { awk -v a="$1" -v b="$(date +%s.%N)" -v d="${2:-2}" 'BEGIN {printf "%." d "f", b - a}'; }

# shellcheck disable=SC2086 # the numbers are split on purpose
median() { "$STATS" median $1; }
# shellcheck disable=SC2086
spread() { "$STATS" spread $1; }

cpu_micros() { "$STATS" cpu "${@:-$PID}"; }

micros_per() { "$STATS" per "$1" "$2" "$3"; }

# The contact creates the host has acknowledged so far (its own 201 count).
acknowledged_creates() {
  curl -fs "http://127.0.0.1:$((PORT + 1))/metrics" | awk '/^crm_http_requests_total/ && /route="\/api\/contacts"/ && /method="POST"/ && /status="201"/ {s += $NF}
    END {printf "%d\n", s}'
}

alternate() { "$STATS" order "$@"; }

load_figures() { "$LOAD" "$@" | as_figures; }

as_figures() { awk '/^req\/s=/ {gsub(/[a-z0-9\/]+=|ms/, ""); print $1, $2, $4}'; }

contact_creates() {
  "$LOAD" -d "$1" -c 64 -X POST -H "Authorization: Bearer $WRITE_TOKEN" -H "content-type: application/json" \
    -b "{\"email\":\"$2n{n}@w.co\",\"firstName\":\"N\",\"cityCode\":\"{city}\"}" "$3"
}

figures_column() { tr ';' '\n' <<<"$2" | awk -v n="$1" 'NF {printf "%s ", $n}'; }

show_figures() { tr ';' '\n' <<<"$1" | awk 'NF {printf "%s%.0f/s p50 %.2f p99 %.2f", (i++ ? " | " : ""), $1, $2, $3}'; }

start_postgres() {
  local port=$1 options
  shift
  PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}
  [ -x "$PGBIN/initdb" ] || { echo "PostgreSQL is missing: scripts/install-postgresql.sh" >&2; exit 1; }
  PGDIR=$(mktemp -d /tmp/bench-pg.XXXXXX)
  chmod 755 "$PGDIR"
  chown postgres "$PGDIR"
  runuser -u postgres -- "$PGBIN/initdb" -D "$PGDIR/data" -A trust -U postgres >/dev/null
  options="-p $port -k $PGDIR -c listen_addresses=127.0.0.1"
  for setting in "$@"; do options+=" -c $setting"; done
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w start -o "$options" >/dev/null
  PSQL=("$PGBIN/psql" -q -X -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres)
}

start_host() {
  rm -rf "$WORK/data"
  : >"$WORK/out.txt"
  restart_host "$@"
  TOKEN=$(grep -o 'crm_[0-9a-f_]*' "$WORK/out.txt" | head -1)
}

restart_host() {
  local bin=$1
  shift
  env "$@" "$bin" serve --listen 127.0.0.1:$PORT --admin-listen 127.0.0.1:$((PORT + 1)) --data-dir "$WORK/data" \
    --tracking-refresh-ms 0 >>"$WORK/out.txt" 2>>"$WORK/err.txt" &
  PID=$!
  # Polled every 10 ms: bench-growth.sh and bench-contacts.sh time restarts with it.
  for _ in $(seq 6000); do
    curl -fs -o /dev/null "http://127.0.0.1:$PORT/readyz" 2>/dev/null && return
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.01
  done
  echo "the host did not become ready; the end of its log:" >&2
  tail -20 "$WORK/err.txt" >&2
  exit 1
}

stop_host() {
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
}

new_org() {
  local admin="http://127.0.0.1:$((PORT + 1))" auth="Authorization: Bearer $CRM_ADMIN_TOKEN" json="content-type: application/json"
  ORG=$(curl -fs -H "$auth" -H "$json" "$admin/admin/orgs" -d "{\"name\":\"$1\",\"plan\":\"${2:-pro}\"}" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  ORG_TOKEN=$(curl -fs -H "$auth" -H "$json" "$admin/admin/orgs/$ORG/tokens" -d '{"name":"bench","permissions":["*"]}' \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
}

read_and_write_orgs() {
  new_org Read unlimited
  READ_ORG=$ORG
  READ_TOKEN=$ORG_TOKEN
  new_org Write unlimited
  WRITE_TOKEN=$ORG_TOKEN
  seed_contacts "$READ_ORG" "$1"
}

# POSTs each $WORK/rows.*.json, in order, to URL $1 with the header $2
# (the credentials), and deletes it.
post_rows() {
  local f
  for f in "$WORK"/rows.*.json; do
    curl -fs -o /dev/null -H "$2" -H "content-type: application/json" "$1" --data-binary @"$f"
    rm "$f"
  done
}

seed_contacts() {
  local org=$1 n=$2 started
  started=$(date +%s.%N)
  python3 - "$n" "$WORK/rows" <<'EOF'
import json, sys
n, out = int(sys.argv[1]), sys.argv[2]
cities = ["05001", "05088", "11001", "76001", "08001", None]
plans = {0: "gold", 1: "Gold", 2: "silver"}
chunk = 5000
for start in range(0, n, chunk):
    rows = []
    for i in range(start, min(n, start + chunk)):
        row = {"email": f"bulk{i}@bench.co", "firstName": f"user{i}"}
        if cities[i % 6]:
            row["cityCode"] = cities[i % 6]
        if i % 10 in plans:
            row["plan"] = plans[i % 10]
        rows.append(row)
    with open(f"{out}.{start // chunk:05d}.json", "w") as f:
        json.dump({"rows": rows}, f)
EOF
  post_rows "http://127.0.0.1:$((PORT + 1))/admin/orgs/$org/contacts/bulk" "Authorization: Bearer $CRM_ADMIN_TOKEN"
  echo "seeded $n contacts through the bulk path in $(seconds_since "$started" 1) s"
}

postgres_contacts() {
  local N=$1 started
  started=$(date +%s.%N)
"${PSQL[@]}" <<SQL
CREATE EXTENSION pg_trgm;
CREATE TABLE contacts (
  id bigserial PRIMARY KEY,
  org text NOT NULL,
  email text NOT NULL,
  first_name text NOT NULL DEFAULT '',
  last_name text NOT NULL DEFAULT '',
  mobile text NOT NULL DEFAULT '',
  company text NOT NULL DEFAULT '',
  city_code text NOT NULL DEFAULT '',
  state_code text NOT NULL DEFAULT '',
  props jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  search text GENERATED ALWAYS AS (lower(first_name || ' ' || last_name || ' ' || email || ' ' || mobile || ' ' || company)) STORED,
  UNIQUE (org, email)
);
INSERT INTO contacts (org, email, first_name, city_code, state_code, props, created_at, updated_at)
SELECT 'r', 'bulk' || i || '@bench.co', 'user' || i,
       coalesce((ARRAY['05001', '05088', '11001', '76001', '08001', NULL])[i % 6 + 1], ''),
       coalesce((ARRAY['05', '05', '11', '76', '08', NULL])[i % 6 + 1], ''),
       CASE i % 10 WHEN 0 THEN '{"plan":"gold"}'::jsonb WHEN 1 THEN '{"plan":"Gold"}' WHEN 2 THEN '{"plan":"silver"}' ELSE '{}' END,
       now() - make_interval(secs => ($N - i) / 1000.0), now() - make_interval(secs => ($N - i) / 1000.0)
FROM generate_series(0, $N - 1) AS i;
CREATE INDEX contacts_created ON contacts (org, created_at DESC);
CREATE INDEX contacts_city ON contacts (org, city_code, created_at DESC);
CREATE INDEX contacts_search ON contacts USING gin (search gin_trgm_ops);
CREATE SEQUENCE new_email;
VACUUM ANALYZE contacts;
SQL
  echo "PostgreSQL: $N rows and indexes in $(seconds_since "$started" 1) s"
  cat >"$WORK/create.sql" <<'SQL'
\set c random(1, 5)
INSERT INTO contacts (org, email, first_name, city_code, state_code)
VALUES ('w', 'new' || nextval('new_email') || '@w.co', 'N', (ARRAY['05001', '08001', '11001', '13001', '76001'])[:c], (ARRAY['05', '08', '11', '13', '76'])[:c]);
SQL
}

pg_measure() {
  local script=$1 clients=$2
  rm -f "$WORK"/pglog*
  (cd "$WORK" && "$PGBIN/pgbench" -h 127.0.0.1 -p "$PGPORT" -U postgres -n -c "$clients" -j 2 -T "$SECS" \
    -f "$script" -l --log-prefix=pglog postgres >/dev/null 2>"$WORK/pgbench.err") || { cat "$WORK/pgbench.err" >&2; exit 1; }
  python3 - "$SECS" "$WORK"/pglog* <<'EOF'
import sys
secs, files = float(sys.argv[1]), sys.argv[2:]
lat = sorted(int(line.split()[2]) for f in files for line in open(f))
pick = lambda p: lat[min(len(lat) - 1, int(len(lat) * p))] / 1000
print(f"{len(lat) / secs:.0f} {pick(0.5):.2f} {pick(0.99):.2f}")
EOF
}
