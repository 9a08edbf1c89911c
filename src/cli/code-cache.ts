// V8's compiled code for the CLI bundle, kept between processes. An editor spawns `chimera` for
// every window and waits for `initialize`; compiling ~800 KB of JavaScript from source was a third
// of that wait, and Node 20 has no compile cache of its own (module.enableCompileCache is 22.1+).
// The bundle is CommonJS (rolldown.config.mjs) so each chunk can be compiled through vm.Script
// with the code V8 produced for it last time; on Node >= 22.1 Node's own cache is used instead.
//
// The cache lives under CHIMERA_HOME (cache/code/<node version>-<arch>/): that folder is a
// protected state root, so no tool the model runs can plant code the next start would execute.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import Module, { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import vm from 'node:vm';
import { chimeraHome } from '../protocol/paths.js';

/** A chunk compiled from source this process (no cache, or V8 refused the one there was). */
interface Uncached {
  script: vm.Script;
  file: string;
}

interface NodeModuleInternals {
  prototype: { _compile(this: NodeModule, content: string, filename: string): unknown };
  enableCompileCache?: (dir: string) => unknown;
  flushCompileCache?: () => void;
}

const uncached: Uncached[] = [];
/** Cache files V8 accepted this process: still in use, so never pruned. */
const used: string[] = [];
let cacheRoot: string | undefined;
/** A cache file nobody has used or written for this long goes (an old build's, an old Node's). */
const STALE_MS = 14 * 86_400_000;
const DYNAMIC_IMPORT = /\bimport\s*\(/;
let nodeOwnCache = false;

/** The cache folder for this Node, made owner-only; undefined when it cannot be used. */
function cacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const setting = env['FERRET_CODE_CACHE'];
  if (setting === '0' || setting === 'off') return undefined;
  const dir = join(chimeraHome(env), 'cache', 'code', `${process.version}-${process.arch}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    // Only a folder that is ours alone: cached code runs with the server's rights.
    if ((typeof process.getuid === 'function' && st.uid !== process.getuid()) || (st.mode & 0o022) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * The cache file of one source file: its path, size and modification time (V8 itself only checks
 * the source's length, so an edited file of the same length must not find the old code).
 */
function cacheFile(dir: string, filename: string, size: number, mtimeMs: number): string {
  return join(dir, `${filename.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-120)}-${size}-${Math.trunc(mtimeMs)}.bin`);
}

/**
 * Compiles the CommonJS files under `root` (the bundle's chunks, and the packages it requires
 * from node_modules) with their cached code from now on. Call before the first chunk is required,
 * after any V8 flag is set: V8 refuses code cached under other flags.
 */
export function installCodeCache(root: string, env: NodeJS.ProcessEnv = process.env): void {
  const dir = cacheDir(env);
  if (!dir) return;
  cacheRoot = dir;
  const mod = Module as unknown as NodeModuleInternals;
  if (typeof mod.enableCompileCache === 'function') {
    mod.enableCompileCache(dir);
    nodeOwnCache = true;
    return;
  }
  const compile = mod.prototype._compile; // eslint-disable-line @typescript-eslint/unbound-method -- called with .call(this)
  mod.prototype._compile = function (this: NodeModule, content: string, filename: string): unknown {
    // A script built from cached data loses its dynamic-import callback (V8 does not keep Node's
    // host options in the cache): a file that calls import() compiles as usual. The bundle's chunks
    // require() what they load lazily, so only the ACP SDK's and ioredis's chunks are left out.
    if (!filename.startsWith(root + sep) || DYNAMIC_IMPORT.test(content)) return compile.call(this, content, filename);
    let file: string;
    let cachedData: Buffer | undefined;
    try {
      const st = statSync(filename);
      file = cacheFile(dir, filename, st.size, st.mtimeMs);
      cachedData = existsSync(file) ? readFileSync(file) : undefined;
    } catch {
      return compile.call(this, content, filename);
    }
    // The hashbang line becomes an empty one (same line numbers); V8 only allows it first.
    const source = content.startsWith('#!') ? content.replace(/^#![^\n]*/, '') : content;
    const script = new vm.Script(Module.wrap(source), { filename, ...(cachedData ? { cachedData } : {}) });
    if (!cachedData || script.cachedDataRejected) uncached.push({ script, file });
    else used.push(file);
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, createRequire(filename), this, filename, dirname(filename));
  };
}

/**
 * Writes the code V8 has compiled so far for every chunk that had none cached (functions compiled
 * lazily since start-up are in it, so run it once the server has done real work). One chunk per
 * step of the event loop; a write that fails only means the next start compiles from source.
 */
export async function saveCodeCache(): Promise<number> {
  if (nodeOwnCache) {
    (Module as unknown as NodeModuleInternals).flushCompileCache?.();
    if (cacheRoot) await pruneOtherNodes(cacheRoot).catch(() => undefined);
    return 0;
  }
  let saved = 0;
  const kept = new Set(used);
  for (const { script, file } of uncached.splice(0)) {
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      await writeFile(tmp, script.createCachedData(), { mode: 0o600 });
      await rename(tmp, file);
      kept.add(file);
      saved++;
    } catch {
      // read-only or full disk: nothing to keep
    }
  }
  if (cacheRoot) await prune(cacheRoot, kept).catch(() => undefined);
  return saved;
}

/**
 * Every build and every Node version leaves files behind: the ones in use are touched, and what
 * nobody has used for STALE_MS goes (this Node's folder, and other Nodes' folders whole).
 */
async function prune(dir: string, inUse: ReadonlySet<string>): Promise<void> {
  const now = new Date();
  for (const f of inUse) await utimes(f, now, now).catch(() => undefined);
  const old = Date.now() - STALE_MS;
  for (const name of await readdir(dir)) {
    const f = join(dir, name);
    if (inUse.has(f)) continue;
    const st = await stat(f).catch(() => undefined);
    if (st?.isFile() && st.mtimeMs < old) await rm(f, { force: true });
  }
  await pruneOtherNodes(dir);
}

/** Other Node versions' folders beside `dir` that nothing has written to for STALE_MS. */
async function pruneOtherNodes(dir: string): Promise<void> {
  const now = new Date();
  await utimes(dir, now, now); // this Node's folder is in use
  const old = now.getTime() - STALE_MS;
  const parent = dirname(dir);
  for (const name of await readdir(parent)) {
    const other = join(parent, name);
    if (other === dir) continue;
    const st = await stat(other).catch(() => undefined);
    if (st?.isDirectory() && st.mtimeMs < old) await rm(other, { recursive: true, force: true });
  }
}
