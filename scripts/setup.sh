#!/usr/bin/env bash
# Installs what the build needs beyond a bare rustup + cargo: the rustfmt and
# clippy components and the wasm32-wasip2 target the Wasm components build for.
# Idempotent; fast when everything is already there.
set -euo pipefail
if command -v rustup >/dev/null 2>&1; then
  installed_components=$(rustup component list --installed 2>/dev/null || true)
  for component in rustfmt clippy; do
    grep -q "^${component}" <<<"$installed_components" || rustup component add "$component"
  done
  rustup target list --installed | grep -qx wasm32-wasip2 || rustup target add wasm32-wasip2
fi
# The Python partner provider the black-box tests load (componentize-py from PyPI).
"$(dirname "$0")/build-python-courier.sh"
# The API fuzzer the OpenAPI test runs (Schemathesis from PyPI).
"$(dirname "$0")/install-schemathesis.sh"
# The clients' generators and what their tours run on (PyPI and npm): scripts/generate-clients.sh.
"$(dirname "$0")/install-client-generators.sh"
# componentize-js (npm), which the JavaScript scaffolds of `crm-host plugin new` build with.
"$(dirname "$0")/install-componentize-js.sh"
# PostgreSQL, which the tests of the store's second backend start throw-away servers of.
"$(dirname "$0")/install-postgresql.sh"
