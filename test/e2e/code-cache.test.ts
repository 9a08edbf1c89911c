// The compiled code a server keeps for the next start (src/cli/code-cache.ts): a second server on
// the same CHIMERA_HOME starts from it and works in full (ACP on stdio, a turn with its tools,
// ACP over HTTP, whose chunk calls import()), a damaged cache only costs a compile, and
// FERRET_CODE_CACHE=0 keeps nothing.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FerretClient } from '../support/ferret-client.mjs';
import { api } from '../support/http.mjs';
import { tempDir, writeScript } from '../support/temp.mjs';

const V1_INIT = { protocolVersion: 1, clientCapabilities: {} };
const live: FerretClient[] = [];
afterEach(async () => {
  await Promise.all(live.splice(0).map((f) => f.kill()));
});

function server(home: string, ws: string, model: string, env: NodeJS.ProcessEnv = {}): FerretClient {
  const f = new FerretClient(['--cwd', ws, '--model', `scripted:${model}`, '--approval', 'full-auto', '--http', '--port', '0'], {
    CHIMERA_HOME: home,
    FERRET_LOG_LEVEL: 'info',
    ...env,
  });
  live.push(f);
  return f;
}

const cacheDir = (home: string) => join(home, 'ferret', 'code-cache', `${process.version}-${process.arch}`);
/** Node >= 22.1 keeps its own compile cache there (its layout); older Nodes get ferret's, a file per script. */
const nodeOwnCache = typeof (Module as unknown as { enableCompileCache?: unknown }).enableCompileCache === 'function';
const cacheFiles = (home: string): string[] => {
  try {
    return readdirSync(cacheDir(home), { recursive: true, encoding: 'utf8' }).filter((n) => statSync(join(cacheDir(home), n)).isFile());
  } catch {
    return [];
  }
};

/** initialize, session/new, one turn that writes a file and runs a command; the warm-up's end. */
async function useOnce(f: FerretClient, ws: string): Promise<void> {
  await f.call('initialize', V1_INIT);
  const { sessionId } = (await f.call('session/new', { cwd: ws, mcpServers: [] })) as { sessionId: string };
  const done = (await f.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go' }] })) as { stopReason: string };
  expect(done.stopReason).toBe('end_turn');
  await f.log.waitFor((text) => (text.includes('"warmed up"') ? true : undefined), 30_000, 'the warm-up');
}

/** ACP over HTTP (/acp): the chunk that imports the ACP SDK, an ES module, with import(). */
async function acpOverHttp(f: FerretClient): Promise<void> {
  const url = await f.listening();
  const r = await api(url, 'POST', '/acp', { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } }, undefined, {
    accept: 'application/json, text/event-stream',
  });
  expect(r.status).toBe(200);
  expect(r.headers.get('acp-connection-id')).toBeTruthy();
}

describe('compiled code kept between starts', () => {
  const script = (ws: string) =>
    writeScript(ws, 'model.json', {
      responses: [
        // grep and glob too: what they load (and the V8 flag they rely on) must not spoil the cache.
        {
          chunks: ['Writing.'],
          toolCalls: [
            { name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' } },
            { name: 'bash', arguments: { command: 'cat a.txt' } },
            { name: 'grep', arguments: { pattern: 'a+' } },
            { name: 'glob', arguments: { pattern: '*.txt' } },
          ],
        },
        { chunks: ['Done.'] },
      ],
    });

  /** A home whose first server has been used once and has kept its compiled code. */
  async function primedHome(): Promise<{ home: string; ws: string; model: string; kept: string[] }> {
    const home = tempDir('cc-home');
    const ws = tempDir('cc-ws');
    const model = script(ws);
    const first = server(home, ws, model);
    await useOnce(first, ws);
    await first.close();
    const kept = cacheFiles(home);
    expect(kept.length).toBeGreaterThan(5);
    return { home, ws, model, kept };
  }

  it('a second server starts from the first one\'s code and works in full, with nothing on stderr but its logs', async () => {
    const { home, ws, model, kept } = await primedHome();
    if (!nodeOwnCache) {
      expect(kept.some((n) => n.startsWith('program.js-'))).toBe(true);
      // The start-up chunk (rolldown.config.mjs): the core, both dialects, zod.
      expect(kept.some((n) => n.startsWith('startup-'))).toBe(true);
    }
    expect(statSync(cacheDir(home)).mode & 0o077).toBe(0); // the server's rights run that code: owner-only

    // What an old build and an old Node left: gone at the next warm-up; what is in use stays.
    const monthAgo = new Date(Date.now() - 30 * 86_400_000);
    const stale = join(cacheDir(home), 'old-build.bin');
    writeFileSync(stale, 'x');
    utimesSync(stale, monthAgo, monthAgo);
    const oldNode = join(cacheDir(home), '..', 'v0.0.0-x64');
    mkdirSync(oldNode);
    utimesSync(oldNode, monthAgo, monthAgo);
    for (const n of kept) utimesSync(join(cacheDir(home), n), monthAgo, monthAgo);
    const programFile = kept.find((n) => n.startsWith('program.js-'));
    const before = programFile ? readFileSync(join(cacheDir(home), programFile)) : undefined;

    const second = server(home, ws, model);
    await useOnce(second, ws);
    await acpOverHttp(second);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(oldNode)).toBe(false);
    if (!nodeOwnCache) {
      expect(cacheFiles(home).filter((n) => n.startsWith('program.js-'))).toHaveLength(1);
      // V8 took the first server's code: the second wrote none of it again.
      expect(readFileSync(join(cacheDir(home), programFile!)).equals(before!)).toBe(true);
    }
    // Every line on stderr is one of pino's: no Node warning, no failed import.
    const stray = second.stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{"level"'));
    expect(stray).toEqual([]);
    expect(second.stderr).not.toMatch(/"level":(50|60)/);
  }, 90_000);

  it('a damaged cache costs a compile, nothing else', async () => {
    const { home, ws, model, kept: files } = await primedHome();
    // Every file damaged in the middle (its header intact: what V8 itself does not check), and
    // every other one cut short, as a torn write would leave it.
    files.forEach((n, i) => {
      const p = join(cacheDir(home), n);
      const b = readFileSync(p);
      if (i % 2 === 0) {
        b.fill(0x5a, Math.floor(b.length / 2), Math.floor(b.length / 2) + 64);
        writeFileSync(p, b);
      } else {
        writeFileSync(p, b.subarray(0, Math.floor(b.length / 2)));
      }
    });
    const second = server(home, ws, model);
    await useOnce(second, ws);
    await acpOverHttp(second);
    expect(second.stderr).not.toMatch(/"level":(50|60)/);
    if (!nodeOwnCache) {
      // …and the code refused is kept again, fresh, at the end of the warm-up.
      const program = cacheFiles(home).find((n) => n.startsWith('program.js-'))!;
      const b = readFileSync(join(cacheDir(home), program));
      expect(b.subarray(Math.floor(b.length / 2), Math.floor(b.length / 2) + 64).every((x) => x === 0x5a)).toBe(false);
    }
  }, 90_000);

  it('FERRET_CODE_CACHE=0 keeps nothing', async () => {
    const home = tempDir('cc-home');
    const ws = tempDir('cc-ws');
    const f = server(home, ws, script(ws), { FERRET_CODE_CACHE: '0' });
    await useOnce(f, ws);
    expect(cacheFiles(home)).toEqual([]);
  }, 60_000);
});
