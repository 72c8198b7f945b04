#!/usr/bin/env bash
# Installs Schemathesis (PyPI), the API fuzzer `tests/it/openapi.rs` runs
# against a live host, in a virtual environment at target/schemathesis (made
# once; the pinned version keeps CI runs comparable). Needs python3.
set -euo pipefail
cd "$(dirname "$0")/.."
version=4.32.5
venv=target/schemathesis
if "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "version $version\$"; then
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
"$venv/bin/schemathesis" --version
