// A new shadow repository borrows the packs of the workspace's own git repository, so its first
// snapshot finds most files' contents already stored: git then only reads and hashes each file
// instead of writing it again as an object of its own (in a 100,000-file repository that write
// was 20–50 s; with the packs lent, about a second).
//
// The packs are hard links (no copy, no space; packs are never rewritten in place, and the
// user's `git gc` only unlinks its own names), or copies where a link cannot be made and the
// packs are small. Their `.idx` is never borrowed: `git index-pack` builds a new one from the
// pack's bytes, hashing every object. An index maps an object's name to where its bytes sit, so a
// borrowed one could name a file's contents for other bytes, and /undo would write those. A
// pack that fails `index-pack` (corrupt, truncated, not a pack) is dropped. A pack verified once
// is kept under CHIMERA_HOME (ferret/undo-packs/, per repository) for the next session to link.
import { promises as fsp, type Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { git, type ShadowPlace } from './git-run.js';

/** Packs larger than this in total are not lent (index-pack reads every byte). */
const MAX_TOTAL_BYTES = 1024 ** 3;
/**
 * All the verifying together stops after this long: index-pack's time follows the objects'
 * inflated size, not the pack's (a 1 MB pack of one 1 GiB blob of zeros takes 4 s), and the
 * first snapshot waits for it. The packs are a speed-up only: past the budget the snapshot
 * stores the files itself.
 */
const BUDGET_MS = 8000;
/** Where a hard link fails (another file system), packs up to this much in total are copied. */
const MAX_COPY_BYTES = 256 * 1024 ** 2;
/** How far up from the workspace a repository's `.git` is looked for. */
const MAX_LEVELS = 64;

const lstat = (p: string): Promise<Stats | undefined> => fsp.lstat(p).then((s) => s, () => undefined);

export interface WorkspaceRepo {
  /** Its object folder (a linked worktree's is the common one). */
  objects: string;
  /** Its index file (a linked worktree has its own). */
  index: string;
}

/** The git repository holding `workTree`, if any. */
export async function workspaceRepo(workTree: string): Promise<WorkspaceRepo | undefined> {
  let dir = resolve(workTree);
  for (let i = 0; i < MAX_LEVELS; i++) {
    const dotGit = join(dir, '.git');
    const st = await lstat(dotGit);
    if (st?.isDirectory()) return repoOf(dotGit, dotGit);
    if (st?.isFile()) {
      // A worktree or submodule: `gitdir: <path>`, and a worktree's `commondir` names the shared one.
      const text = await fsp.readFile(dotGit, 'utf8').catch(() => '');
      const m = /^gitdir: (.+)$/m.exec(text);
      if (!m) return undefined;
      const gitDir = resolve(dir, m[1]!.trim());
      const common = (await fsp.readFile(join(gitDir, 'commondir'), 'utf8').catch(() => '')).trim();
      return repoOf(common ? (isAbsolute(common) ? common : resolve(gitDir, common)) : gitDir, gitDir);
    }
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  return undefined;
}

async function repoOf(commonDir: string, gitDir: string): Promise<WorkspaceRepo | undefined> {
  const objects = join(commonDir, 'objects');
  return (await lstat(objects))?.isDirectory() ? { objects, index: join(gitDir, 'index') } : undefined;
}

/** A repository whose index is at least this big (about 2,500 files) is worth recording ahead of the first change. */
const BIG_INDEX_BYTES = 256 * 1024;

/** Whether the workspace's repository is big enough that its first snapshot takes seconds. */
export async function isBigRepo(repo: WorkspaceRepo): Promise<boolean> {
  return ((await lstat(repo.index))?.size ?? 0) >= BIG_INDEX_BYTES;
}

/**
 * Lends the shadow repository the workspace repository's packs; answers how many were taken.
 * With `cacheRoot`, a pack verified once is kept there (its bytes and the index built from them,
 * hard links) for the next session on the same repository, which links both in at once.
 */
export async function seedObjects(place: ShadowPlace, from: string, cacheRoot?: string, budgetMs = BUDGET_MS): Promise<number> {
  const packDir = join(from, 'pack');
  const all = await fsp.readdir(packDir).catch(() => [] as string[]);
  // Only packs git itself would read: one with no .idx beside it is a pack being written, or junk.
  const names = all.filter((n) => n.endsWith('.pack') && all.includes(n.slice(0, -5) + '.idx'));
  const packs: { name: string; size: number; key: string }[] = [];
  let total = 0;
  for (const name of names) {
    const st = await lstat(join(packDir, name));
    if (!st?.isFile()) continue;
    total += st.size;
    // The user's file: a repack or gc makes a new one (another inode). Not its mtime: git refreshes
    // that when it finds an object it was about to write in a pack, through our link too.
    packs.push({ name, size: st.size, key: `${st.dev}-${st.ino}-${st.size}` });
  }
  if (packs.length === 0 || total > MAX_TOTAL_BYTES) return 0;
  const staging = join(place.gitDir, 'seed');
  const target = join(place.gitDir, 'objects', 'pack');
  const cache = cacheRoot ? join(cacheRoot, createHash('sha256').update(from).digest('hex').slice(0, 32)) : undefined;
  await fsp.rm(staging, { recursive: true, force: true });
  await fsp.mkdir(staging, { recursive: true, mode: 0o700 });
  await fsp.mkdir(target, { recursive: true });
  if (cache) await fsp.mkdir(cache, { recursive: true, mode: 0o700 }).catch(() => undefined);
  let copied = 0;
  let taken = 0;
  const deadline = Date.now() + budgetMs;
  try {
    for (const [i, p] of packs.entries()) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      if (cache && (await fromCache(cache, p.key, target))) {
        taken++;
        continue;
      }
      const tmp = join(staging, `lent-${i}.pack`);
      try {
        await fsp.link(join(packDir, p.name), tmp);
      } catch {
        if (copied + p.size > MAX_COPY_BYTES) continue;
        await fsp.copyFile(join(packDir, p.name), tmp).catch(() => undefined);
        copied += p.size;
      }
      // Our own name for it now: whatever stood at the user's name a moment ago (a symlink swapped
      // in), this is a regular file or it is not used.
      if (!(await lstat(tmp))?.isFile()) continue;
      const idx = join(staging, `lent-${i}.idx`);
      const out = await git(place, ['index-pack', '--threads=1', '-o', idx, tmp], { timeoutMs: left }).catch(() => '');
      const hash = HASH.exec(out)?.[1];
      if (!hash) continue;
      // The pack first, its index last: git sees a pack only once its .idx is there.
      await fsp.rename(tmp, join(target, `pack-${hash}.pack`));
      await fsp.rename(idx, join(target, `pack-${hash}.idx`));
      taken++;
      if (cache) await toCache(cache, p.key, target, hash);
    }
    // Packs the repository no longer has (repacked, collected) are not kept for it.
    if (cache) {
      const keys = new Set(packs.map((p) => p.key));
      for (const n of await fsp.readdir(cache).catch(() => [] as string[])) {
        if (!keys.has(n.replace(/\.(pack|idx|name)$/, ''))) await fsp.rm(join(cache, n), { force: true });
      }
    }
  } finally {
    await fsp.rm(staging, { recursive: true, force: true });
  }
  return taken;
}

const HASH = /^(?:pack\t)?([0-9a-f]{40,64})\s*$/m;

/** Links a verified pack and its index from the cache into `target`; false when the cache has none. */
async function fromCache(cache: string, key: string, target: string): Promise<boolean> {
  const hash = HASH.exec(await fsp.readFile(join(cache, `${key}.name`), 'utf8').catch(() => ''))?.[1];
  if (!hash) return false;
  const pack = join(target, `pack-${hash}.pack`);
  try {
    await fsp.link(join(cache, `${key}.pack`), pack);
    await fsp.link(join(cache, `${key}.idx`), join(target, `pack-${hash}.idx`));
    return true;
  } catch {
    await fsp.rm(pack, { force: true });
    return false;
  }
}

/** Keeps a pack just verified (and the index built from it) for the next session; the name file last, so a half-kept entry is never used. */
async function toCache(cache: string, key: string, target: string, hash: string): Promise<void> {
  try {
    for (const ext of ['pack', 'idx']) {
      await fsp.rm(join(cache, `${key}.${ext}`), { force: true });
      await fsp.link(join(target, `pack-${hash}.${ext}`), join(cache, `${key}.${ext}`));
    }
    await fsp.writeFile(join(cache, `${key}.name`), `${hash}\n`);
  } catch {
    // Another file system, or no room: the next session verifies the pack again.
  }
}
