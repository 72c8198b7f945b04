#!/usr/bin/env bash
# Import against a release host: 10,000 new contacts with cities in one call
# (durable), a dry run of the same rows, then 100,000 rows through the
# command-line importer. Each timed end to end with curl / the CLI; the
# one-call figures are the median of ROUNDS fresh organizations.
# Usage: scripts/bench-import.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
PORT=${PORT:-18800}
. scripts/bench-lib.sh
start_host "$HOST" RUST_LOG=warn
API=http://127.0.0.1:$PORT
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
cities = ["05001", "11001", "76001", "08001", "68001", "Medellín", "Bogota", "Santa Martha"]
rows = [{"email": f"imp{i}@bench.co", "firstName": f"user{i}", "mobile": f"300{i:07d}",
         ("cityCode" if cities[i % 8][0].isdigit() else "city"): cities[i % 8]} for i in range(10_000)]
json.dump({"rows": rows}, open(f"{work}/10k.json", "w"))
json.dump({"rows": rows, "dryRun": True}, open(f"{work}/10k-dry.json", "w"))
with open(f"{work}/100k.csv", "w") as f:
    f.write("email;firstName;mobile;cityCode;city\n")
    for i in range(100_000):
        c = cities[i % 8]
        code, name = (c, "") if c[0].isdigit() else ("", c)
        f.write(f"cli{i}@bench.co;\"user {i}\";310{i:07d};{code};{name}\n")
PY
time_call() { # BODY → seconds
  curl -fs -o "$WORK/answer.json" -w '%{time_total}\n' -H "Authorization: Bearer $ORG_TOKEN" \
    -H 'content-type: application/json' --data-binary @"$1" "$API/api/import/contacts"
}
real=() dry=()
for round in $(seq "$ROUNDS"); do
  new_org "Import$round" unlimited
  dry+=("$(time_call "$WORK/10k-dry.json")")
  real+=("$(time_call "$WORK/10k.json")")
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["data"]; print("  round: created", d["created"], "updated", d["updated"], "warnings", len(d["warnings"]), "rejected", d["rejected"])' "$WORK/answer.json"
done
echo "10,000 rows in one call, durable: median $(median "${real[*]}") s (runs: ${real[*]})"
echo "dry run of the same 10,000 rows: median $(median "${dry[*]}") s (runs: ${dry[*]})"
new_org ImportCli unlimited
started=$(date +%s.%N)
"$HOST" import contacts "$WORK/100k.csv" --url "$API" --token "$ORG_TOKEN"
echo "100,000 rows through crm-host import: $(seconds_since "$started" 1) s"
