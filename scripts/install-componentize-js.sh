#!/usr/bin/env bash
# Installs componentize-js (npm), which the JavaScript scaffolds of
# `crm-host plugin new --lang js` build with, into target/componentize-js:
# `npm ci` of the scaffold's own package.json and package-lock.json
# (host/cli/templates/js), so CI builds with exactly what a partner's new
# project pins. Made once, and again only when those pins change;
# tests/it/plugin_kit.rs links each new project's node_modules here.
# Needs node and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/componentize-js
template=host/cli/templates/js
want=$(sha256sum "$template/package.json" "$template/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$dir/.installed" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
rm -rf "$dir"
mkdir -p "$dir"
for file in package.json package-lock.json; do
  sed 's/__NAME__/crm-componentize-js/; s/__KIND__/component/' "$template/$file" >"$dir/$file"
done
(cd "$dir" && npm ci --silent --no-audit --no-fund)
echo "$want" >"$dir/.installed"
