// The built-in engine's file walk: the files ripgrep would search, in the order its
// `--sort path` gives (each folder's names in byte order, depth first). Links are not followed
// and only regular files are listed, as ripgrep does without -L; a folder an ignore rule or an
// exclude glob names is not entered.
import { lstat, readdir } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import { isInside } from '../../protocol/index.js';
import { chainOf, judge, loadDirRules, loadGlobalRules, parentChain, type GlobalRules, type RuleChain } from './ignore-rules.js';
import { compareNames, excluded, keepFile, type Scope } from './scope.js';

export interface WalkedFile {
  /** Absolute path. */
  path: string;
  /** Relative to the scope's root. */
  rel: string;
}

type Kind = 'dir' | 'file' | 'other';

async function kindOf(dir: string, d: Dirent): Promise<Kind> {
  if (d.isSymbolicLink()) return 'other';
  if (d.isDirectory()) return 'dir';
  if (d.isFile()) return 'file';
  if (d.isFIFO() || d.isSocket() || d.isBlockDevice() || d.isCharacterDevice()) return 'other';
  // The file system did not say (DT_UNKNOWN): ask.
  const st = await lstat(join(dir, d.name)).catch(() => undefined);
  return st?.isDirectory() ? 'dir' : st?.isFile() ? 'file' : 'other';
}

/** Lists the files of `scope` (its root a folder), stopping (with what it has) when `signal` aborts. */
export async function walkFiles(scope: Scope, signal: AbortSignal): Promise<WalkedFile[]> {
  const useRules = scope.includeIgnored !== true;
  const global: GlobalRules | undefined = useRules ? await loadGlobalRules(scope.home, scope.xdgConfigHome, scope.root) : undefined;
  const top = useRules ? await parentChain(scope.root) : undefined;
  const out: WalkedFile[] = [];
  const visit = async (dir: string, rel: string, parent: RuleChain | undefined): Promise<void> => {
    if (signal.aborted) return;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const names = new Set(entries.map((e) => e.name));
    const chain = useRules ? chainOf(await loadDirRules(dir, names), parent) : undefined;
    entries.sort((a, b) => compareNames(a.name, b.name));
    for (const e of entries) {
      if (signal.aborted) return;
      const kind = await kindOf(dir, e);
      if (kind === 'other') continue;
      const path = join(dir, e.name);
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
      const isDir = kind === 'dir';
      if (excluded(scope, childRel, isDir)) continue;
      if (useRules && judge(chain, global, path, isDir) === 'ignore') continue;
      if (isDir) {
        if (scope.blocked.some((b) => isInside(b, path))) continue;
        await visit(path, childRel, chain);
      } else if (keepFile(scope, childRel)) {
        out.push({ path, rel: childRel });
      }
    }
  };
  await visit(scope.root, '', top);
  return out;
}

/**
 * Whether a folder below `from` (the names in `parts`) is itself skipped by the ignore rules or
 * an exclude glob: glob starts its walk at a pattern's fixed folders, and a walk's root is
 * never judged (ripgrep searches a root it is given), so those folders are judged here.
 */
export async function folderSkipped(scope: Scope, from: string, parts: readonly string[]): Promise<boolean> {
  const useRules = scope.includeIgnored !== true;
  const global = useRules ? await loadGlobalRules(scope.home, scope.xdgConfigHome, from) : undefined;
  let chain = useRules ? await parentChain(from) : undefined;
  let dir = from;
  let rel = '';
  for (const p of parts) {
    if (useRules) chain = chainOf(await loadDirRules(dir, undefined), chain);
    const path = join(dir, p);
    rel = rel === '' ? p : `${rel}/${p}`;
    if (excluded(scope, rel, true)) return true;
    if (useRules && judge(chain, global, path, true) === 'ignore') return true;
    dir = path;
  }
  return false;
}
