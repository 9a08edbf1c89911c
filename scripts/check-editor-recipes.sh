#!/usr/bin/env bash
# Runs the Neovim and Emacs recipes of docs/ide.md for real: each editor, headless, starts the
# built `chimera ferret serve` (a scripted model, --approval suggest), sends one prompt, answers
# the permission question as its UI would, and reads the reply back from its own buffer.
#
#   scripts/setup/editors.sh                      # editors and plugin checkouts (once)
#   npm run build && scripts/check-editor-recipes.sh [codecompanion|avante|agentic|acp-el]...
#
# EDITORS_DIR (default .cache/editors) holds bin/nvim and plugins/<repo>; NVIM and EMACS
# override the binaries. A missing editor or plugin is a FAIL that says what is missing: nothing
# is skipped. Transcripts (the editor's chat buffer and the plugin's ACP log) go to $OUT_DIR.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
EDITORS_DIR="${EDITORS_DIR:-$ROOT/.cache/editors}"
NVIM="${NVIM:-$EDITORS_DIR/bin/nvim}"
EMACS="${EMACS:-emacs}"
PLUGINS="$EDITORS_DIR/plugins"
OUT_DIR="${OUT_DIR:-$(mktemp -d /tmp/ferret-editor-recipes-XXXXXX)}"
DRIVERS="$ROOT/scripts/editor-recipes"
[[ -f "$ROOT/dist/cli/main.js" ]] || { echo "build first: npm run build" >&2; exit 2; }

# `chimera` as the recipes name it, on PATH for the editors.
SHIM="$OUT_DIR/bin"
mkdir -p "$SHIM"
printf '#!/bin/sh\nexec node %q "$@"\n' "$ROOT/dist/cli/main.js" >"$SHIM/chimera"
chmod +x "$SHIM/chimera"

passed=0 failed=0
need() { # need WHAT PATH...: all present, or say what is missing
  local what="$1" p missing=()
  shift
  for p in "$@"; do [[ -e "$p" ]] || missing+=("$p"); done
  ((${#missing[@]} == 0)) || { echo "MISSING for $what: ${missing[*]}"; return 1; }
}

run() { # run NAME MODEL CMD...: a fresh workspace, ferret home and editor state
  local name="$1" model="$2" d
  shift 2
  d="$(mktemp -d "$OUT_DIR/$name-XXXX")"
  mkdir -p "$d/ws" "$d/home" "$d"/xdg/{state,data,cache,config}/nvim
  cp "$DRIVERS/$model" "$d/ws/model.json"
  (cd "$d/ws" && PATH="$SHIM:$PATH" CHIMERA_HOME="$d/home" FERRET_MODEL="scripted:$d/ws/model.json" \
    XDG_STATE_HOME="$d/xdg/state" XDG_DATA_HOME="$d/xdg/data" XDG_CACHE_HOME="$d/xdg/cache" XDG_CONFIG_HOME="$d/xdg/config" \
    RECIPE_PLUGINS="$PLUGINS" RECIPE_OUT="$OUT_DIR/$name.txt" RECIPE_ACP_LOG="$OUT_DIR/$name.acp.log" \
    timeout 120 "$@" >"$OUT_DIR/$name.stderr" 2>&1)
  local rc=$?
  if ((rc == 0)); then
    passed=$((passed + 1)); echo "PASS $name ($OUT_DIR/$name.txt)"
  else
    failed=$((failed + 1)); echo "FAIL $name (exit $rc): $OUT_DIR/$name.txt, $OUT_DIR/$name.stderr"
  fi
}

check() {
  case "$1" in
    codecompanion | avante | agentic)
      local deps=(plenary.nvim codecompanion.nvim)
      [[ "$1" == avante ]] && deps=(plenary.nvim nui.nvim avante.nvim)
      [[ "$1" == agentic ]] && deps=(agentic.nvim)
      if need "$1" "$NVIM" "${deps[@]/#/$PLUGINS/}"; then
        run "$1" model.json "$NVIM" --headless --clean -u "$DRIVERS/$1.lua"
      else failed=$((failed + 1)); fi ;;
    acp-el)
      if need acp-el "$PLUGINS/acp.el/acp.el" && command -v "$EMACS" >/dev/null; then
        run acp-el model-acp-el.json "$EMACS" --batch -Q -L "$PLUGINS/acp.el" -l "$DRIVERS/acp-el.el"
      else echo "MISSING for acp-el: $EMACS or $PLUGINS/acp.el"; failed=$((failed + 1)); fi ;;
    *) echo "unknown recipe $1 (codecompanion, avante, agentic, acp-el)" >&2; exit 2 ;;
  esac
}

(($# > 0)) || set -- codecompanion avante agentic acp-el
for r in "$@"; do check "$r"; done
echo "$passed passed, $failed failed"
((failed == 0))
