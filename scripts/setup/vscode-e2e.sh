#!/usr/bin/env bash
# Everything the VS Code end-to-end test (test/vscode/extension.e2e.test.ts) needs, into .cache/
# (and the extension's own node_modules): Debian's chromium and build headers, Node 24,
# code-server, playwright-core. Idempotent: a second run takes a few seconds. .ci/run calls it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start=$SECONDS
"$SETUP_DIR/debian.sh"
"$SETUP_DIR/code-server.sh"   # runs node24.sh first
"$SETUP_DIR/playwright.sh"
node "$ROOT/extensions/vscode/scripts/package.mjs" --deps-only
log "vscode e2e tools ready ($((SECONDS - start)) s)"
