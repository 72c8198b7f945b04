#!/usr/bin/env bash
# The public listener with and without TLS, in one run, alternated, against a
# release host: GET /api/me and a page of 100 contacts (over 1,000, created
# through the bulk path), at 64 keep-alive connections, plain and over TLS
# (an ECDSA P-256 certificate made here with openssl). Each load starts a
# new host of its kind on the same data; every connection's handshake
# happens before the measured time. Prints each round, then the medians and
# their ratios. Usage: scripts/bench-tls.sh [SECONDS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-5}
ROUNDS=${2:-3}
PORT=${PORT:-18810}
. scripts/bench-lib.sh
# An authority, and a certificate for 127.0.0.1 it signs (a self-signed one is a CA to rustls).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=bench-ca \
  -keyout "$WORK/ca-key.pem" -out "$WORK/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=127.0.0.1 \
  -keyout "$WORK/key.pem" -out "$WORK/cert.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >"$WORK/ext.cnf"
openssl x509 -req -in "$WORK/cert.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca-key.pem" -CAcreateserial -days 2 \
  -extfile "$WORK/ext.cnf" -out "$WORK/cert.pem" 2>/dev/null

# Keeps the data between hosts: start_host would start from a fresh data dir.
host() { # plain|tls
  local tls=()
  [ "$1" = tls ] && tls=(--tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem")
  "$HOST" serve --listen 127.0.0.1:$PORT --admin-listen 127.0.0.1:$((PORT + 1)) --data-dir "$WORK/data" \
    "${tls[@]}" >>"$WORK/out.txt" 2>>"$WORK/err.txt" &
  PID=$!
  for _ in $(seq 400); do
    curl -fs --cacert "$WORK/ca.pem" "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && return
    curl -fs --cacert "$WORK/ca.pem" "https://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && return
    sleep 0.025
  done
}
start_host "$HOST" RUST_LOG=warn
new_org Bench unlimited
seed_contacts "$ORG" 1000
stop_host

declare -A RPS P50
run() { # NAME URL
  local line
  line=$("$LOAD" -c 64 -d "$SECONDS_EACH" --threads 2 --cacert "$WORK/ca.pem" \
    -H "Authorization: Bearer $ORG_TOKEN" "$2" | grep 'req/s=')
  echo "$1 $line"
  RPS[$1]+="$(field req/s "$line") "
  P50[$1]+="$(field p50 "$line") "
}
for round in $(seq "$ROUNDS"); do
  echo "# round $round"
  for kind in $(alternate "$round" plain tls); do
    host $kind
    scheme=http; [ $kind = tls ] && scheme=https
    run "me-$kind" "$scheme://127.0.0.1:$PORT/api/me"
    run "page-$kind" "$scheme://127.0.0.1:$PORT/api/contacts?limit=100"
    stop_host
  done
done
echo
printf '%-12s %10s %10s\n' load "req/s" "p50 ms"
for name in me-plain me-tls page-plain page-tls; do
  printf '%-12s %10s %10s\n' "$name" "$(median "${RPS[$name]}")" "$(median "${P50[$name]}")"
done
for what in me page; do
  awk -v a="$(median "${RPS[$what-plain]}")" -v b="$(median "${RPS[$what-tls]}")" -v w="$what" \
    'BEGIN { printf "%s: req/s plain / TLS = %.2f\n", w, a / b }'
done
