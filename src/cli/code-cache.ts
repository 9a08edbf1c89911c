// V8's compiled code for the CLI bundle, kept between processes. An editor spawns `chimera` for
// every window and waits for `initialize`; compiling ~800 KB of JavaScript from source was a third
// of that wait, and Node 20 has no compile cache of its own (module.enableCompileCache is 22.1+).
// The bundle is CommonJS (rolldown.config.mjs) so each chunk can be compiled through vm.Script
// with the code V8 produced for it last time; on Node >= 22.1 Node's own cache is used instead.
//
// Cached code runs with the server's rights, unconfined: it lives in CHIMERA_HOME/ferret/, a
// state folder no tool can read or write even when CHIMERA_HOME holds the workspace
// (sandbox/paths/state-roots.ts), and V8 itself checks little (the source's length, not its text; no
// checksum in release builds, and damaged code crashes the process), so ferret keys each file on
// a CRC of the source and checks a CRC of the cached bytes before handing them to V8.
import { lstatSync, mkdirSync, readFileSync, promises as fsp } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { basename, dirname, join, sep } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import vm from 'node:vm';
import { chimeraHome } from '../protocol/paths.js';

/** A chunk compiled from source this process (no cache, or a cache that was refused). */
interface Uncached {
  script: vm.Script;
  file: string;
}

type Compile = (this: NodeModule, content: string, filename: string, ...rest: unknown[]) => unknown;
interface NodeModuleInternals {
  prototype: { _compile: Compile };
  enableCompileCache?: (dir: string) => unknown;
  flushCompileCache?: () => void;
}

const uncached: Uncached[] = [];
/** Cache files used this process: still in use, so never pruned. */
const used: string[] = [];
let cacheRoot: string | undefined;
let nodeOwnCache = false;
let savedOnce = false;
let lateSave: NodeJS.Timeout | undefined;
/** zlib.crc32, once the cache is installed on the vm.Script path. */
let crc: ((data: string | Uint8Array) => number) | undefined;
/** A cache file nobody has used or written for this long goes (an old build's, an old Node's). */
const STALE_MS = 14 * 86_400_000;
/** Code loaded after the first save (the first turn's providers, the search tools) is kept this long after it loaded. */
const LATE_SAVE_MS = 5000;
const DYNAMIC_IMPORT = /\bimport\s*\(/y;

/** Whether the source has an `import(` (indexOf first: a regex over the 500 KB start-up chunk took 0.4 ms). */
function callsImport(content: string): boolean {
  for (let at = content.indexOf('import'); at >= 0; at = content.indexOf('import', at + 6)) {
    DYNAMIC_IMPORT.lastIndex = at;
    if (DYNAMIC_IMPORT.test(content)) return true;
  }
  return false;
}

/** Whether `dir` is our own folder, not a link, writable by nobody else. */
function ownDir(dir: string): boolean {
  const st = lstatSync(dir);
  return st.isDirectory() && (typeof process.getuid !== 'function' || st.uid === process.getuid()) && (st.mode & 0o022) === 0;
}

/** The cache folder for this Node; undefined when it cannot be used. */
function cacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const setting = env['FERRET_CODE_CACHE'];
  if (setting === '0' || setting === 'off') return undefined;
  const state = join(chimeraHome(env), 'ferret');
  const dir = join(state, 'code-cache', `${process.version}-${process.arch}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return ownDir(state) && ownDir(dirname(dir)) && ownDir(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Compiles the CommonJS files under `root` (the bundle's chunks, and the packages it requires
 * from node_modules) with their cached code from now on. Call before the first chunk is required,
 * after the V8 flags are set: V8 refuses code cached under other flags.
 */
export function installCodeCache(root: string, env: NodeJS.ProcessEnv = process.env): void {
  // --enable-source-maps maps stack traces through Node's own compile, which this one skips.
  if ((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled) return;
  const dir = cacheDir(env);
  if (!dir) return;
  const mod = Module as unknown as NodeModuleInternals;
  if (typeof mod.enableCompileCache === 'function') {
    cacheRoot = dir;
    mod.enableCompileCache(dir);
    nodeOwnCache = true;
    return;
  }
  // zlib.crc32 is Node 20.15+; without it nothing can be checked, so nothing is cached.
  const { crc32 } = createRequire(import.meta.url)('node:zlib') as { crc32?: (data: string | Uint8Array) => number };
  if (typeof crc32 !== 'function') return;
  crc = crc32;
  cacheRoot = dir;
  // V8 drops the bytecode of functions that have not run for a while (every module's top level,
  // run once at start-up) and the cache is written seconds later: keep it, or the cache misses it.
  setFlagsFromString('--no-flush-bytecode');
  const compile = mod.prototype._compile;
  mod.prototype._compile = function (this: NodeModule, content: string, filename: string, ...rest: unknown[]): unknown {
    // A script built from cached data loses its dynamic-import callback (V8 does not keep Node's
    // host options in the cache): a file that calls import() compiles as usual, and so does an
    // ES module that something require()s (Node 20.19+ passes its format). The bundle's chunks
    // require() what they load lazily, so only the ACP SDK's and ioredis's chunks are left out.
    if (rest[0] === 'module' || !filename.startsWith(root + sep) || callsImport(content)) return compile.call(this, content, filename, ...rest);
    const file = join(dir, `${basename(filename).slice(-80)}-${crc32(content).toString(16)}-${content.length}.bin`);
    let cachedData: Buffer | undefined;
    try {
      const stored = readFileSync(file);
      // The first four bytes are the CRC of the rest: a torn or damaged file is never given to V8.
      if (stored.length > 4 && stored.readUInt32LE(0) === crc32(stored.subarray(4))) cachedData = stored.subarray(4);
    } catch {
      cachedData = undefined;
    }
    // The hashbang line becomes an empty one (same line numbers); V8 only allows it first.
    const source = content.startsWith('#!') ? content.replace(/^#![^\n]*/, '') : content;
    const script = new vm.Script(Module.wrap(source), { filename, ...(cachedData ? { cachedData } : {}) });
    if (!cachedData || script.cachedDataRejected) {
      uncached.push({ script, file });
      if (savedOnce) scheduleLateSave();
    } else {
      used.push(file);
    }
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(this.exports, this.exports, createRequire(filename), this, filename, dirname(filename));
  };
}

/** The crc32 of the bytes V8 produced, then the bytes: what the loader checks. */
function framed(data: Buffer, crc32: (data: Uint8Array) => number): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32LE(crc32(data) >>> 0, 0);
  return Buffer.concat([head, data]);
}

function scheduleLateSave(): void {
  if (lateSave) return;
  lateSave = setTimeout(() => {
    lateSave = undefined;
    void saveCodeCache();
  }, LATE_SAVE_MS);
  lateSave.unref();
}

/**
 * Writes the code V8 has compiled so far for every chunk that had none cached (functions compiled
 * lazily since start-up are in it, so run it once the server has done some work). Chunks loaded
 * later are written a few seconds after they load. A write that fails only means the next start
 * compiles from source.
 */
export async function saveCodeCache(): Promise<number> {
  savedOnce = true;
  if (nodeOwnCache) {
    (Module as unknown as NodeModuleInternals).flushCompileCache?.();
    if (cacheRoot) await pruneOtherNodes(cacheRoot).catch(() => undefined);
    return 0;
  }
  if (!cacheRoot || !crc) return 0;
  let saved = 0;
  const kept = new Set(used);
  for (const { script, file } of uncached.splice(0)) {
    if (await writeAtomically(file, framed(script.createCachedData(), crc))) {
      kept.add(file);
      saved++;
    }
  }
  await prune(cacheRoot, kept).catch(() => undefined);
  return saved;
}

/** A new file beside `file`, synced, then renamed over it: a reader sees the old file or the whole new one. */
async function writeAtomically(file: string, data: Buffer): Promise<boolean> {
  const tmp = `${file}.${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}.tmp`;
  try {
    const fh = await fsp.open(tmp, 'wx', 0o600);
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fsp.rename(tmp, file);
    return true;
  } catch {
    await fsp.rm(tmp, { force: true }).catch(() => undefined); // read-only or full disk: nothing to keep
    return false;
  }
}

/**
 * Every build and every Node version leaves files behind: the ones in use are touched, and what
 * nobody has used for STALE_MS goes (this Node's folder, and other Nodes' folders whole).
 */
async function prune(dir: string, inUse: ReadonlySet<string>): Promise<void> {
  const now = new Date();
  for (const f of inUse) await fsp.utimes(f, now, now).catch(() => undefined);
  const old = Date.now() - STALE_MS;
  for (const name of await fsp.readdir(dir)) {
    const f = join(dir, name);
    if (inUse.has(f)) continue;
    const st = await fsp.stat(f).catch(() => undefined);
    if (st?.isFile() && st.mtimeMs < old) await fsp.rm(f, { force: true });
  }
  await pruneOtherNodes(dir);
}

/** Other Node versions' folders beside `dir` that nothing has written to for STALE_MS. */
async function pruneOtherNodes(dir: string): Promise<void> {
  const now = new Date();
  await fsp.utimes(dir, now, now); // this Node's folder is in use
  const old = now.getTime() - STALE_MS;
  const parent = dirname(dir);
  for (const name of await fsp.readdir(parent)) {
    const other = join(parent, name);
    if (other === dir) continue;
    const st = await fsp.stat(other).catch(() => undefined);
    if (st?.isDirectory() && st.mtimeMs < old) await fsp.rm(other, { recursive: true, force: true });
  }
}
