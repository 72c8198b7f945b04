#!/usr/bin/env bash
# Installs what scripts/generate-clients.sh and the clients' tour tests
# (tests/it/clients.rs) run, outside the source tree, each made once and made
# again only when its pins change:
# - target/client-generators/python: a virtual environment with
#   openapi-python-client, openapi-spec-validator and the ruff they format
#   with (PyPI, pinned whole by clients/generator-requirements.txt); its
#   httpx and attrs are also what the generated Python client needs;
# - target/client-generators/node: `npm ci` of the TypeScript client's own
#   clients/typescript/package.json and package-lock.json (openapi-typescript,
#   openapi-fetch, typescript, @types/node from npm).
# Needs python3 and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
root=target/client-generators
mkdir -p "$root"
stamp() { sha256sum "$@" | sha256sum | cut -d' ' -f1; }

py=$root/python
want=$(stamp clients/generator-requirements.txt)
if [ "$(cat "$py/.installed" 2>/dev/null)" != "$want" ]; then
  rm -rf "$py"
  python3 -m venv "$py"
  "$py/bin/pip" install --quiet --disable-pip-version-check -r clients/generator-requirements.txt
  echo "$want" >"$py/.installed"
fi

node=$root/node
want=$(stamp clients/typescript/package.json clients/typescript/package-lock.json)
if [ "$(cat "$node/.installed" 2>/dev/null)" != "$want" ]; then
  rm -rf "$node"
  mkdir -p "$node"
  cp clients/typescript/package.json clients/typescript/package-lock.json "$node/"
  (cd "$node" && npm ci --silent --no-audit --no-fund)
  echo "$want" >"$node/.installed"
fi
