// What the sandbox remembers between calls, with an owner and a lifetime: the caches that make
// the command path cheap (a measured 35% of its CPU) live here, not in module globals.
// - HostFacts: one per server, made by createCore from the configuration it was given (read once
//   by the CLI): the state roots, config.json's env.pass, programs found on PATH, the bwrap probe,
//   the placeholders this server holds.
// - WorkspaceFacts: one per workspace, from host.workspace(ws): what is protected in it (state
//   blocks, root names the host runs) and its latest `.git` scan.
import { homedir } from 'node:os';
import { setBounded } from '../util/bounded-map.js';
import type { DirIndex } from './paths/dir-index.js';
import { DEFAULT_WEB_CHOICE, type WebChoice } from './net/web-policy.js';

export interface HostFactsOptions {
  /**
   * The server's environment as data (the CLI reads it once). Read here, once: CHIMERA_HOME (a
   * state root), XDG_CONFIG_HOME (git's global config), XDG_RUNTIME_DIR (masked in the sandbox)
   * and PATH (where the probe looks for bwrap).
   */
  env: NodeJS.ProcessEnv;
  /** ferret's state roots (the core's CHIMERA_HOME); ~/.chimera and the environment's CHIMERA_HOME are always protected. */
  stateRoots?: readonly string[];
  /** config.json's env.pass: names (a trailing `*` matches a prefix) every command receives. */
  commandEnvPass?: readonly string[];
  /** The user's home folder; default os.homedir(). */
  home?: string;
  /** Which engine grep and glob use: 'auto' (ripgrep when found, default), 'ripgrep' (required), 'builtin'. */
  searchEngine?: SearchEngineChoice;
  /** config.json's sandbox.readOutside: under read-only, 'ask' (default) before a command reads outside the workspace, or 'allow'. */
  readOutside?: ReadOutsideChoice;
  /** config.json's sandbox.unixSockets: 'block' (default) hides sockets under the home folder from confined commands, 'allow' leaves them. */
  unixSockets?: UnixSocketsChoice;
  /** config.json's webFetch: hosts fetched without asking, and which may be private addresses (net/web-policy.ts). */
  web?: WebChoice;
}

export type ReadOutsideChoice = 'ask' | 'allow';
export type UnixSocketsChoice = 'block' | 'allow';

export type SearchEngineChoice = 'auto' | 'ripgrep' | 'builtin';

/** What the search probe found: ripgrep (and whether it has PCRE2), or why the built-in engine runs. */
export type SearchProbe = { kind: 'ripgrep'; path: string; pcre2: boolean; version: string } | { kind: 'builtin'; reason: string };

export type BwrapProbe = { ok: true; path: string } | { ok: false; reason: string };

/** Every `.git` found in a workspace (paths/git-scan.ts): a fact the file tools and the command sandbox share. */
export interface GitScan {
  workspace: string;
  /** Every `.git` entry found (any depth), keyed by path, with its inode identity (dev:ino). */
  git: Map<string, string>;
  /** False when the folder budget ran out before the whole tree was read, or a folder could not be read. */
  complete: boolean;
  /** The workspace's own entries, lower-cased (undefined when it could not be read, or see rootListing). */
  rootNames?: Set<string>;
  /** The walk gave the event loop a turn (a large tree): what it saw first may be that old. */
  yielded?: true;
  at: number;
}

/** Workspaces whose facts are kept, the least recently added dropped first. */
const MAX_WORKSPACES = 64;

export class HostFacts {
  readonly home: string;
  readonly chimeraHome: string | undefined;
  readonly xdgConfigHome: string | undefined;
  readonly xdgRuntimeDir: string | undefined;
  readonly path: string | undefined;
  /** Protected state roots as given (protectStateRoot; paths/state-roots.ts reads them). */
  readonly stateRoots = new Set<string>();
  /** Bumped when a state root is added: state blocks worked out before are stale. */
  rootsVersion = 0;
  /** Each state root's real path, resolved once (a root exists from start-up on). */
  readonly realRoots = new Map<string, string>();
  /** config.json's env.pass (confine/confine.ts). */
  readonly commandEnvPass: string[] = [];
  /** Programs found (bash, bwrap), each trusted for a moment (confine/confine.ts findExecutable). */
  readonly found = new Map<string, { file: string; at: number }>();
  /** Which engine grep and glob use (tools/search/engine.ts), and its probe, run once. */
  readonly searchEngine: SearchEngineChoice;
  searchProbe: Promise<SearchProbe> | undefined;
  /** The bwrap probe, run once. */
  probe: Promise<BwrapProbe> | undefined;
  /** What the probe learnt: flags the installed bwrap does not know are left out (--disable-userns < 0.8). */
  supportsDisableUserns = true;
  /** The home folder's real path, resolved on first use. */
  realHome: string | undefined;
  /** Whether read-only asks before a command reads outside the workspace (paths/read-reach.ts). */
  readonly readOutside: ReadOutsideChoice;
  /** Whether confined commands may reach Unix sockets under the home folder (confine/home-masks.ts). */
  readonly unixSockets: UnixSocketsChoice;
  /** What web_fetch may reach without asking, and which hosts may be private (net/web-policy.ts). */
  readonly web: WebChoice;
  /** The secret locations of this host (paths/secret-paths.ts), worked out once. */
  secretLocations: readonly string[] | undefined;
  /** Unix sockets found under the home folder, masked in the sandbox (confine/home-masks.ts), and when. */
  homeSockets: { at: number; list: readonly string[]; ready: Promise<void> } | undefined;
  /**
   * Placeholder holds by path (confine/workspace-guard.ts). Here, not per workspace: a hold must
   * outlive any workspace's facts being dropped from the bounded table.
   */
  readonly placeholders = new Map<string, number>();
  private readonly workspaces = new Map<string, WorkspaceFacts>();

  constructor(opts: HostFactsOptions) {
    this.home = opts.home ?? homedir();
    this.chimeraHome = opts.env['CHIMERA_HOME'] || undefined;
    this.xdgConfigHome = opts.env['XDG_CONFIG_HOME'] || undefined;
    this.xdgRuntimeDir = opts.env['XDG_RUNTIME_DIR'] || undefined;
    this.path = opts.env['PATH'];
    this.searchEngine = opts.searchEngine ?? 'auto';
    this.readOutside = opts.readOutside ?? 'ask';
    this.unixSockets = opts.unixSockets ?? 'block';
    this.web = opts.web ?? DEFAULT_WEB_CHOICE;
    for (const r of opts.stateRoots ?? []) this.stateRoots.add(r);
    for (const n of opts.commandEnvPass ?? []) if (!this.commandEnvPass.includes(n)) this.commandEnvPass.push(n);
  }

  /** Protects a state root (a CHIMERA_HOME) for the life of the server: file tools refuse it, commands do not see it. */
  protectStateRoot(dir: string): void {
    this.stateRoots.add(dir);
    this.realRoots.delete(dir);
    this.rootsVersion++;
  }

  /** The facts of one workspace (a real path): the same object while it stays in the table. */
  workspace(ws: string): WorkspaceFacts {
    return this.workspaces.get(ws) ?? setBounded(this.workspaces, ws, new WorkspaceFacts(this, ws), MAX_WORKSPACES);
  }
}

export class WorkspaceFacts {
  /** The state folders off limits here, and the rootsVersion they were worked out at (paths/state-roots.ts). */
  stateBlocks: { version: number; blocks: readonly string[] } | undefined;
  /** The root (and home) entries the host runs, as absolute paths (paths/host-meta.ts). */
  rootRunPaths: readonly string[] | undefined;
  /** The latest `.git` scan (paths/git-scan.ts). */
  gitScan: GitScan | undefined;
  /** The folders the guard has read, refreshed by change time (paths/dir-index.ts); rebuilt when its key (budget, state blocks) changes. */
  dirIndex: { key: string; index: DirIndex } | undefined;

  constructor(
    readonly host: HostFacts,
    readonly workspace: string,
  ) {}
}

/** The sandbox's memory for one server; createCore makes it, tests make their own. */
export function createHostFacts(opts: HostFactsOptions): HostFacts {
  return new HostFacts(opts);
}
