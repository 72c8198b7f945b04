#!/usr/bin/env bash
# What the kernel does for one durable create (issue 70's budget): a release
# host with 20,000 contacts seeded, a 4 s warm-up, then ROUNDS rounds of
# SECONDS of creates at 64 connections (crm-load), each under `perf stat`
# on the host process. Per round: the rate, the host's CPU per create, and
# per create the futex calls, context switches, page faults, madvise calls
# (the instance pool's decommits, mimalloc's purges) and TLB flushes
# (each madvise of a threaded process interrupts the other core).
# HOST_ENV="NAME=VALUE ..." starts the host with that environment, to try an
# allocator or runtime knob beside a run without it.
# Needs perf and root.
#
# Usage: scripts/bench-create-syscalls.sh [ROUNDS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
SECS=${2:-6}
PORT=${PORT:-18960}
. scripts/bench-lib.sh

# shellcheck disable=SC2086 # HOST_ENV is a list of NAME=VALUE words
start_host "$HOST" ${HOST_ENV:-}
read_and_write_orgs 20000
EVENTS=syscalls:sys_enter_futex,context-switches,page-faults,syscalls:sys_enter_madvise,tlb:tlb_flush
API=http://127.0.0.1:$PORT/api/contacts

contact_creates 4 warm "$API" >/dev/null
for round in $(seq "$ROUNDS"); do
  n0=$(acknowledged_creates) c0=$(cpu_micros)
  perf stat -x, -e "$EVENTS" -p "$PID" -o "$WORK/stat.txt" -- sleep "$SECS" &
  stat=$!
  line=$(contact_creates "$SECS" "r$round" "$API" | as_figures)
  wait "$stat" || true
  n1=$(acknowledged_creates) c1=$(cpu_micros)
  n=$((n1 - n0))
  echo "round $round: $(show_figures "$line;"), $(micros_per "$c0" "$c1" "$n") µs of host CPU a create; a create:"
  awk -F, -v n="$n" '/^[0-9]/ {printf "  %-32s %6.2f\n", $3, $1 / n}' "$WORK/stat.txt"
done
