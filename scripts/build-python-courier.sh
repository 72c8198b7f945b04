#!/usr/bin/env bash
# Builds the Python partner provider (plugins/examples/python-courier) into
# target/plugins/python/python_courier.wasm with componentize-py from PyPI,
# in a virtual environment under target/ (made once). Skips the build when
# the component is newer than its source and the WIT. Needs python3.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/plugins/python/python_courier.wasm
src=plugins/examples/python-courier
if [ -f "$out" ] && [ "$out" -nt "$src/app.py" ] && [ "$out" -nt wit/plugin.wit ]; then
  exit 0
fi
mkdir -p "$(dirname "$out")"
COMPONENTIZE_PY_VENV="$PWD/target/componentize-py" "$src/build.sh" "$PWD/$out"
