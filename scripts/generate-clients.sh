#!/usr/bin/env bash
# Generates the API's two clients from its OpenAPI document, and checks them:
#   clients/python                    openapi-python-client (package crm_client)
#   clients/typescript/src/schema.d.ts  openapi-typescript (calls: openapi-fetch,
#                                     through the hand-written src/index.ts)
# Usage: scripts/generate-clients.sh            regenerate them in place
#        scripts/generate-clients.sh --check    regenerate into a temporary folder
#                                     and fail, with the diff, if the committed
#                                     clients differ (tests/it/clients.rs runs this)
#
# The document is read from host/server/src/api/openapi.json, not fetched from
# a running host: that file is what the host serves (embedded whole with
# include_str!, and tests/it/clients.rs checks that GET /api/openapi.json
# answers its exact bytes), and reading it needs no build and no host, so the
# check runs in seconds. The tools come from scripts/install-client-generators.sh,
# pinned, so the same document always gives the same bytes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
doc=$root/host/server/src/api/openapi.json
"$root/scripts/install-client-generators.sh"
tools=$root/target/client-generators
export PATH=$tools/python/bin:$tools/node/node_modules/.bin:$PATH   # openapi-python-client runs ruff from PATH
# Nothing but the generated files in the output: no caches of ruff or Python.
export RUFF_NO_CACHE=true PYTHONDONTWRITEBYTECODE=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

openapi-spec-validator "$doc" >/dev/null

# Python: the whole of clients/python is generated.
(cd "$out" && openapi-python-client generate --path "$doc" --meta uv \
  --config "$root/clients/openapi-python-client.yaml" --output-path "$out/python") >"$out/python.log" 2>&1 ||
  { cat "$out/python.log" >&2; exit 1; }
# The one accepted warning: POST /import/contacts's text/csv body, a content type
# openapi-python-client does not support (its function sends the JSON bodies only).
if grep -E 'WARNING|ERROR|Unable to|Unsupported|conflicting|failed' "$out/python.log" |
  grep -vxF -e 'WARNING parsing POST /import/contacts within import_.' -e 'Unsupported content type text/csv' | grep -q .; then
  cat "$out/python.log" >&2
  echo "openapi-python-client warned about more than text/csv (above)" >&2
  exit 1
fi
(cd "$out/python" && python -c '
import importlib, pkgutil
import crm_client
for m in pkgutil.walk_packages(crm_client.__path__, "crm_client."):
    importlib.import_module(m.name)
') || { echo "the generated Python package does not import" >&2; exit 1; }

# TypeScript: the types; src/index.ts (hand-written) makes the client of them.
mkdir -p "$out/typescript/src"
# --default-non-nullable false: a field with a default (ImportInput's dryRun) stays optional in a request.
openapi-typescript "$doc" --default-non-nullable false -o "$out/typescript/src/schema.d.ts" >/dev/null 2>&1 ||
  { openapi-typescript "$doc" --default-non-nullable false -o "$out/typescript/src/schema.d.ts"; exit 1; }
cp clients/typescript/src/index.ts clients/typescript/tsconfig.json "$out/typescript/"
cp clients/typescript/src/index.ts "$out/typescript/src/"
ln -s "$tools/node/node_modules" "$out/typescript/node_modules"
(cd "$out/typescript" && tsc -p tsconfig.json --noEmit) || { echo "tsc --strict refuses the TypeScript client" >&2; exit 1; }

if $check; then
  status=0
  diff -ru clients/python "$out/python" || status=1
  diff -u clients/typescript/src/schema.d.ts "$out/typescript/src/schema.d.ts" || status=1
  if [ $status != 0 ]; then
    echo "the committed clients differ from what the document generates: run scripts/generate-clients.sh and commit" >&2
    exit 1
  fi
  echo "the committed clients are what the document generates"
else
  rm -rf clients/python
  cp -r "$out/python" clients/python
  cp "$out/typescript/src/schema.d.ts" clients/typescript/src/schema.d.ts
  echo "generated clients/python and clients/typescript/src/schema.d.ts"
fi
