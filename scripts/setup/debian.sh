#!/usr/bin/env bash
# Debian packages for the VS Code end-to-end test: chromium (the browser playwright-core drives;
# no browser download is possible here) and the headers code-server's native modules build against.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PACKAGES=(chromium libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  log "debian packages: up to date"
  exit 0
fi
log "debian packages: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
