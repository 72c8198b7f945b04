#!/usr/bin/env bash
# pg-failover-cluster.sh: a throw-away pg_auto_failover cluster (a monitor and
# two data nodes, synchronous replication) on loopback, for the black-box
# tests of a primary's loss (tests/src/failover.rs) and bench-failover.sh.
# Settings, and why each: docs/operators.md, "Surviving the loss of the primary".
#
#   pg-failover-cluster.sh up DIR MONITOR_PORT PORT1 PORT2   create, start, wait ready, print the URL
#   pg-failover-cluster.sh url DIR                           the multi-host client URL
#   pg-failover-cluster.sh state DIR                         pg_autoctl show state
#   pg-failover-cluster.sh events DIR                        the monitor's events: epoch seconds, node, description
#   pg-failover-cluster.sh primary DIR                       node1|node2 (the writable node)
#   pg-failover-cluster.sh secondary DIR                     node1|node2 (the healthy standby)
#   pg-failover-cluster.sh port DIR node1|node2              that node's port
#   pg-failover-cluster.sh kill DIR node1|node2|primary|monitor   SIGKILL every process of one node
#                                                            (keeper, postmaster, backends): its machine's loss;
#                                                            prints the node and when it was killed (epoch seconds)
#   pg-failover-cluster.sh start DIR node1|node2|monitor     (re)start one node's keeper; an old
#                                                            primary rejoins as a standby by itself
#   pg-failover-cluster.sh wait-healthy DIR [SECONDS]        until a primary and a synchronous standby
#   pg-failover-cluster.sh down DIR                          stop every process of the cluster
#   pg-failover-cluster.sh destroy DIR                       down, then remove DIR
#
# Runs as root; the servers run as the postgres user. Each node (and the
# monitor) runs in its own session and process group (setsid), so one
# machine is lost without the others. Environment: CRM_PG_BIN (default: the
# newest /usr/lib/postgresql/*/bin), CRM_PASSWORD (crm), PG_USER (postgres),
# HA_TIMEOUT (120 s), and the failover's speed, read by `up`:
# HA_UNHEALTHY_MS (2000), HA_DEMOTE_MS (1000), HA_PARTITION_S (1). DIR on
# tmpfs (/dev/shm) starts about twice as fast; killing processes loses no
# page cache, so nothing acknowledged is at risk there.
set -euo pipefail

PG_BIN=${CRM_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
PG_USER=${PG_USER:-postgres}
CRM_PASSWORD=${CRM_PASSWORD:-crm}
HA_TIMEOUT=${HA_TIMEOUT:-120}

# ---- tuning (see README.md) -------------------------------------------------
# monitor (postgresql.auto.conf of the monitor, milliseconds)
MON_GUCS=(
  "pgautofailover.health_check_period = 1000"              # default 5000
  "pgautofailover.health_check_timeout = 1000"             # default 5000
  "pgautofailover.health_check_max_retries = 1"            # default 2
  "pgautofailover.health_check_retry_delay = 500"          # default 2000
  "pgautofailover.node_considered_unhealthy_timeout = ${HA_UNHEALTHY_MS:-2000}"  # default 20000
  "pgautofailover.primary_demote_timeout = ${HA_DEMOTE_MS:-1000}"               # default 30000
  "pgautofailover.startup_grace_period = 1000"             # default 10000
)
# keeper (pg_autoctl.cfg of each data node, seconds)
KEEPER_CFG=(
  # default 20.  A primary keeper that can reach neither monitor nor standby for
  # more than this shuts postgres down; keep it below the time the monitor
  # needs to promote (unhealthy_timeout + demote_timeout = 3 s here).
  "timeout.network_partition_timeout ${HA_PARTITION_S:-1}"
  "timeout.prepare_promotion_catchup 5"                    # default 30
  "timeout.prepare_promotion_walreceiver 1"                # default 5 (unused with sync rep in 2.0)
  "timeout.postgresql_restart_failure_timeout 5"           # default 20
  "timeout.postgresql_restart_failure_max_retries 2"       # default 3
  "timeout.listen_notifications_timeout 10"                # default 60
)
# postgres settings for every node (the auto-computed defaults take 1/4 of RAM)
PG_GUCS=(
  "shared_buffers = '128MB'"
  "work_mem = '4MB'"
  "maintenance_work_mem = '64MB'"
  "effective_cache_size = '1GB'"
  "max_connections = 100"
  "wal_sender_timeout = '5s'"
  "wal_receiver_timeout = '5s'"
  "wal_retrieve_retry_interval = '500ms'"
  # DSM segments in PGDATA/pg_dynshmem instead of /dev/shm: a SIGKILLed
  # postmaster leaks them, and "destroy" then removes them with DIR
  "dynamic_shared_memory_type = 'mmap'"
)

die() { echo "pg-failover-cluster.sh: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }
log() { echo "[$(date +%T.%3N)] $*" >&2; }

load() {
  DIR=$(readlink -m "$1")
  [[ -f $DIR/cluster.env ]] || die "no cluster in $DIR"
  # shellcheck disable=SC1091
  source "$DIR/cluster.env"
}

# run a command as postgres with this cluster's private environment
pgenv() {
  setpriv --reuid="$PG_USER" --regid="$PG_USER" --init-groups env -i \
    HOME="$DIR" LANG=C.UTF-8 \
    XDG_CONFIG_HOME="$DIR/xdg/config" XDG_DATA_HOME="$DIR/xdg/data" \
    XDG_RUNTIME_DIR="$DIR/xdg/run" \
    PATH="$PG_BIN:/usr/bin:/bin" \
    PGHOST="$DIR/sock" PG_REGRESS_SOCK_DIR="$DIR/sock" \
    "$@"
}

node_port() {
  case $1 in
    monitor) echo "$MONITOR_PORT" ;; node1) echo "$PORT1" ;; node2) echo "$PORT2" ;;
    *) die "unknown node $1" ;;
  esac
}

monitor_uri() { echo "postgres://autoctl_node@127.0.0.1:$MONITOR_PORT/pg_auto_failover?sslmode=disable"; }

# query the monitor; prints unaligned rows
mon_sql() {
  pgenv psql -X -q -At -F ' ' -v ON_ERROR_STOP=1 \
    "host=127.0.0.1 port=$MONITOR_PORT dbname=pg_auto_failover user=autoctl_node connect_timeout=2" -c "$1"
}

# start "$name" (monitor|node1|node2) in its own session; pid == pgid == sid
start_service() {
  local name=$1; shift
  rm -f "$DIR/run/$name.pid"
  # setsid: new session + process group, so one node can be killed alone.
  # (postgres backends additionally call setsid() themselves, see do_kill.)
  pgenv setsid bash -c 'echo $$ > "$0"; exec "$@"' "$DIR/run/$name.pid" \
    "$@" >>"$DIR/logs/$name.log" 2>&1 </dev/null &
  local i
  for i in $(seq 100); do [[ -s $DIR/run/$name.pid ]] && break; sleep 0.05; done
  [[ -s $DIR/run/$name.pid ]] || die "could not start $name"
}

start_node() {
  local name=$1
  case $name in
    monitor) start_service monitor pg_autoctl run --pgdata "$DIR/monitor" ;;
    node1|node2) start_service "$name" pg_autoctl run --pgdata "$DIR/$name" ;;
    *) die "unknown node $name" ;;
  esac
}

wait_pg() { # port timeout
  local port=$1 t=$2 deadline
  deadline=$(( $(date +%s) + t ))
  until "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -t 1; do
    (( $(date +%s) < deadline )) || return 1
    sleep 0.2
  done
}

# prints "node1 primary primary" rows: name reportedstate goalstate
node_states() {
  mon_sql "select nodename, reportedstate, goalstate from pgautofailover.node order by nodeid" 2>/dev/null
}

cmd_primary() {
  node_states | awk '$2 ~ /^(primary|wait_primary|single)$/ && $2 == $3 {print $1; exit}'
}
cmd_secondary() {
  node_states | awk '$2 == "secondary" && $3 == "secondary" {print $1; exit}'
}

is_healthy() {
  local s
  s=$(node_states) || return 1
  echo "$s" | grep -qE '^node[12] primary primary$' &&
  echo "$s" | grep -qE '^node[12] secondary secondary$'
}

cmd_wait_healthy() {
  local t=${1:-$HA_TIMEOUT} deadline
  deadline=$(( $(date +%s) + t ))
  until is_healthy; do
    (( $(date +%s) < deadline )) || { node_states >&2 || true; die "cluster not healthy after ${t}s"; }
    sleep 0.2
  done
  # synchronous replication must be on before we call it healthy
  local p; p=$(cmd_primary)
  until [[ -n $(pgenv psql -X -At -h 127.0.0.1 -p "$(node_port "$p")" -d postgres \
                -c "select 1 from pg_stat_replication where sync_state in ('sync','quorum')") ]]; do
    (( $(date +%s) < deadline )) || die "no synchronous standby after ${t}s"
    sleep 0.2
  done
}

cmd_url() {
  echo "postgres://crm:${CRM_PASSWORD}@127.0.0.1:${PORT1},127.0.0.1:${PORT2}/crm?target_session_attrs=read-write&connect_timeout=2"
}

create_node() { # name port
  local name=$1 port=$2 t0
  t0=$(now)
  pgenv pg_autoctl create postgres --pgdata "$DIR/$name" --pgctl "$PG_BIN/pg_ctl" \
    --pgport "$port" --listen 127.0.0.1 --hostname 127.0.0.1 --name "$name" \
    --monitor "$(monitor_uri)" --auth trust --no-ssl --dbname crm \
    >>"$DIR/logs/$name.create.log" 2>&1 || { tail -30 "$DIR/logs/$name.create.log" >&2; die "create $name failed"; }
  local kv
  for kv in "${KEEPER_CFG[@]}"; do
    # shellcheck disable=SC2086
    pgenv pg_autoctl config set --pgdata "$DIR/$name" $kv >/dev/null
  done
  log "$name created in $(since "$t0") s"
}

cmd_up() {
  [[ $# -eq 4 ]] || die "usage: up DIR MONITOR_PORT PORT1 PORT2"
  [[ $(id -u) -eq 0 ]] || die "run as root"
  DIR=$(readlink -m "$1"); MONITOR_PORT=$2; PORT1=$3; PORT2=$4
  local p T0; T0=$(now)
  for p in "$MONITOR_PORT" "$PORT1" "$PORT2"; do
    if command -v ss >/dev/null; then
      [[ -z $(ss -Htln "sport = :$p") ]] || die "port $p is in use"
    fi
  done
  [[ ! -e $DIR/cluster.env ]] || die "$DIR already holds a cluster"
  mkdir -p "$DIR"/{sock,run,logs,xdg/config,xdg/data,xdg/run}
  chmod 700 "$DIR/xdg/run"
  printf 'MONITOR_PORT=%s\nPORT1=%s\nPORT2=%s\n' "$MONITOR_PORT" "$PORT1" "$PORT2" >"$DIR/cluster.env"
  chown -R "$PG_USER": "$DIR"
  # a failed "up" must not leave servers behind
  trap 'rc=$?; if (( rc != 0 )); then log "up failed, stopping what was started"; cmd_down || true; fi' EXIT

  # 1. monitor
  pgenv pg_autoctl create monitor --pgdata "$DIR/monitor" --pgctl "$PG_BIN/pg_ctl" \
    --pgport "$MONITOR_PORT" --hostname 127.0.0.1 --auth trust --no-ssl \
    >>"$DIR/logs/monitor.create.log" 2>&1 || { tail -30 "$DIR/logs/monitor.create.log" >&2; die "create monitor failed"; }
  pgenv pg_autoctl config set --pgdata "$DIR/monitor" postgresql.listen_addresses 127.0.0.1 >/dev/null
  { printf '%s\n' "${MON_GUCS[@]}"; printf '%s\n' "${PG_GUCS[@]}"; } >>"$DIR/monitor/postgresql.auto.conf"
  start_node monitor
  wait_pg "$MONITOR_PORT" 60 || die "monitor did not start"
  log "monitor up in $(since "$T0") s"

  # 2. first node (becomes primary)
  create_node node1 "$PORT1"
  printf '%s\n' "${PG_GUCS[@]}" >>"$DIR/node1/postgresql.auto.conf"
  # password auth for the application user, trust for pg_autoctl's own users
  sed -i "1i host all crm 127.0.0.1/32 scram-sha-256" "$DIR/node1/pg_hba.conf"
  start_node node1
  wait_pg "$PORT1" 60 || die "node1 did not start"
  pgenv psql -X -q -h 127.0.0.1 -p "$PORT1" -d postgres -v ON_ERROR_STOP=1 <<SQL
SET password_encryption = 'scram-sha-256';
CREATE ROLE crm LOGIN PASSWORD '${CRM_PASSWORD}';
ALTER DATABASE crm OWNER TO crm;
SQL
  pgenv psql -X -q -h 127.0.0.1 -p "$PORT1" -d crm -v ON_ERROR_STOP=1 -c "ALTER SCHEMA public OWNER TO crm"
  log "node1 up in $(since "$T0") s"

  # 3. second node (pg_basebackup from node1, becomes the sync standby)
  create_node node2 "$PORT2"
  start_node node2
  cmd_wait_healthy "$HA_TIMEOUT"
  log "cluster healthy in $(since "$T0") s"
  trap - EXIT
  cmd_url
}

# SIGKILL every process of one node: the pg_autoctl process group plus the
# postmaster and all its children (each backend is its own process group
# leader because postgres calls setsid() in every child).
do_kill() {
  local name=$1 pgid pm="" pids kids
  pgid=$(cat "$DIR/run/$name.pid" 2>/dev/null || true)
  [[ -f $DIR/$name/postmaster.pid ]] && pm=$(head -1 "$DIR/$name/postmaster.pid")
  # freeze first so nothing forks or restarts while we collect pids
  [[ -n $pgid ]] && kill -STOP -- "-$pgid" 2>/dev/null || true
  [[ -n $pm ]] && kill -STOP "$pm" 2>/dev/null || true
  pids=""
  [[ -n $pgid ]] && pids+=" $(ps -e -o pid=,pgid= | awk -v g="$pgid" '$2 == g {print $1}')"
  if [[ -n $pm ]] && kill -0 "$pm" 2>/dev/null; then
    kids=$(ps -o pid= --ppid "$pm" 2>/dev/null || true)
    # shellcheck disable=SC2086
    [[ -n ${kids// /} ]] && kill -STOP $kids 2>/dev/null || true
    pids+=" $pm $kids"
  fi
  # shellcheck disable=SC2086
  [[ -n ${pids// /} ]] && kill -KILL $pids 2>/dev/null || true
  [[ -n $pgid ]] && kill -KILL -- "-$pgid" 2>/dev/null || true
  # from here on the node answers nothing (its backends served until now)
  KILLED_AT=$(date +%s.%N)
  # wait until they are gone
  local p i st
  for i in $(seq 100); do
    local alive=0
    for p in $pids; do
      st=$(ps -o stat= -p "$p" 2>/dev/null || true)   # zombies count as dead
      [[ -n $st && $st != Z* ]] && alive=1
    done
    (( alive == 0 )) && break
    sleep 0.05
  done
  rm -f "$DIR/run/$name.pid"
}

cmd_kill() {
  local name=$1
  if [[ $name == primary ]]; then
    name=$(cmd_primary); [[ -n $name ]] || die "no primary"
  fi
  do_kill "$name"
  echo "$name $KILLED_AT"
}

cmd_down() {
  local n pgid i
  for n in node1 node2 monitor; do
    pgid=$(cat "$DIR/run/$n.pid" 2>/dev/null || true)
    [[ -n $pgid ]] && kill -TERM -- "-$pgid" 2>/dev/null || true
  done
  for i in $(seq 100); do
    local alive=0
    for n in node1 node2 monitor; do
      pgid=$(cat "$DIR/run/$n.pid" 2>/dev/null || true)
      [[ -n $pgid ]] && kill -0 -- "-$pgid" 2>/dev/null && alive=1
    done
    (( alive == 0 )) && break
    sleep 0.1
  done
  for n in node1 node2 monitor; do do_kill "$n"; done
}

# a SIGKILLed postmaster leaves its (56-byte) SysV segment behind; it is reused
# when that PGDATA starts again, but leaks once DIR is deleted
drop_sysv() {
  local n id
  for n in node1 node2 monitor; do
    [[ -f $DIR/$n/postmaster.pid ]] || continue
    id=$(sed -n 7p "$DIR/$n/postmaster.pid" | awk '{print $2}')
    [[ -n $id ]] || continue
    # only if it is still ours and unused
    if ipcs -m | awk -v id="$id" -v u="$PG_USER" '$2 == id && $3 == u && $6 == 0 {f=1} END {exit !f}'; then
      ipcrm -m "$id" 2>/dev/null || true
    fi
  done
}

main() {
  local cmd=${1:-}; shift || true
  case $cmd in
    up) cmd_up "$@" ;;
    url) load "$1"; cmd_url ;;
    state) load "$1"; pgenv pg_autoctl show state --pgdata "$DIR/monitor" ;;
    events) load "$1"; mon_sql "select extract(epoch from eventtime), nodename, description from pgautofailover.event order by eventid" ;;
    primary) load "$1"; cmd_primary ;;
    secondary) load "$1"; cmd_secondary ;;
    port) load "$1"; node_port "$2" ;;
    kill) load "$1"; cmd_kill "$2" ;;
    start) load "$1"; start_node "$2" ;;
    wait-healthy) load "$1"; cmd_wait_healthy "${2:-$HA_TIMEOUT}" ;;
    down) load "$1"; cmd_down ;;
    destroy) load "$1"; cmd_down; drop_sysv; rm -rf "$DIR" ;;
    *) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 2 ;;
  esac
}
main "$@"
