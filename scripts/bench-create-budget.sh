#!/usr/bin/env bash
# The CPU a durable create costs, ours beside PostgreSQL's, in one run
# (issue 70's budget). Over N contacts of one organization (default
# 100,000, seeded through the admin bulk path; PostgreSQL gets the same rows
# and the indexes of bench-peer.sh):
#   - ROUNDS rounds (default 4), each side first in half of them, of SECONDS
#     (default 6) of creates at 64 connections: ours through crm-load, a
#     contact with a city; theirs through pgbench, the same row;
#   - per round and side: the rate, and the CPU per create: the host
#     process's CPU (user and system, every thread) over the round divided by
#     the creates it acknowledged (its own 201 count), and PostgreSQL's
#     (the postmaster and every backend and helper under it, the exited ones
#     included) divided by pgbench's inserts; the load generators are not in
#     either;
#   - per round, too, the CPU of fjall's worker thread (its flushes and
#     compactions) per create of ours, which a profile of one round
#     catches only when a flush falls in it;
#   - in each round too, the floor: `crm-floor` (bench/src/bin/crm-floor.rs),
#     an HTTP server that only appends each body to a file and answers 201
#     once a grouped fdatasync covers it, under the same load; its CPU per
#     request is what any durable create costs on this machine before it
#     does anything of a create;
#   - then one more round of ours under `perf record --call-graph dwarf`,
#     whose samples scripts/create-stages.py splits by stage of a create
#     (its header lists the stages and the rule), and the median CPU per
#     create shared out by that split.
# KEEP_PROFILE=FILE keeps the profile (perf.data) for another look.
# Needs perf, Debian's postgresql (PostgreSQL 15) and root.
#
# Usage: scripts/bench-create-budget.sh [N] [ROUNDS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
ROUNDS=${2:-4}
SECS=${3:-6}
PORT=${PORT:-18860}
PGPORT=${PGPORT:-18870}
. scripts/bench-lib.sh

start_postgres "$PGPORT" max_connections=200 shared_buffers=256MB synchronous_commit=on
postgres_contacts "$N"
POSTMASTER=$(head -1 "$PGDIR/data/postmaster.pid")
start_host "$HOST"
read_and_write_orgs "$N"

# The CPU of fjall's background worker (flushes and compactions), in µs.
worker_micros() { "$STATS" cpu-threads "$PID" fjall:worker; }

# `ours ROUND`: "rate p50 p99 µs-per-create worker-µs-per-create".
ours() {
  local n0 c0 w0 line n1 c1 w1
  n0=$(acknowledged_creates) c0=$(cpu_micros) w0=$(worker_micros)
  line=$(contact_creates "$SECS" "b$1" "http://127.0.0.1:$PORT/api/contacts" | as_figures)
  n1=$(acknowledged_creates) c1=$(cpu_micros) w1=$(worker_micros)
  echo "$line $(micros_per "$c0" "$c1" $((n1 - n0))) $(micros_per "$w0" "$w1" $((n1 - n0)))"
}

FLOOR_PORT=$((PORT + 5))
target/release/crm-floor "$FLOOR_PORT" "$WORK/floor.log" &
FLOOR=$!
trap 'kill $FLOOR 2>/dev/null || true; cleanup' EXIT

# `floor ROUND`: "rate p50 p99 µs-per-request".
floor() {
  local n0 c0 line n1 c1
  n0=$(wc -l <"$WORK/floor.log") c0=$(cpu_micros "$FLOOR")
  line=$(contact_creates "$SECS" "f$1" "http://127.0.0.1:$FLOOR_PORT/api/contacts" | as_figures)
  n1=$(wc -l <"$WORK/floor.log") c1=$(cpu_micros "$FLOOR")
  echo "$line $(micros_per "$c0" "$c1" $((n1 - n0)))"
}

# "rate p50 p99 µs-per-insert"; the backends pgbench ends are reaped, and
# so counted, before the second reading.
theirs() {
  local c0 line c1
  c0=$("$STATS" cpu-tree "$POSTMASTER")
  line=$(pg_measure "$WORK/create.sql" 64)
  sleep 0.5
  c1=$("$STATS" cpu-tree "$POSTMASTER")
  echo "$line $(micros_per "$c0" "$c1" "$(cat "$WORK"/pglog* | wc -l)")"
}

# The last of a side's ;-ended figures.
last_figure() { tr ';' '\n' <<<"$1" | grep . | tail -1; }

declare -A FIG
for round in $(seq "$ROUNDS"); do
  for side in $(alternate "$round" ours theirs floor); do
    FIG[$side]+="$($side "$round");"
  done
  echo "round $round: ours $(last_figure "${FIG[ours]}"), PostgreSQL $(last_figure "${FIG[theirs]}"), floor $(last_figure "${FIG[floor]}")"
done

show() { tr ';' '\n' <<<"$1" | awk 'NF {printf "%s%.0f/s %.0f µs", (i++ ? " | " : ""), $1, $4}'; }
OURS_US=$(median "$(figures_column 4 "${FIG[ours]}")")
THEIRS_US=$(median "$(figures_column 4 "${FIG[theirs]}")")
echo
echo "rate and CPU per create, by round"
echo "  ours        $(show "${FIG[ours]}")"
echo "  PostgreSQL  $(show "${FIG[theirs]}")"
echo "  floor       $(show "${FIG[floor]}")"
awk -v o="$(median "$(figures_column 1 "${FIG[ours]}")")" -v t="$(median "$(figures_column 1 "${FIG[theirs]}")")" \
  -v ou="$OURS_US" -v tu="$THEIRS_US" \
  'BEGIN {printf "  median      rate %.0f against %.0f/s (%.2fx); CPU %.0f against %.0f µs a create (%.2fx)\n", o, t, o / t, ou, tu, ou / tu}'
echo "  the floor   $(median "$(figures_column 4 "${FIG[floor]}")") µs a request at $(median "$(figures_column 1 "${FIG[floor]}")")/s (HTTP and a grouped fdatasync, nothing else)"
echo "  fjall's worker, by its thread's CPU in each round: $(figures_column 5 "${FIG[ours]}") µs a create" \
  "(a flush or compaction lands in some rounds, not others; the profile's share below is of one round)"

# The split, from one more round of ours with perf attached.
perf record -F 499 --call-graph dwarf,16384 -p "$PID" -o "$WORK/perf.data" -- sleep "$SECS" >/dev/null 2>&1 &
PERF=$!
contact_creates "$SECS" p "http://127.0.0.1:$PORT/api/contacts" | grep 'req/s=' | sed 's/^/perf round: /'
wait "$PERF" || true
echo
echo "stages of a create (share of the host's samples; µs of the median $OURS_US µs a create)"
# --no-inline: perf's addr2line for inlined frames hangs on the host's binary.
perf script --no-inline -i "$WORK/perf.data" -F comm,ip,sym,dso 2>/dev/null | python3 scripts/create-stages.py "$OURS_US"
[ -z "${KEEP_PROFILE:-}" ] || cp "$WORK/perf.data" "$KEEP_PROFILE"
