// Which engine runs a search, decided once per server: ripgrep when it is installed (and recent
// enough for the flags ferret passes), else the built-in one. The answer lives on the server's
// HostFacts (made by the core), never in a module global; config.json's `search.engine` (or a
// test's HostFacts option) forces one engine.
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { HostFacts, SearchProbe } from '../../sandbox/index.js';

/** ripgrep 11 brought --no-require-git and --json's stable shape; 13 is what Debian ships. */
const MIN_MAJOR = 11;

/** The environment ripgrep runs with: no config file of the user's, the home the fallback reads too. */
export function ripgrepEnv(host: HostFacts): NodeJS.ProcessEnv {
  return { PATH: '/usr/bin:/bin', HOME: host.home, ...(host.xdgConfigHome ? { XDG_CONFIG_HOME: host.xdgConfigHome } : {}) };
}

function findRg(pathEnv: string | undefined): string | undefined {
  // Fixed system folders first; a relative PATH entry (a workspace's ./bin) never counts.
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin', ...(pathEnv ?? '').split(delimiter)]) {
    if (!isAbsolute(dir)) continue;
    const file = join(dir, 'rg');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: 5000, maxBuffer: 64 * 1024 }, (err, stdout) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
      resolve({ code, out: String(stdout) });
    });
  });
}

async function probe(host: HostFacts): Promise<SearchProbe> {
  if (host.searchEngine === 'builtin') return { kind: 'builtin', reason: 'search.engine is builtin' };
  const rg = findRg(host.path);
  if (!rg) return { kind: 'builtin', reason: 'ripgrep (rg) is not installed' };
  const env = ripgrepEnv(host);
  const v = await run(rg, ['--no-config', '--version'], env);
  const m = /ripgrep (\d+)\.(\d+)\.(\d+)/.exec(v.out);
  if (v.code !== 0 || !m) return { kind: 'builtin', reason: `${rg} --version failed` };
  if (Number(m[1]) < MIN_MAJOR) return { kind: 'builtin', reason: `ripgrep ${m[0]} is older than ${MIN_MAJOR}` };
  const p = await run(rg, ['--no-config', '--pcre2-version'], env);
  return { kind: 'ripgrep', path: rg, pcre2: p.code === 0, version: `${m[1]}.${m[2]}.${m[3]}` };
}

/** The engine this server searches with (probed on first use, then kept). */
export function searchEngine(host: HostFacts): Promise<SearchProbe> {
  host.searchProbe ??= probe(host).then((p) => {
    if (p.kind === 'builtin' && host.searchEngine === 'ripgrep') throw new Error(`search.engine is ripgrep, but ${p.reason}`);
    return p;
  });
  return host.searchProbe;
}
