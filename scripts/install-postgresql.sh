#!/usr/bin/env bash
# Installs PostgreSQL (Debian's `postgresql` package) and pg_auto_failover
# (`postgresql-15-auto-failover`) when they are missing: the store's
# PostgreSQL backend is tested, and benchmarked, against throw-away servers
# the tests start themselves (crm_store_testkit::throwaway), and the loss of
# a primary against a throw-away pg_auto_failover cluster
# (scripts/pg-failover-cluster.sh). Needs root and apt-get; elsewhere,
# install PostgreSQL 15 or newer and pg_auto_failover by hand.
set -euo pipefail
have_postgresql() { ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || [ -n "${CRM_PG_BIN:-}" ]; }
have_auto_failover() { command -v pg_autoctl >/dev/null 2>&1; }
if have_postgresql && have_auto_failover; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "PostgreSQL or pg_auto_failover is missing: install Debian's postgresql and postgresql-15-auto-failover packages (or set CRM_PG_BIN)" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql postgresql-15-auto-failover >/dev/null
ls /usr/lib/postgresql/*/bin/initdb && command -v pg_autoctl
