#!/usr/bin/env bash
# playwright-core (the driver only; it never downloads a browser) into .cache/playwright.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cache_install playwright
