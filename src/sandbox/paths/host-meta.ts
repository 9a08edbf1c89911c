// Repository metadata that the host runs later, without being asked: git's (hooks, config with
// core.fsmonitor, a `gitdir:` target, the core.hooksPath folder, scripts the config names) and
// the files editors and other agents run on opening a folder. A model that writes one of these
// gets code run on the user's machine at their next `git status`, commit or folder open, outside
// every sandbox. The one list here is used by the file tools (refuse or ask) and by the command
// sandbox (read-only binds), so the two agree. docs/security.md explains each entry.
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { isInside } from '../../protocol/index.js';
import type { HostFacts, WorkspaceFacts } from '../facts.js';
import { recentGit } from './git-scan.js';
import { lstatOrUndefined, readSmallFileSync, realPathOf } from './real-path.js';

/**
 * Workspace-root names that other tools run or load on the host. `.git` is also protected at
 * every depth (see isGitPath).
 */
export const HOST_RUN_NAMES: readonly string[] = [
  '.git', // hooks, config (core.fsmonitor runs on `git status`), info/attributes filters
  '.hg', // Mercurial: hgrc hooks and extensions run on `hg status`
  '.jj', // Jujutsu: repo config
  '.vscode', // tasks.json (runOn: folderOpen), settings.json, launch.json, mcp.json
  '.idea', // JetBrains run configurations and startup tasks
  '.devcontainer', // initializeCommand runs on the host
  '.devcontainer.json',
  '.envrc', // direnv
  '.husky', // git hooks through core.hooksPath
  '.claude', // Claude Code settings: hooks run on the host
  '.mcp.json', // project MCP servers (Claude Code, others)
  '.codex', // Codex project config
  '.cursor', // Cursor rules and MCP servers
  '.ferret', // ferret's own project folder
  '.chimera',
  '.pre-commit-config.yaml', // pre-commit hooks
  '.npmrc', // script-shell, node-options, git: the next `npm` run
  '.yarnrc.yml', // yarnPath: the next `yarn` run
  '.pnpmfile.cjs', // runs on `pnpm install`
];

/** Missing names that get an empty read-only placeholder for the life of a command (see confine.ts). */
export const PLACEHOLDER_NAMES: readonly string[] = ['.git'];

/** When the workspace holds the user's home folder: the home's own start-up files and configs. */
export const HOME_RUN_NAMES: readonly string[] = [
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zshenv', '.zprofile',
  '.zlogin', '.zlogout', '.inputrc', '.gitconfig', '.config', '.ssh', '.gnupg', '.local', '.npmrc', '.pypirc',
  '.netrc', '.docker', '.kube', '.aws', '.cargo', '.bin',
];

/** Why a path is protected: `git` metadata stays read-only under workspace-write; `auto-run` files are asked for. */
export interface HostMeta {
  kind: 'git' | 'auto-run';
  /** A short human description: ".git metadata", "the core.hooksPath folder", ".vscode (…)". */
  what: string;
}

const lower = (s: string) => s.toLowerCase();

/** Whether any component of the path is `.git` (any depth; case-insensitively, for case-folding file systems). */
export function isGitPath(p: string): boolean {
  return p.split(sep).some((c) => lower(c) === '.git');
}

/** The workspace-root (or home) entries that count as protected for a workspace, as absolute paths. */
export function rootRunPaths(facts: WorkspaceFacts): readonly string[] {
  // Asked three times per command (before, for the binds, after): kept with the workspace's facts.
  if (facts.rootRunPaths) return facts.rootRunPaths;
  const ws = facts.workspace;
  const out = HOST_RUN_NAMES.map((n) => join(ws, n));
  const home = realHome(facts.host);
  if (isInside(ws, home)) for (const n of HOME_RUN_NAMES) out.push(join(home, n));
  return (facts.rootRunPaths = Object.freeze(out));
}

/**
 * What the host would run from `real`, a real path a file tool is about to write, in a workspace
 * `ws` (also a real path). Undefined when nothing is known to run it.
 */
export function hostMetaOf(facts: WorkspaceFacts, real: string): HostMeta | undefined {
  const ws = facts.workspace;
  const host = facts.host;
  const inside = isInside(ws, real);
  if (isGitPath(inside ? relative(ws, real) : real)) return { kind: 'git', what: '.git metadata' };
  if (inside) {
    const first = relative(ws, real).split(sep)[0] ?? '';
    const name = HOST_RUN_NAMES.find((n) => lower(n) === lower(first));
    if (name) return { kind: 'auto-run', what: `${name} (other tools run it on this machine)` };
  }
  const home = realHome(host);
  if (isInside(home, real) && real !== home) {
    const first = relative(home, real).split(sep)[0] ?? '';
    const name = HOME_RUN_NAMES.find((n) => lower(n) === lower(first));
    if (name) return { kind: 'auto-run', what: `~/${name} (your shell, git or other tools load it)` };
  }
  // git metadata that does not carry the name: a `gitdir:` target, the common dir, the
  // core.hooksPath folder, scripts the config runs; of the workspace's repository, of any
  // repository the path is inside, and of the nested ones the latest scan found.
  const roots = new Set<string>([ws]);
  if (inside) for (const p of [...recentGit(facts).git.keys()].slice(0, MAX_NESTED)) roots.add(dirname(p));
  for (let d = dirname(real); ; d = dirname(d)) {
    if (looksLikeGitDir(d)) return { kind: 'git', what: `a git directory (${d})` };
    if (inside && d !== ws && lstatOrUndefined(join(d, '.git'))) roots.add(d);
    if (d === ws || dirname(d) === d) break;
  }
  for (const root of roots) {
    for (const t of repoTargets(host, root)) {
      if (isInside(t.path, real)) return { kind: 'git', what: t.what };
    }
  }
  return undefined;
}

function realHome(host: HostFacts): string {
  return (host.realHome ??= realPathOf(host.home));
}

/** Nested repositories whose pointers a file tool's check follows (the nearest first). */
const MAX_NESTED = 64;

/**
 * What git itself would take for repository storage: objects/ and refs/ (a git or common
 * directory; git checks both), or HEAD with a commondir file (a worktree's git directory).
 */
export function looksLikeGitDir(d: string): boolean {
  if (lstatOrUndefined(join(d, 'objects'))?.isDirectory() && lstatOrUndefined(join(d, 'refs'))?.isDirectory()) return true;
  return lstatOrUndefined(join(d, 'HEAD')) !== undefined && lstatOrUndefined(join(d, 'commondir')) !== undefined;
}

export interface RepoTarget {
  path: string;
  what: string;
}

/**
 * For the repository whose worktree root is `root` (it has a `.git`): the real paths of its
 * metadata that the name `.git` does not cover. Empty when `root` has no `.git`.
 */
export function repoTargets(host: HostFacts, root: string): RepoTarget[] {
  const dotGit = join(root, '.git');
  const st = lstatOrUndefined(dotGit);
  if (!st) return [];
  const out: RepoTarget[] = [];
  let gitDir = dotGit;
  if (st.isFile()) {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readSmallFileSync(dotGit, 64 * 1024) ?? '');
    if (!m?.[1]) return [];
    gitDir = resolve(root, m[1]);
    out.push({ path: realPathOf(gitDir), what: `the git directory ${m[1]} that ${dotGit} points to` });
  } else if (st.isSymbolicLink()) {
    gitDir = realPathOf(dotGit);
    out.push({ path: gitDir, what: `the git directory ${dotGit} links to` });
  }
  let commonDir = gitDir;
  const common = readSmallFileSync(join(gitDir, 'commondir'), 64 * 1024, true)?.trim();
  if (common) {
    commonDir = resolve(gitDir, common);
    out.push({ path: realPathOf(commonDir), what: `the git common directory ${common}` });
  }
  const configs = [join(commonDir, 'config'), join(gitDir, 'config'), join(gitDir, 'config.worktree'), ...globalGitConfigs(host)];
  for (const entry of readGitConfigs(host, configs)) {
    const target = targetOf(host, entry, root);
    // A target that holds the worktree itself (`core.hooksPath = .`) cannot be made read-only
    // without the whole workspace; the name checks still cover .git there.
    if (target && !isInside(target.path, root)) out.push(target);
  }
  return out;
}

function globalGitConfigs(host: HostFacts): string[] {
  const home = host.home;
  const xdg = host.xdgConfigHome || join(home, '.config');
  return [join(home, '.gitconfig'), join(xdg, 'git', 'config'), '/etc/gitconfig'];
}

/** Config keys whose value is a command git (or git's helpers) runs: its program, if a path, must stay put. */
const COMMAND_KEYS = [
  /^core\.(fsmonitor|pager|editor|sshcommand|askpass|hookspath)$/,
  /^sequence\.editor$/,
  /^diff\.external$/,
  /^(diff|merge|filter|difftool|mergetool)\..+\.(textconv|command|driver|clean|smudge|process|cmd|path)$/,
  /^credential(\..+)?\.helper$/,
  /^gpg(\..+)?\.program$/,
  /^alias\..+$/,
  /^(sendemail\.(smtpserver|sendmailcmd)|web\.browser|browser\..+\.(cmd|path)|man\..+\.(cmd|path))$/,
  /^(uploadpack\.packobjectshook|receive\.procreceiverefs|core\.gitproxy|http\..*sslkey.*)$/,
];

function targetOf(host: HostFacts, e: ConfigEntry, root: string): RepoTarget | undefined {
  if (!COMMAND_KEYS.some((re) => re.test(e.key))) return undefined;
  let v = e.value.trim();
  if (e.key === 'core.hookspath') {
    const dir = expandPath(host, v, root);
    return dir ? { path: realPathOf(dir), what: `the core.hooksPath folder ${v}` } : undefined;
  }
  if (e.key.startsWith('alias.')) {
    if (!v.startsWith('!')) return undefined;
    v = v.slice(1).trim();
  }
  // The program of a shell command line: its first word, when it names a file by path.
  const first = /^(?:"([^"]+)"|'([^']+)'|(\S+))/.exec(v);
  const word = first?.[1] ?? first?.[2] ?? first?.[3];
  if (!word || !word.includes('/')) return undefined;
  const file = expandPath(host, word, root);
  return file ? { path: realPathOf(file), what: `${word}, which git runs for ${e.key}` } : undefined;
}

function expandPath(host: HostFacts, v: string, root: string): string | undefined {
  if (!v) return undefined;
  if (v === '~' || v.startsWith('~/')) return join(host.home, v.slice(1));
  return isAbsolute(v) ? v : resolve(root, v);
}

interface ConfigEntry {
  key: string; // section[.subsection].name, lower-cased except the subsection
  value: string;
}

/** Entries of git config files and the files they include (include.path, includeIf.*.path), a few levels deep. */
function readGitConfigs(host: HostFacts, files: string[]): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  const seen = new Set<string>();
  const visit = (file: string, depth: number) => {
    if (depth > 5 || seen.has(file)) return;
    seen.add(file);
    const text = readSmallFileSync(file, 1 << 20, true);
    if (text === undefined) return;
    for (const e of parseGitConfig(text)) {
      out.push(e);
      // Every includeIf is followed whatever its condition: protecting too much costs nothing.
      if (/^include(if\..+)?\.path$/.test(e.key)) {
        const inc = expandPath(host, e.value.trim(), dirname(file));
        if (inc) visit(inc, depth + 1);
      }
    }
  };
  for (const f of files) visit(f, 0);
  return out;
}

/** A forgiving git-config reader: sections, subsections, quoted values, comments, continuations. */
export function parseGitConfig(text: string): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  let section = '';
  const lines = text.replace(/\\\r?\n/g, '').split(/\r?\n/);
  for (const raw of lines) {
    let line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[\s*([^\]\s"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(line);
    if (head) {
      const [name = '', ...legacy] = head[1]!.split('.');
      const sub = head[2] !== undefined ? head[2].replace(/\\(.)/g, '$1') : legacy.length ? legacy.join('.') : undefined;
      section = sub !== undefined ? `${lower(name)}.${sub}` : lower(name);
      line = head[3]!.trim();
      if (!line) continue;
    }
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
    if (!kv || !section) continue;
    out.push({ key: `${section}.${lower(kv[1]!)}`, value: kv[2] === undefined ? 'true' : unquote(kv[2]) });
  }
  return out;
}

function unquote(v: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c === '\\' && i + 1 < v.length) {
      const n = v[++i]!;
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n;
    } else if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '#' || c === ';')) break;
    else out += c;
  }
  return out.trim();
}
