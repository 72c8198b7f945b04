#!/usr/bin/env bash
# Installs PostgreSQL (Debian's `postgresql` package) when no initdb is
# present: the store's PostgreSQL backend is tested, and benchmarked, against
# throw-away servers the tests start themselves (crm_store_postgres::throwaway).
# Needs root and apt-get; elsewhere, install PostgreSQL 15 or newer by hand.
set -euo pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || [ -n "${CRM_PG_BIN:-}" ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "PostgreSQL is missing: install Debian's postgresql package (or set CRM_PG_BIN)" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
ls /usr/lib/postgresql/*/bin/initdb
