#!/usr/bin/env bash
# The loss of the PostgreSQL primary, measured: runs the failover tests
# (tests/it/failover.rs: a pg_auto_failover cluster killed under writes
# three times, and a standby promoted by hand) RUNS times and prints each
# failover's figures: when the monitor marked the primary unhealthy, when
# the standby took writes (`wait_primary`), and the first acknowledged write
# through each unchanged host, all in seconds after the primary's machine
# was lost. Debug hosts, as the tests run them: a host's part is a
# connection and a commit, not its code's speed.
#
# Usage: scripts/bench-failover.sh [RUNS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cargo test --locked --workspace --no-run >/dev/null 2>&1
for run in $(seq "$runs"); do
  echo "== run $run"
  cargo test --locked --test it failover:: -- --nocapture --test-threads 1 2>&1 | grep "failover figure" || {
    echo "the failover tests failed" >&2
    exit 1
  }
done
