#!/usr/bin/env bash
# The editors scripts/check-editor-recipes.sh drives, for a person checking the Neovim and Emacs
# recipes of docs/ide.md by hand (CI does not: the plugins are git repositories, not packages).
# - Emacs from apt (acp.el needs 28.1; agent-shell 29.1, which Debian 12 has in bookworm-backports).
# - Neovim >= 0.11 (CodeCompanion, avante and agentic.nvim need it). Debian 12 ships 0.7, so when
#   apt has nothing newer, Debian testing is bootstrapped into $EDITORS_DIR/testing and a shim
#   runs its nvim with testing's own loader and libraries ($EDITORS_DIR/bin/nvim).
# - The plugins are cloned into $EDITORS_DIR/plugins when git can reach them; otherwise put
#   checkouts there by hand (one folder per repository name).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
EDITORS_DIR="${EDITORS_DIR:-$CACHE/editors}"
mkdir -p "$EDITORS_DIR/bin" "$EDITORS_DIR/plugins"
export DEBIAN_FRONTEND=noninteractive

command -v emacs >/dev/null || apt-get install -y emacs-nox >&2

nvim_minor() { "$1" --version 2>/dev/null | sed -n 's/^NVIM v0\.\([0-9]*\).*/\1/p'; }
if [[ "$(nvim_minor nvim || true)" -ge 11 ]] 2>/dev/null; then
  ln -sf "$(command -v nvim)" "$EDITORS_DIR/bin/nvim"
else
  root="$EDITORS_DIR/testing"
  if [[ ! -x "$root/usr/bin/nvim" ]]; then
    command -v debootstrap >/dev/null || apt-get install -y debootstrap >&2
    # The mirror apt already uses, so nothing else is named here.
    mirror="$(grep -rhoE '(URIs:|deb) +https?://[^ ]+/debian/?' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null | head -1 | awk '{print $2}')"
    log "editors: bootstrapping Debian testing with neovim into $root (about 270 MB)"
    debootstrap --variant=minbase --include=neovim testing "$root" "$mirror" >&2
  fi
  cat >"$EDITORS_DIR/bin/nvim" <<SHIM
#!/bin/sh
# Debian testing's nvim, run with testing's own loader and libraries (scripts/setup/editors.sh).
R=$root
export VIMRUNTIME=\$R/usr/share/nvim/runtime
export LUA_CPATH="\$R/usr/lib/x86_64-linux-gnu/lua/5.1/?.so;;"
exec \$R/lib64/ld-linux-x86-64.so.2 --library-path \$R/usr/lib/x86_64-linux-gnu:\$R/lib/x86_64-linux-gnu \\
  \$R/usr/bin/nvim --cmd "set rtp+=\$R/usr/lib/nvim" "\$@"
SHIM
  chmod +x "$EDITORS_DIR/bin/nvim"
fi
"$EDITORS_DIR/bin/nvim" --version | head -1 >&2

for repo in olimorris/codecompanion.nvim nvim-lua/plenary.nvim yetone/avante.nvim MunifTanjim/nui.nvim \
  carlos-algms/agentic.nvim xenodium/acp.el xenodium/shell-maker xenodium/agent-shell; do
  dir="$EDITORS_DIR/plugins/${repo#*/}"
  [[ -d "$dir" ]] || git clone -q --depth 1 "https://github.com/$repo" "$dir" >&2 || log "editors: could not clone $repo; put a checkout at $dir"
done
echo "$EDITORS_DIR"
