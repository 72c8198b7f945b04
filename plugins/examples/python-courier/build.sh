#!/usr/bin/env bash
# Builds python_courier.wasm from app.py and the WIT, with componentize-py from
# PyPI in a virtual environment of its own (reused when already there).
# Usage: ./build.sh [OUTPUT.wasm]   (default: ./python_courier.wasm)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
wit="$here/../../../wit"
out="${1:-$here/python_courier.wasm}"
venv="${COMPONENTIZE_PY_VENV:-$here/.venv}"
if [ ! -x "$venv/bin/componentize-py" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet componentize-py==0.25.1
fi
cd "$here"
"$venv/bin/componentize-py" -d "$wit" -w provider-component componentize app -o "$out"
