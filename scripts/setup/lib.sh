# Shared by the setup scripts: paths and an idempotent "npm ci into .cache/NAME" step.
# Everything lands under .cache/ in the clone (gitignored); nothing is installed globally.
set -euo pipefail
SETUP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$SETUP_DIR/../.." && pwd)"
CACHE="$ROOT/.cache"
mkdir -p "$CACHE"

log() { printf '[setup] %s\n' "$*" >&2; }

# cache_install NAME: copies scripts/setup/NAME/package{,-lock}.json into .cache/NAME and runs
# `npm ci` there, unless the stamp says this very lockfile is already installed.
cache_install() {
  local name="$1" src="$SETUP_DIR/$1" dest="$CACHE/$1"
  local want
  want="$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)"
  if [[ -f "$dest/.installed" && "$(cat "$dest/.installed")" == "$want" ]]; then
    log "$name: up to date"
    return 0
  fi
  log "$name: installing into ${dest#"$ROOT"/}"
  rm -rf "$dest"
  mkdir -p "$dest"
  cp "$src/package.json" "$src/package-lock.json" "$dest/"
  (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" >"$dest/.installed"
}
