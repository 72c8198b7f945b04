#!/usr/bin/env bash
# The search index's full rewrite, as a host does it at start after an
# upgrade: N contacts (default 100,000) seeded through the admin bulk path,
# then `POST /admin/orgs/{org}/contacts/reindex` from the first contact
# (`{"after": ""}`, which skips the "index is current" answer) and again
# from each answer's cursor until it is null; timed end to end with curl,
# ROUNDS times (default 3), while the host serves nothing else.
# Usage: scripts/bench-reindex.sh [N] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
ROUNDS=${2:-3}
PORT=${PORT:-18820}
. scripts/bench-lib.sh
start_host "$HOST" RUST_LOG=warn
new_org Reindexed unlimited
seed_contacts "$ORG" "$N"
ADMIN=http://127.0.0.1:$((PORT + 1))
times=""
for round in $(seq "$ROUNDS"); do
  started=$(date +%s.%N)
  after='""'
  calls=0
  while [ "$after" != "null" ]; do
    answer=$(curl -fs -X POST -H "Authorization: Bearer $CRM_ADMIN_TOKEN" -H 'content-type: application/json' \
      -d "{\"after\": $after}" "$ADMIN/admin/orgs/$ORG/contacts/reindex")
    after=$(python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["next"]))' <<<"$answer")
    calls=$((calls + 1))
  done
  took=$(seconds_since "$started")
  echo "round $round: $N contacts reindexed in $took s ($calls calls)"
  times="$times $took"
done
echo "median: $(median "$times") s"
