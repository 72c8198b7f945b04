#!/usr/bin/env bash
# Do hosts add throughput when the database is not the limit? One host
# against two on one throw-away PostgreSQL, in turns (one, two, one, two...),
# durable creates of new contacts with a city at 64 connections (two hosts:
# 32 each, at once).
#
# This machine has two cores for everything, so hosts sharing them cannot
# show what a second machine adds (docs/bench-log/2026-11.md, "The store on
# PostgreSQL"). Here each host runs in its own cgroup with a CPU quota of
# HOST_CPU cores, the stand-in for a machine of its own of that size; the
# database and the load generator use what is left. Each run prints what was
# spent where, so the limit can be read off: the hosts' quotas throttled
# (the hosts are the limit) or not, PostgreSQL's cores, and how busy the
# machine was. Needs root (cgroups), Debian's postgresql package
# (scripts/install-postgresql.sh).
#
# Usage: scripts/bench-hosts.sh [HOST_CPU cores, default 0.5] [rounds, default 3] [seconds, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
HOST_CPU=${1:-0.5}
ROUNDS=${2:-3}
SECS=${3:-5}
PORT=${PORT:-18980}
PGPORT=${PGPORT:-18990}
. scripts/bench-lib.sh
HOSTS=()
CGROUPS=()
stop_hosts() {
  for pid in "${HOSTS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  HOSTS=()
}
trap 'stop_hosts; for g in "${CGROUPS[@]}"; do rmdir "$g" 2>/dev/null || true; done; cleanup' EXIT

# A cgroup with a quota of HOST_CPU cores (cgroup v2 where the root is
# unified, else v1's cpu controller); prints its folder.
cpu_cgroup() {
  local name=$1 quota
  quota=$(awk -v c="$HOST_CPU" 'BEGIN {printf "%d", c * 100000}')
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    mkdir -p "/sys/fs/cgroup/$name"
    echo "$quota 100000" >"/sys/fs/cgroup/$name/cpu.max"
    echo "/sys/fs/cgroup/$name"
  else
    mkdir -p "/sys/fs/cgroup/cpu/$name"
    echo 100000 >"/sys/fs/cgroup/cpu/$name/cpu.cfs_period_us"
    echo "$quota" >"/sys/fs/cgroup/cpu/$name/cpu.cfs_quota_us"
    echo "/sys/fs/cgroup/cpu/$name"
  fi
}
# Times the cgroup's quota ran out so far.
throttled() { awk '/^nr_throttled/ {print $2}' "$1/cpu.stat"; }

start_postgres "$PGPORT" max_connections=200 shared_buffers=256MB synchronous_commit=on
"${PSQL[@]}" -c "CREATE DATABASE crm"
STORE_URL="postgres://postgres@127.0.0.1:$PGPORT/crm"

# Host i (0 or 1) on port PORT+2i in its own cgroup; its own data dir holds
# nothing that matters (everything is in the database).
launch() {
  local i=$1 port=$((PORT + 2 * $1))
  # The subshell joins the cgroup first, so the host and all its threads start in it.
  (
    echo "$BASHPID" >"${CGROUPS[$i]}/cgroup.procs"
    exec env CRM_STORE_URL="$STORE_URL" "$HOST" serve --listen 127.0.0.1:$port \
      --admin-listen 127.0.0.1:$((port + 1)) --data-dir "$WORK/data-$i" --tracking-refresh-ms 0
  ) >>"$WORK/out.txt" 2>>"$WORK/err.txt" &
  HOSTS+=($!)
  for _ in $(seq 400); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return; sleep 0.025; done
  echo "host $i did not start" >&2
  cat "$WORK/err.txt" >&2
  exit 1
}
for i in 0 1; do CGROUPS+=("$(cpu_cgroup "crm-bench-host-$i")"); done

# The organization the creates go to, made through host 0.
launch 0
new_org Write unlimited
stop_hosts

# CPU (user + system, µs) of every postgres process now.
pg_cpu() { cpu_micros $(pgrep -u postgres postgres); }
# Busy and total jiffies of the whole machine.
machine() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8}' /proc/stat; }
# crm-load of creates against host i with C connections, tagged TAG; prints "rate p50 p99".
creates() { # i connections tag
  "$LOAD" -d "$SECS" -c "$2" -X POST -H "Authorization: Bearer $ORG_TOKEN" -H "content-type: application/json" \
    -b "{\"email\":\"${3}n{n}@w.co\",\"firstName\":\"N\",\"cityCode\":\"{city}\"}" \
    "http://127.0.0.1:$((PORT + 2 * $1))/api/contacts" |
    awk '/^req\/s=/ {gsub(/[a-z0-9\/]+=|ms/, ""); print $1, $2, $4}'
}
# Runs the creates of N hosts at once (64 connections split between them);
# prints "rate p50 p99 pg_cores machine_busy throttles".
run() {
  local n=$1 tag=$2 pg0 m0 t0=0 pg1 m1 t1=0 i
  for i in $(seq 0 $((n - 1))); do launch "$i"; done
  # A warm-up, so pools and compile caches are filled before the measure.
  local loads=()
  for i in $(seq 0 $((n - 1))); do creates "$i" 8 "w$tag$i" >/dev/null & loads+=($!); done
  wait "${loads[@]}"
  pg0=$(pg_cpu); read -r mb0 mt0 < <(machine)
  for i in $(seq 0 $((n - 1))); do t0=$((t0 + $(throttled "${CGROUPS[$i]}"))); done
  loads=()
  for i in $(seq 0 $((n - 1))); do creates "$i" $((64 / n)) "$tag$i" >"$WORK/run.$i" & loads+=($!); done
  wait "${loads[@]}"
  pg1=$(pg_cpu); read -r mb1 mt1 < <(machine)
  for i in $(seq 0 $((n - 1))); do t1=$((t1 + $(throttled "${CGROUPS[$i]}"))); done
  stop_hosts
  cat "$WORK"/run.* | awk -v pg=$(((pg1 - pg0))) -v hz=1000000 -v secs="$SECS" -v busy=$((mb1 - mb0)) \
    -v all=$((mt1 - mt0)) -v th=$((t1 - t0)) '{r += $1; if ($2 > p) p = $2; if ($3 > q) q = $3}
      END {printf "%.0f %.2f %.2f %.2f %.2f %d\n", r, p, q, pg / hz / secs, busy / all, th}'
  rm -f "$WORK"/run.*
}

declare -A FIG RATE
for round in $(seq "$ROUNDS"); do
  for n in $(alternate "$round" 1 2); do FIG[$n]+="$(run "$n" "r${round}h$n");"; done
  echo "round $round done"
done

echo
echo "creates at 64 connections, each host held to $HOST_CPU cores (a cgroup quota), on one PostgreSQL"
for n in 1 2; do
  line="$n host$([ "$n" -gt 1 ] && echo s || echo ' ') "
  runs=()
  IFS=';' read -ra rows <<<"${FIG[$n]%;}"
  for row in "${rows[@]}"; do
    read -r rate _ p99 pg busy throttles <<<"$row"
    runs+=("$(awk -v r="$rate" -v q="$p99" -v pg="$pg" -v b="$busy" -v t="$throttles" \
      'BEGIN {printf "%.0f/s p99 %.1f ms, PostgreSQL %.2f cores, machine %.0f%% busy, %d throttles", r, q, pg, b * 100, t}')")
    RATE[$n]+="$rate "
  done
  joined=$(printf ' | %s' "${runs[@]}")
  echo "$line ${joined:3}"
done
one=$(median "${RATE[1]}"); two=$(median "${RATE[2]}")
awk -v a="$one" -v b="$two" 'BEGIN {printf "median  two hosts / one host %.0f/%.0f = %.2f\n", b, a, b / a}'
