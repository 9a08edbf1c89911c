// What a call may read that goes beyond the workspace: a secret location (secret-paths.ts), or,
// for read-only's "ask before reading outside" (config sandbox.readOutside), any path outside the
// workspace. File tools are judged by the real paths they were given; commands by the words that
// may name a file (bash/path-words.ts), resolved against the workspace and the home folder.
import { isAbsolute, join, posix } from 'node:path';
import { isInside } from '../../protocol/index.js';
import type { WorkspaceFacts } from '../facts.js';
import { UNKNOWN, type CommandWords, type PathWord } from '../bash/path-words.js';
import { stateBlocks } from './state-roots.js';
import { holdsSecretLocation, inSecretLocation, SECRET_HOME_PATHS } from './secret-paths.js';

export interface ReadReach {
  /** The secret location the call may read (or walk into), as shown to the person. */
  secret?: string;
  /** A path outside the workspace the call may read (only looked for when asked: read-only). */
  outside?: string;
}

/** File tools: a real path in a secret location. A folder that merely holds one is walked past (grep, glob). */
export function filesReach(facts: WorkspaceFacts, reals: readonly string[]): ReadReach {
  for (const r of reals) if (inSecretLocation(facts.host, r)) return { secret: r };
  return {};
}

/** Outside the workspace yet harmless to read: the sandbox's private temp and the usual devices. */
const HARMLESS = /^\/(dev\/(null|zero|u?random|full|stdin|stdout|stderr|tty|fd(\/.*)?)|tmp(\/.*)?|var\/tmp(\/.*)?)$/;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NAMES = [...SECRET_HOME_PATHS, '.chimera'].map(escape).join('|');
/** A secret location's name after a `/` or `~`: `$x/.ssh/id_rsa`, `~/.aws`, a glob over the home folders. */
const AFTER_SLASH = new RegExp(`[/~](?:${NAMES})(?=$|[^\\w.-])`);
/** The same at the start of a relative word (`cd; cat .ssh/id_rsa`). */
const AT_START = new RegExp(`^(?:\\./)?(?:${NAMES})(?=$|[^\\w.-])`);
const GLOB_OR_UNKNOWN = /[*?[\0]/;

/**
 * Commands: the first secret location (and, with `outside`, the first outside path) that a word
 * of the command may name. A word whose path is only partly known counts by its known folder:
 * `~/.s*` may be `~/.ssh`, `~/$x` anything in the home folder.
 */
export function commandReach(facts: WorkspaceFacts, cw: CommandWords, outside: boolean): ReadReach {
  const out: ReadReach = {};
  for (const w of cw.words) {
    for (const token of tokensOf(w)) {
      judgeToken(facts, cw, w, token, outside, out);
      if (out.secret !== undefined && (!outside || out.outside !== undefined)) return out;
    }
  }
  return out;
}

/** The word, and for strings that may be code (`bash -c '…'`, `--key=~/x`) each piece of it. */
function tokensOf(w: PathWord): string[] {
  const all = [w.value];
  if (w.code) {
    for (const t of w.value.split(/[\s;&|()`<>'"]+/)) {
      if (t && t !== w.value) all.push(t);
      const eq = t.indexOf('=');
      if (eq >= 0 && eq < t.length - 1) all.push(t.slice(eq + 1));
    }
  }
  return all.filter((t) => t.length > 0);
}

function judgeToken(facts: WorkspaceFacts, cw: CommandWords, w: PathWord, token: string, outside: boolean, out: ReadReach): void {
  const host = facts.host;
  const ws = facts.workspace;
  let abs: string | undefined;
  if (token === '~' || token.startsWith('~/')) abs = host.home + token.slice(1);
  else if (token.startsWith('~')) {
    // `~user`, `~+`, `~-`: another home, or a folder this check cannot follow.
    out.secret ??= token;
    return;
  } else if (isAbsolute(token)) abs = token;
  else if (!token.startsWith(UNKNOWN) && !cw.changesDir) abs = join(ws, token);

  if (abs === undefined) {
    // Where the path starts is only known at run time: judge it by the names in it.
    const bare = cw.changesDir && !token.startsWith(UNKNOWN);
    if (AFTER_SLASH.test(token) || (bare && AT_START.test(token))) out.secret ??= shown(token);
    // A `cd` to a place only known at run time leaves every relative word unplaced.
    if (outside && w.cd && !w.program) out.outside ??= shown(token);
    return;
  }
  const cut = abs.search(GLOB_OR_UNKNOWN);
  const open = cut >= 0;
  const fixed = posix.normalize(open ? abs.slice(0, abs.lastIndexOf('/', cut) + 1) || '/' : abs);
  const known = fixed.length > 1 ? fixed.replace(/\/+$/, '') : fixed;
  const state = stateBlocks(facts);
  const hit = inSecretLocation(host, known) ?? holdsSecretLocation(host, known) ?? state.find((b) => isInside(b, known) || isInside(known, b));
  if (hit !== undefined) out.secret ??= shown(token);
  if (outside && !w.program && !isInside(ws, known) && !HARMLESS.test(known)) out.outside ??= shown(token);
}

function shown(token: string): string {
  return token.split(UNKNOWN).join('…');
}
