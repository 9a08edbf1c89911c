// The ignore rules ripgrep applies by default, for the built-in engine (walk.ts). What counts,
// from strongest to weakest, each kind looked up from the innermost folder outwards:
//   .rgignore, .ignore (any folder, up to /), .gitignore (only in a git repository, up to and
//   including the folder that holds `.git`), .git/info/exclude, the global git excludes file
//   (core.excludesFile in ~/.gitconfig or $XDG_CONFIG_HOME/git/config, else
//   $XDG_CONFIG_HOME/git/ignore or ~/.config/git/ignore). Within one file the last matching
//   line wins; a `!` line un-ignores. This mirrors ripgrep's `ignore` crate (dir.rs).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { matchLast, parseIgnoreLine, type IgnoreGlob } from './gitignore-glob.js';
import { readRegularText, readRegularTextSync } from './read-rules-file.js';

const MAX_IGNORE_FILE_BYTES = 4 * 1024 * 1024;

/** The rules one folder brings. */
export interface DirRules {
  dir: string;
  /** The folder holds `.git` (a repository's top). */
  hasGit: boolean;
  rgignore: readonly IgnoreGlob[];
  ignore: readonly IgnoreGlob[];
  gitignore: readonly IgnoreGlob[];
  exclude: readonly IgnoreGlob[];
}

/** A folder's rules and those of every folder above it, innermost first. */
export interface RuleChain {
  rules: DirRules;
  parent: RuleChain | undefined;
  /** Some folder in the chain holds `.git`: .gitignore, exclude and global rules count. */
  inGit: boolean;
}

/** The global excludes file and the root its anchored lines are relative to (the search's root, as ripgrep's working folder). */
export interface GlobalRules {
  globs: readonly IgnoreGlob[];
  root: string;
}

function parseFile(text: string): IgnoreGlob[] {
  const out: IgnoreGlob[] = [];
  for (const line of text.split(/\r?\n/)) {
    const g = parseIgnoreLine(line);
    if (g) out.push(g);
  }
  return out;
}

async function readRules(file: string): Promise<IgnoreGlob[]> {
  const text = await readRegularText(file, MAX_IGNORE_FILE_BYTES);
  return text === undefined ? [] : parseFile(text);
}

/**
 * The rules of one folder. `names`: the folder's entries when already listed (spares three
 * failed opens per folder); undefined reads the folder's ignore files blindly (the folders above
 * the search root).
 */
export async function loadDirRules(dir: string, names: ReadonlySet<string> | undefined): Promise<DirRules> {
  const has = (n: string) => names === undefined || names.has(n);
  const hasGit = names === undefined ? existsSync(join(dir, '.git')) : names.has('.git');
  const [rgignore, ignore, gitignore, exclude] = await Promise.all([
    has('.rgignore') ? readRules(join(dir, '.rgignore')) : [],
    has('.ignore') ? readRules(join(dir, '.ignore')) : [],
    has('.gitignore') ? readRules(join(dir, '.gitignore')) : [],
    hasGit ? readRules(join(dir, '.git', 'info', 'exclude')) : [],
  ]);
  return { dir, hasGit, rgignore, ignore, gitignore, exclude };
}

export function chainOf(rules: DirRules, parent: RuleChain | undefined): RuleChain {
  return { rules, parent, inGit: rules.hasGit || (parent?.inGit ?? false) };
}

/** The chain for the folders above `root` (not `root` itself), from / down. */
export async function parentChain(root: string): Promise<RuleChain | undefined> {
  const dirs: string[] = [];
  for (let d = dirname(root); ; d = dirname(d)) {
    dirs.push(d);
    if (dirname(d) === d) break;
  }
  if (root === dirname(root)) dirs.length = 0;
  const loaded = await Promise.all(dirs.map((d) => loadDirRules(d, undefined)));
  let chain: RuleChain | undefined;
  for (let i = loaded.length - 1; i >= 0; i--) chain = chainOf(loaded[i]!, chain);
  return chain;
}

function relTo(dir: string, path: string): string | undefined {
  if (dir === '/') return path.slice(1);
  return path.startsWith(dir + '/') ? path.slice(dir.length + 1) : undefined;
}

/**
 * What the ignore files say of `path` (absolute) found in the folder whose chain is `chain`.
 * 'ignore' skips it (a folder: all of it), 'whitelist' or undefined keeps it.
 */
export function judge(chain: RuleChain | undefined, global: GlobalRules | undefined, path: string, isDir: boolean): 'ignore' | 'whitelist' | undefined {
  if (!chain) return undefined;
  // A repository anywhere above (or here) makes the git rules count; the nearest `.git` ends .gitignore's reach.
  const anyGit = chain.inGit;
  let mRg: 'ignore' | 'whitelist' | undefined;
  let mIg: typeof mRg;
  let mGi: typeof mRg;
  let mEx: typeof mRg;
  let sawGit = false;
  for (let c: RuleChain | undefined = chain; c; c = c.parent) {
    const r = c.rules;
    const rel = relTo(r.dir, path);
    if (rel !== undefined) {
      if (mRg === undefined && r.rgignore.length) mRg = matchLast(r.rgignore, rel, isDir);
      if (mIg === undefined && r.ignore.length) mIg = matchLast(r.ignore, rel, isDir);
      if (anyGit && !sawGit && mGi === undefined && r.gitignore.length) mGi = matchLast(r.gitignore, rel, isDir);
      if (anyGit && !sawGit && mEx === undefined && r.exclude.length) mEx = matchLast(r.exclude, rel, isDir);
    }
    sawGit ||= r.hasGit;
  }
  let mGlobal: typeof mRg;
  if (anyGit && global && global.globs.length) {
    const rel = relTo(global.root, path);
    if (rel !== undefined) mGlobal = matchLast(global.globs, rel, isDir);
  }
  return mRg ?? mIg ?? mGi ?? mEx ?? mGlobal;
}

/** Where git's global excludes file is, as ripgrep looks for it (HOME and XDG_CONFIG_HOME as given). */
export function globalExcludesPath(home: string, xdgConfigHome: string | undefined): string | undefined {
  const fromConfig = (file: string): string | undefined => {
    const text = readRegularTextSync(file, MAX_IGNORE_FILE_BYTES);
    if (text === undefined) return undefined;
    // As the ignore crate reads it: any `excludesfile = …` line, case-insensitively.
    const m = /^\s*excludesfile\s*=\s*"?\s*(\S+?)\s*"?\s*$/im.exec(text);
    if (!m) return undefined;
    const p = m[1]!;
    return p.startsWith('~/') ? join(home, p.slice(2)) : p === '~' ? home : p;
  };
  const xdgConfig = xdgConfigHome ? join(xdgConfigHome, 'git', 'config') : join(home, '.config', 'git', 'config');
  return (
    fromConfig(join(home, '.gitconfig')) ?? fromConfig(xdgConfig) ?? (xdgConfigHome ? join(xdgConfigHome, 'git', 'ignore') : join(home, '.config', 'git', 'ignore'))
  );
}

export async function loadGlobalRules(home: string, xdgConfigHome: string | undefined, root: string): Promise<GlobalRules | undefined> {
  const file = globalExcludesPath(home, xdgConfigHome);
  if (!file) return undefined;
  const globs = await readRules(file);
  return globs.length ? { globs, root } : undefined;
}
