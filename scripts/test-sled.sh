#!/usr/bin/env bash
# Runs the black-box suite with every test host on the sled engine
# (CRM_TEST_STORE=sled), the slow tests too: the default engine is fjall, and
# sled stays supported, so each contract of the API is checked on both
# embedded engines (and on PostgreSQL by scripts/test-postgres.sh). Extra
# arguments go to the test binary.
#
# Left to the default run: python_partner (the partner component, not the
# store, is under test), tidy (no host at all) and openapi (the fuzzer: the
# API's shapes, not the store's); many_hosts, edge, store_copy and
# store_backup choose their stores themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
skip=()
for module in python_partner tidy openapi many_hosts edge store_copy store_backup; do
  skip+=(--skip "$module::")
done
CRM_TEST_STORE=sled cargo test --locked --workspace --test it -- --include-ignored "${skip[@]}" "$@"
