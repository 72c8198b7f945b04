#!/usr/bin/env bash
# Runs the README's test command N times, each in a fresh clone of this
# repository's HEAD, and reports every test that failed, with its binary:
# for the timing-dependent tests a single run on an idle machine passes.
#
#   scripts/soak-tests.sh N [--hog] [-- CARGO_TEST_ARGS...]
#
# Each run clones HEAD (the commit checked out here, not the branch of the
# main worktree) into $SOAK_DIR/clone, replacing the last run's, and runs
#   ./scripts/setup.sh && cargo test --workspace --no-fail-fast CARGO_TEST_ARGS...
# there. --no-fail-fast is added to the README's command so that one run
# reports every failing test binary, not only the first; CARGO_TEST_ARGS
# (a filter, `-- --include-ignored`...) are passed on as they are.
#
# To keep it affordable, the clones share one target dir, SOAK_TARGET_DIR
# (default $SOAK_DIR/target): CARGO_TARGET_DIR points there and the clone's
# own target/ (where the Wasm components and the Python courier are built)
# is a link to it. The first run builds everything (about 15 minutes on two
# cores); later runs rebuild the workspace's own crates and components
# (their files are new) and reuse the compiled dependencies. The tests
# themselves start from nothing each run: fresh data dirs, fresh
# PostgreSQL servers.
#
# --hog runs a CPU hog beside the tests for the whole soak: a busy loop
# pinned to the first core with taskset (unpinned without it), at this
# script's own priority, so that on a 2-core machine the tests have one core
# to themselves at most. Run the script as the tests would be run (on a
# shared machine: nice -n 19 scripts/soak-tests.sh ...); the hog goes with it.
#
# Logs: $SOAK_DIR/run-<i>.log (SOAK_DIR: default a new directory under
# ${TMPDIR:-/tmp}, kept). Exit status: 0 when every run passed.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

[[ $# -ge 1 && $1 =~ ^[0-9]+$ && $1 -ge 1 ]] || usage
runs=$1
shift
hog=false
while [[ $# -gt 0 ]]; do
  case $1 in
    --hog) hog=true ;;
    --) shift; break ;;
    *) usage ;;
  esac
  shift
done
cargo_args=("$@")

repo=$(git rev-parse --show-toplevel)
head=$(git -C "$repo" rev-parse HEAD)
soak_dir=${SOAK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/crm-soak.XXXXXX")}
target_dir=${SOAK_TARGET_DIR:-$soak_dir/target}
mkdir -p "$soak_dir" "$target_dir"
soak_dir=$(cd "$soak_dir" && pwd)
target_dir=$(cd "$target_dir" && pwd)

hog_pid=
stop_hog() {
  if [[ -n $hog_pid ]]; then
    kill "$hog_pid" 2>/dev/null || true
    wait "$hog_pid" 2>/dev/null || true
    hog_pid=
  fi
}
trap stop_hog EXIT
trap 'stop_hog; exit 130' INT TERM
if $hog; then
  if command -v taskset >/dev/null 2>&1; then
    taskset -c 0 sh -c 'while :; do :; done' &
  else
    sh -c 'while :; do :; done' &
  fi
  hog_pid=$!
  echo "soak: a CPU hog (pid $hog_pid) runs beside the tests"
fi

# The failures in a run's log, one a line: `<binary>: <test>`, or what
# stopped a binary (or the build) without naming a test.
failures_in() {
  awk '
    /^ *Running / { binary = $0; sub(/^ *Running /, "", binary); sub(/ \(.*\/deps\//, " (", binary); sub(/-[0-9a-f]+\)$/, ")", binary) }
    /^ *Doc-tests / { binary = $0; sub(/^ *Doc-tests /, "doc-tests ", binary) }
    /^test .* \.\.\. FAILED$/ { name = $0; sub(/^test /, "", name); sub(/ \.\.\. FAILED$/, "", name); print binary ": " name; named[binary] = 1 }
    /^error: test failed, to rerun pass/ { failed[binary] = 1 }
    /process didn.t exit successfully: / { how = $0; sub(/.*` \(/, "", how); sub(/\)$/, "", how); exit_of[binary] = how }
    /^error(\[E[0-9]+\])?: could not compile|^error: failed to run custom build command/ { print "build: " $0 }
    END {
      for (b in failed) if (!(b in named)) print b ": (no test failed: the binary itself did, " (b in exit_of ? exit_of[b] : "see the log") ")"
    }
  ' "$1" | sort -u
}

echo "soak: $runs run(s) of $head in $soak_dir (target dir $target_dir)"
failed_runs=0
: >"$soak_dir/failures"
for ((i = 1; i <= runs; i++)); do
  clone=$soak_dir/clone
  log=$soak_dir/run-$i.log
  rm -rf "$clone"
  git clone --quiet --no-checkout "$repo" "$clone"
  git -C "$clone" checkout --quiet --detach "$head"
  ln -s "$target_dir" "$clone/target"
  started=$(date +%s)
  set +e
  (
    cd "$clone"
    export CARGO_TARGET_DIR=$target_dir
    ./scripts/setup.sh && cargo test --workspace --no-fail-fast "${cargo_args[@]}"
  ) >"$log" 2>&1
  status=$?
  set -e
  took=$(($(date +%s) - started))
  found=$(failures_in "$log")
  if [[ $status -eq 0 && -z $found ]]; then
    echo "soak: run $i/$runs passed in ${took}s"
    continue
  fi
  failed_runs=$((failed_runs + 1))
  echo "soak: run $i/$runs FAILED in ${took}s (exit $status; log $log):"
  if [[ -n $found ]]; then
    sed 's/^/  /' <<<"$found"
    sed "s/^/run $i: /" <<<"$found" >>"$soak_dir/failures"
  else
    echo "  (no failing test named: see the end of the log)"
    tail -n 5 "$log" | sed 's/^/  | /'
    echo "run $i: (exit $status, no failing test named)" >>"$soak_dir/failures"
  fi
done
stop_hog

echo "soak: $((runs - failed_runs)) of $runs run(s) passed"
if [[ -s $soak_dir/failures ]]; then
  echo "soak: failures, by how many runs had each:"
  sed 's/^run [0-9]*: //' "$soak_dir/failures" | sort | uniq -c | sort -rn | sed 's/^/  /'
fi
[[ $failed_runs -eq 0 ]]
