#!/usr/bin/env bash
# How cost grows with one organization's size, against a release host: for
# each size (default 10,000, 100,000 and 1,000,000 contacts) a fresh host is
# seeded through the admin bulk path, then measured:
#   create  durable creates in another organization, 64 connections (req/s, p99)
#   page    the newest page of 100, one client (median)
#   rare    search=user4242, one client (median)
#   common  search=bench (every contact), one client (median)
#   disk    the data dir; rss the host's resident memory after the reads
#   restart SIGTERM (flush included) and the next start until /readyz answers
# Prints a table and writes it as a chart to bench/figures/growth.svg (or
# $CHART). $HOST_ENV (NAME=VALUE words) is the host's extra environment, e.g.
# HOST_ENV=CRM_STORE_CACHE_MB=128 CHART=/tmp/small.svg scripts/bench-growth.sh 1000000
# $KEEP (a path) keeps the last size's data dir there, e.g. to profile a restart.
#
# Usage: scripts/bench-growth.sh [sizes...]
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(10000 100000 1000000)
PORT=${PORT:-18980}
. scripts/bench-lib.sh
API=http://127.0.0.1:$PORT/api


ROWS=()
for n in "${SIZES[@]}"; do
  # shellcheck disable=SC2086 # HOST_ENV is words on purpose
  start_host "$HOST" ${HOST_ENV:-}
  read_and_write_orgs "$n"
  read -r rate _ p99 < <(load_figures -c 64 -d 5 -X POST -H "Authorization: Bearer $WRITE_TOKEN" \
    -H "content-type: application/json" -b '{"email":"new{n}@w.co","firstName":"N","cityCode":"{city}"}' "$API/contacts")
  read -r _ page _ < <(load_figures -c 1 -d 3 --warmup 0.5 -H "Authorization: Bearer $READ_TOKEN" "$API/contacts?limit=100")
  read -r _ rare _ < <(load_figures -c 1 -d 3 --warmup 0.5 -H "Authorization: Bearer $READ_TOKEN" "$API/contacts?limit=100&search=user4242")
  read -r _ common _ < <(load_figures -c 1 -d 3 --warmup 0 -H "Authorization: Bearer $READ_TOKEN" "$API/contacts?limit=100&search=bench")
  rss=$(($(awk '/VmRSS/ {print $2}' "/proc/$PID/status") / 1024))
  stopped=$(date +%s.%N)
  stop_host
  stop=$(seconds_since "$stopped")
  disk=$(du -sm "$WORK/data" | cut -f1)
  restarted=$(date +%s.%N)
  # shellcheck disable=SC2086
  restart_host "$HOST" ${HOST_ENV:-}
  ready=$(seconds_since "$restarted")
  stop_host
  ROWS+=("$n $rate $p99 $page $rare $common $disk $rss $stop $ready")
  [ -z "${KEEP:-}" ] || { rm -rf "$KEEP"; mv "$WORK/data" "$KEEP"; }
  echo "$n contacts: create ${rate}/s p99 ${p99} ms; page ${page} ms; search rare ${rare} ms, common ${common} ms; disk ${disk} MB; RSS ${rss} MB; stop ${stop} s; restart to ready ${ready} s"
done

CHART=${CHART:-bench/figures/growth.svg}
mkdir -p "$(dirname "$CHART")"
printf '%s\n' "${ROWS[@]}" >"$WORK/rows.txt"
python3 - "$WORK/rows.txt" "$CHART" <<'EOF'
import sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1]) if line.strip()]
print(f"\n{'contacts':>10} {'create/s':>9} {'p99 ms':>7} {'page ms':>8} {'rare ms':>8} {'common ms':>10} {'disk MB':>8} {'RSS MB':>7} {'stop s':>7} {'ready s':>8}")
for r in rows:
    print(f"{r[0]:>10,.0f} {r[1]:>9,.0f} {r[2]:>7.1f} {r[3]:>8.2f} {r[4]:>8.1f} {r[5]:>10.1f} {r[6]:>8,.0f} {r[7]:>7,.0f} {r[8]:>7.2f} {r[9]:>8.2f}")

# Four small panels, contacts on a log axis; each series scaled to its own maximum.
import math
panels = [("create, req/s", [(1, "create")]), ("page and searches, ms", [(3, "page"), (4, "rare"), (5, "common")]),
          ("disk and RSS, MB", [(6, "disk"), (7, "RSS")]), ("restart to ready, s", [(9, "ready")])]
colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
W, H, PAD = 320, 200, 40
xs = [math.log10(r[0]) for r in rows]
x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * W}" height="{2 * H}" font-family="sans-serif" font-size="11">',
       '<rect width="100%" height="100%" fill="white"/>']
for i, (title, series) in enumerate(panels):
    ox, oy = (i % 2) * W, (i // 2) * H
    top = max(max(r[c] for r in rows) for c, _ in series) or 1
    log = top / max(min(r[c] for r in rows for c, _ in series), 1e-9) > 100
    def y(v):
        if log:
            lo = math.log10(max(min(r[c] for r in rows for c, _ in series), 1e-3))
            return oy + H - PAD - (math.log10(max(v, 1e-3)) - lo) / (math.log10(top) - lo or 1) * (H - 2 * PAD)
        return oy + H - PAD - v / top * (H - 2 * PAD)
    def x(v):
        return ox + PAD + (math.log10(v) - x0) / (x1 - x0) * (W - 2 * PAD)
    out.append(f'<text x="{ox + PAD}" y="{oy + 16}" font-weight="bold">{title}{" (log)" if log else ""}</text>')
    out.append(f'<line x1="{ox + PAD}" y1="{oy + H - PAD}" x2="{ox + W - PAD}" y2="{oy + H - PAD}" stroke="#888"/>')
    for r in rows:
        out.append(f'<text x="{x(r[0]) - 14}" y="{oy + H - PAD + 14}">{r[0] / 1000:,.0f}k</text>')
    for k, (c, name) in enumerate(series):
        pts = " ".join(f"{x(r[0]):.1f},{y(r[c]):.1f}" for r in rows)
        out.append(f'<polyline points="{pts}" fill="none" stroke="{colors[k]}" stroke-width="2"/>')
        for r in rows:
            out.append(f'<circle cx="{x(r[0]):.1f}" cy="{y(r[c]):.1f}" r="3" fill="{colors[k]}"/>')
            out.append(f'<text x="{x(r[0]) + 4:.1f}" y="{y(r[c]) - 4:.1f}" fill="{colors[k]}">{r[c]:,.4g}</text>')
        out.append(f'<text x="{ox + W - PAD - 60}" y="{oy + 32 + 13 * k}" fill="{colors[k]}">{name}</text>')
out.append("</svg>")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print(f"\nchart: {sys.argv[2]}")
EOF
