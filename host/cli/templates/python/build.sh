#!/usr/bin/env bash
# Builds __CRATE__.wasm from app.py and wit/ with componentize-py from PyPI, in
# a virtual environment of its own (.venv, or $COMPONENTIZE_PY_VENV), made once.
# Usage: ./build.sh [OUTPUT.wasm]   (default: ./__CRATE__.wasm)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/__CRATE__.wasm}"
venv="${COMPONENTIZE_PY_VENV:-$here/.venv}"
if [ ! -x "$venv/bin/componentize-py" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet componentize-py==0.25.1
fi
cd "$here"
"$venv/bin/componentize-py" -d wit -w __WORLD__ componentize app -o "$out"
