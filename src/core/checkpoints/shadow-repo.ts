// The workspace recorded in a private git repository: a snapshot is a commit of every file git
// would take (the workspace's .gitignore honoured, files over a size cap left out), so equal
// contents are stored once and an unchanged tree costs one stat per file (git's index). Restoring
// writes exactly the files two snapshots disagree on, byte for byte, through git, which refuses
// to write through a symlinked folder.
import { promises as fsp } from 'node:fs';
import { ChangeJournal } from '../../sandbox/index.js';
import { isAbsolute, join, relative } from 'node:path';
import { git, zList, type ShadowPlace } from './git-run.js';
import { isBigRepo, seedObjects, workspaceRepo, type WorkspaceRepo } from './seed-objects.js';
import { sortChanges } from './sort-changes.js';

/** A file larger than this is not recorded (and a restore leaves it as it is). */
export const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;

export interface ShadowOptions {
  /** Folders inside the workspace never recorded (ferret's own state, when CHIMERA_HOME is in it). */
  leaveOut?: readonly string[];
  /** A file larger than this is not recorded. */
  maxFileBytes?: number;
  /** Whether snapshots consult a change journal: 'auto' does in a big git repository. */
  journal?: 'auto' | 'on' | 'off';
  /** Where borrowed packs, once verified, are kept for other sessions (seed-objects.ts). */
  packCache?: string;
}

export interface Snapshot {
  commit: string;
  /** Files left out for their size. */
  skipped: string[];
}

const SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ['core.bare', 'false'],
  ['core.autocrlf', 'false'],
  ['core.symlinks', 'true'],
  ['core.fileMode', 'true'],
  ['core.quotePath', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.untrackedCache', 'true'],
  ['gc.auto', '0'],
  // In a big repository the index is megabytes, read and written by every step of a snapshot:
  // version 4 compresses its paths, and a split index writes only what changed since the shared
  // part (a narrowed snapshot's git steps: 120 ms to 55 ms in the 100,000-file bench tree).
  ['index.version', '4'],
  ['core.splitIndex', 'true'],
];

/** Never recorded: a package manager restores them, and they hold more files than the project. */
const NEVER = ['node_modules'];

/** A turn's first look lists the whole tree when the last whole listing is older than this. */
const WHOLE_EVERY_MS = 60_000;

/** A snapshot narrowed to more folders than this lists the whole tree instead (git compares each file with each). */
const MAX_SCOPE = 64;

/** Byte-exact: no end-of-line conversion, filter, ident or encoding a workspace's .gitattributes asks for. */
const ATTRIBUTES = '* -text -filter -ident -working-tree-encoding\n';

export class ShadowRepo {
  private ready: Promise<void> | undefined;
  private head: string | undefined;
  private headTree: string | undefined;
  /** One git at a time: they share the shadow index. */
  private queue: Promise<unknown> = Promise.resolve();
  /** In a big repository: which folders changed since the last snapshot, so a snapshot lists only those. */
  private journal: ChangeJournal | undefined;
  /** The last snapshot did not finish: what the journal reported then was not recorded, so the next lists everything. */
  private unsure = true;
  private repo: Promise<WorkspaceRepo | undefined> | undefined;
  private big: Promise<boolean> | undefined;
  /** When the tree was last listed whole. */
  private wholeAt = 0;
  /** How the latest snapshot found what changed (for tests and the debug log). */
  lastListing: 'none' | 'narrowed' | 'whole' = 'whole';

  private readonly leaveOut: readonly string[];
  private readonly maxFileBytes: number;

  constructor(
    private readonly place: ShadowPlace,
    private readonly opts: ShadowOptions = {},
  ) {
    this.leaveOut = opts.leaveOut ?? [];
    this.maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  /** Creates the repository on first use. */
  private init(): Promise<void> {
    return (this.ready ??= (async () => {
      const { gitDir, workTree } = this.place;
      const made = await fsp.stat(join(gitDir, 'HEAD')).then(() => true, () => false);
      if (!made) {
        await fsp.mkdir(gitDir, { recursive: true, mode: 0o700 });
        await git(this.place, ['init', '-q', '--bare', gitDir]);
        // Written once, as text: one git per setting would cost a process each.
        const byKey = new Map<string, [string, string][]>();
        for (const [k, v] of SETTINGS) {
          const [section, name] = k.split('.') as [string, string];
          byKey.set(section, [...(byKey.get(section) ?? []), [name, v]]);
        }
        const text = [...byKey].map(([section, kv]) => `[${section}]\n${kv.map(([n, v]) => `\t${n} = ${v}\n`).join('')}`).join('');
        await fsp.appendFile(join(gitDir, 'config'), text);
        // Once, at creation: the workspace repository's packs, so the first snapshot need not store every file again.
        const from = await this.workspace();
        if (from) await seedObjects(this.place, from.objects, this.opts.packCache).catch(() => 0);
      }
      await fsp.mkdir(join(gitDir, 'info'), { recursive: true });
      await fsp.writeFile(join(gitDir, 'info', 'attributes'), ATTRIBUTES);
      const out = this.leaveOut.map((d) => relative(workTree, d)).filter((r) => r && !r.startsWith('..') && !isAbsolute(r));
      const never = NEVER.map((n) => `${n}/\n`).join('');
      await fsp.writeFile(join(gitDir, 'info', 'exclude'), never + out.map((r) => `/${r.replace(/([\\*?[\]!# ])/g, '\\$1')}/\n`).join(''));
      this.head = (await git(this.place, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { ok: [0, 1] })).trim() || undefined;
      if (this.head) this.headTree = (await git(this.place, ['rev-parse', `${this.head}^{tree}`])).trim();
      if (await this.isBig()) this.journal = new ChangeJournal(workTree, new Set(NEVER), this.leaveOut);
    })());
  }

  /**
   * Called at each turn's start: in a big git repository, records the workspace now, in the
   * background (the first time, a snapshot of seconds; later, the journal's look), so the turn's
   * first change finds it recorded. Nothing at all in a small workspace.
   */
  prepare(): Promise<void> {
    return this.serial(async () => {
      // A big repository only: in a small one the first change's own snapshot takes milliseconds,
      // and a session that never changes a file never creates its shadow repository.
      if (!this.ready && !(await this.isBig())) return;
      await this.init();
      if (!this.journal) return;
      // A whole listing at most once a minute catches what no watch reports (a file written
      // through a hard link elsewhere, or through a shared mapping); otherwise the journal's
      // narrowed one. Either way while the model thinks, so the turn's first change finds the
      // workspace already recorded (nothing changed since: no git at all).
      await this.snapshotNow('look', Date.now() - this.wholeAt >= WHOLE_EVERY_MS);
    });
  }

  /** The workspace's git repository, looked up once (every turn's prepare asks). */
  private workspace(): Promise<WorkspaceRepo | undefined> {
    return (this.repo ??= workspaceRepo(this.place.workTree));
  }

  /** Whether the workspace is big enough for the journal (and for recording ahead of the first change); decided once. */
  private isBig(): Promise<boolean> {
    const mode = this.opts.journal ?? 'auto';
    if (mode !== 'auto') return Promise.resolve(mode === 'on');
    return (this.big ??= this.workspace().then((repo) => repo !== undefined && isBigRepo(repo)));
  }

  /** Runs `fn` after every step queued before it (a failed one does not stop the queue). */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Records the workspace as it is now; the same tree as the last snapshot gives the same commit. */
  snapshot(label: string): Promise<Snapshot> {
    return this.serial(() => this.snapshotNow(label));
  }

  /** snapshot() for a caller already inside serial(); `whole` lists the whole tree whatever the journal says. */
  async snapshotNow(label: string, whole = false): Promise<Snapshot> {
    await this.init();
    const scope = await this.scope(whole);
    this.lastListing = scope === undefined ? 'whole' : scope.length === 0 ? 'none' : 'narrowed';
    if (scope?.length === 0 && this.head) return { commit: this.head, skipped: [] };
    this.unsure = true;
    // What differs from the last snapshot's index: new, changed and deleted files (stat cache first).
    const list = ['ls-files', '-z', '-o', '-m', '-d', '--exclude-standard', ...(scope ? ['--', ...scope] : [])];
    const started = Date.now();
    const changed = [...new Set(zList(await git(this.place, list)))];
    const { take, skipped, drop } = await sortChanges(this.place.workTree, changed, this.maxFileBytes);
    // update-index takes the paths as they are: `add` with a pathspec per file compares every
    // file with every pathspec (60,000 new files took 51 s), and it ignores .gitignore, which
    // ls-files has already applied. Removals first, so a folder's files can take a file's place.
    if (drop.length + skipped.length) await this.withStdin([...drop, ...skipped], ['update-index', '-z', '--force-remove', '--stdin']);
    if (take.length) await this.withStdin(take, ['update-index', '-z', '--add', '--remove', '--replace', '--stdin']);
    const tree = (await git(this.place, ['write-tree'])).trim();
    this.unsure = false;
    if (!scope) this.wholeAt = started;
    if (this.head && tree === this.headTree) return { commit: this.head, skipped };
    const parent = this.head ? ['-p', this.head] : [];
    const commit = (await git(this.place, ['commit-tree', tree, ...parent, '-m', label])).trim();
    // Every snapshot stays reachable from HEAD (each is the next one's parent), so nothing is pruned.
    await git(this.place, ['update-ref', 'HEAD', commit]);
    this.head = commit;
    this.headTree = tree;
    return { commit, skipped };
  }

  /**
   * The folders to list (each with everything below it), [] for none, or undefined for the whole
   * tree: no journal, an unsure one, a change in the workspace's own folder (its files cannot be
   * listed without the rest), or too many folders.
   */
  private async scope(whole: boolean): Promise<string[] | undefined> {
    if (!this.journal) return undefined;
    // Asked even when the answer is not used: the next answer counts from now.
    const ch = await this.journal.changes().catch(() => undefined);
    if (whole || this.unsure || !this.head || !ch?.complete) return undefined;
    const all = [...ch.changed, ...ch.gone];
    if (all.includes('') || all.length > MAX_SCOPE * 4) return undefined;
    // Outermost folders only: a folder's pathspec covers everything below it.
    const sorted = [...new Set(all)].sort();
    const out: string[] = [];
    for (const f of sorted) if (!out.some((o) => f.startsWith(o + '/'))) out.push(f);
    return out.length > MAX_SCOPE ? undefined : out.map((f) => f + '/');
  }

  /** Paths whose contents differ between two snapshots. */
  async changedBetween(a: string, b: string): Promise<string[]> {
    await this.init();
    if (a === b) return [];
    return zList(await git(this.place, ['diff-tree', '-r', '-z', '--name-only', '--no-renames', a, b]));
  }

  /**
   * Puts `paths` as they are in snapshot `to`: written byte-exact with their mode, or removed where
   * `to` has none. The shadow index must hold the workspace as it is now (take a snapshot first).
   */
  restore(to: string, paths: readonly string[]): Promise<void> {
    return this.serial(() => this.restoreNow(to, paths));
  }

  /** restore() for a caller already inside serial(). */
  async restoreNow(to: string, paths: readonly string[]): Promise<void> {
    await this.init();
    if (paths.length === 0) return;
    // A path inside another listed one is covered by it (a pathspec matches what is below it);
    // listed alone it fails where a file and a folder trade places ("did not match any file").
    const all = new Set(paths);
    const outer = paths.filter((p) => !p.split('/').slice(0, -1).some((_, i, parts) => all.has(parts.slice(0, i + 1).join('/'))));
    await this.withPaths(outer, (file) => ['checkout', '-q', '--no-overlay', to, `--pathspec-from-file=${file}`, '--pathspec-file-nul']);
  }

  /** Runs git with a NUL-separated list of paths in a file (no argument list is ever too long). */
  private async withPaths(paths: readonly string[], args: (file: string) => string[]): Promise<void> {
    await this.withFile(paths, (file) => git(this.place, args(file)));
  }

  /** Runs git with a NUL-separated list of paths as its stdin. */
  private async withStdin(paths: readonly string[], args: string[]): Promise<void> {
    await this.withFile(paths, (file) => git(this.place, args, { stdinFile: file }));
  }

  private async withFile(paths: readonly string[], run: (file: string) => Promise<string>): Promise<void> {
    const file = join(this.place.gitDir, `paths-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
    await fsp.writeFile(file, paths.join('\0') + '\0');
    try {
      await run(file);
    } finally {
      await fsp.rm(file, { force: true });
    }
  }
}
