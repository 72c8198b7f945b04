# Shared by the bench scripts (sourced, not run): one throw-away host at a
# time on $PORT (admin on $PORT+1) with its data in $WORK/data.
#   start_host BIN [NAME=VALUE...]  starts BIN on a fresh data dir with that
#                                   environment; sets PID and TOKEN (the demo token)
#   stop_host                       stops it
#   new_org NAME [PLAN]             creates an organization; sets ORG and ORG_TOKEN (a `*` token)
# Needs WORK and PORT set; uses CRM_ADMIN_TOKEN (set here to bench-admin).
export CRM_ADMIN_TOKEN=${CRM_ADMIN_TOKEN:-bench-admin}
PID=
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT

start_host() {
  local bin=$1
  shift
  rm -rf "$WORK/data"
  env "$@" "$bin" serve --listen 127.0.0.1:$PORT --admin-listen 127.0.0.1:$((PORT + 1)) --data-dir "$WORK/data" \
    --tracking-refresh-ms 0 >"$WORK/out.txt" 2>>"$WORK/err.txt" &
  PID=$!
  for _ in $(seq 400); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.025; done
  TOKEN=$(grep -o 'crm_[0-9a-f_]*' "$WORK/out.txt" | head -1)
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
