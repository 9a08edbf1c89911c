#!/usr/bin/env bash
# redis-server for the fleet-mode store's tests (src/store/redis/, test/support/redis.mjs start a
# private one on a free loopback port): the Debian package, installed once. Idempotent and quiet.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if command -v redis-server >/dev/null 2>&1; then
  log "redis-server: up to date ($(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p'))"
  exit 0
fi
log "redis-server: installing the Debian package"
# `apt-get update` only when the package lists do not know redis-server yet (a fresh image).
if ! apt-cache show redis-server >/dev/null 2>&1; then
  apt-get update -qq
fi
# redis-tools (redis-cli) comes with it. The tests never use the package's own service (port 6379):
# each starts a private redis-server (test/support/redis.mjs).
# Quiet: apt's and debconf's chatter is shown only when the install fails.
if ! out="$(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server 2>&1)"; then
  printf '%s\n' "$out" >&2
  exit 1
fi
command -v redis-server >/dev/null 2>&1 || {
  log "redis-server: still missing after apt-get install"
  exit 1
}
