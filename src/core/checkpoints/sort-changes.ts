// What a snapshot does with each path git listed as new, changed or deleted: take it, leave it
// out for its size, or take it out of the index. One synchronous lstat per path and per folder,
// in slices that yield to the event loop: 60,000 paths took 2.5 s as awaited lstats through the
// thread pool, and take ~0.2 s this way.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { slicer } from '../../sandbox/index.js';

export interface SortedChanges {
  /** Recorded as they are now (or removed from the index where gone). */
  take: string[];
  /** Left out for their size. */
  skipped: string[];
  /** Out of the index: a path under a folder that became a symlink (git refuses it: "beyond a symbolic link"), or a file that became a folder (its files come in on their own). */
  drop: string[];
}

export async function sortChanges(root: string, paths: readonly string[], maxFileBytes: number): Promise<SortedChanges> {
  const out: SortedChanges = { take: [], skipped: [], drop: [] };
  const folderOk = new Map<string, boolean>();
  const isRealFolder = (rel: string): boolean => {
    let ok = folderOk.get(rel);
    if (ok === undefined) {
      const st = lstatOrUnknown(join(root, rel));
      ok = st === undefined || st === 'unknown' || st.isDirectory(); // a missing folder: plain deletion
      folderOk.set(rel, ok);
    }
    return ok;
  };
  const { pause } = slicer(8);
  for (const p of paths) {
    const wait = pause();
    if (wait) await wait;
    // `dir/` is a nested repository: git would record a link to it, not its files.
    if (p.endsWith('/')) continue;
    const parts = p.split('/');
    // Never recorded, whatever a .gitignore un-ignores (`!node_modules/`): the change journal does
    // not watch them, so a narrowed listing and a whole one would disagree.
    if (parts.slice(0, -1).includes('node_modules')) {
      out.drop.push(p);
      continue;
    }
    let beyond = false;
    for (let i = 1; i < parts.length && !beyond; i++) beyond = !isRealFolder(parts.slice(0, i).join('/'));
    if (beyond) {
      out.drop.push(p);
      continue;
    }
    const st = lstatOrUnknown(join(root, p));
    if (st !== undefined && st !== 'unknown' && st.isDirectory()) out.drop.push(p);
    else if (st !== undefined && st !== 'unknown' && st.isFile() && st.size > maxFileBytes) out.skipped.push(p);
    else out.take.push(p);
  }
  return out;
}

function lstatOrUnknown(p: string): ReturnType<typeof lstatSync> | 'unknown' {
  try {
    return lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return 'unknown'; // EACCES, ENOTDIR: git will say what it finds
  }
}
