#!/usr/bin/env bash
# Everything the test suite drives for real, installed once and cached (`npm test` runs this
# first through `pretest`, so the README's test command works on a fresh machine): bubblewrap,
# ripgrep (grep and glob run it, and their tests compare it with the built-in engine),
# redis-server (fleet tests), code-server + Node 24 + chromium + playwright-core (the VS Code
# extension's e2e), acpx + Node 22 (the ACP client matrix), chromium for the web console's test.
# Each step is a no-op when its cache is current.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if ! command -v bwrap >/dev/null 2>&1; then
  log "bubblewrap: installing"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) >/dev/null
fi
if ! command -v rg >/dev/null 2>&1; then
  log "ripgrep: installing"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ripgrep) >/dev/null
fi
[[ -f "$SETUP_DIR/redis.sh" ]] && bash "$SETUP_DIR/redis.sh"
bash "$SETUP_DIR/vscode-e2e.sh"
bash "$SETUP_DIR/acp-clients.sh"
bash "$ROOT/test/console/setup.sh"
