#!/usr/bin/env bash
# What the console's browser test (test/console/console.e2e.test.ts) needs: Debian's chromium
# and playwright-core in .cache/playwright. It runs the shared setup steps the VS Code e2e test
# uses too (scripts/setup/), so nothing is installed twice; idempotent, a few seconds when done.
set -euo pipefail
SETUP="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../scripts/setup" && pwd)"
"$SETUP/debian.sh"
"$SETUP/playwright.sh"
