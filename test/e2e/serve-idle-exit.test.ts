import { createInterface } from 'node:readline';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, spawnFerret, stopChild } from '../support/spawn.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';

// `serve --idle-exit`: the server an editor starts detached (docs/ide.md, VS Code) ends by itself
// once no client has been connected and no turn has run for the period, and not before.

let env: TempEnv | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child) await stopChild(child, 'SIGKILL');
  env?.cleanup();
  env = child = undefined;
});

const TOKEN = 'idle-exit-test-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

/** Starts `serve --http --no-stdio --idle-exit <s>`; resolves with its URL once it listens. */
async function start(idleSeconds: string, model: string): Promise<string> {
  env ??= tempEnv();
  child = spawnFerret(['--http', '--port', '0', '--no-stdio', '--idle-exit', idleSeconds, '--model', `scripted:${model}`, '--approval', 'full-auto'], {
    cwd: env.ws,
    env: { CHIMERA_HOME: env.home, FERRET_SERVER_TOKEN: TOKEN, FERRET_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines = createInterface({ input: child.stderr! });
  return new Promise((resolve, reject) => {
    lines.on('line', (l) => {
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(l);
      if (m && l.includes('listening')) resolve(m[1]!);
    });
    void exited(child!).then((c) => reject(new Error(`exited ${c} before listening`)));
  });
}

const exitWithin = (ms: number) => Promise.race([exited(child!).then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe('serve --idle-exit', () => {
  it('stays while a client is connected or a turn runs, then exits by itself once nobody is', async () => {
    env = tempEnv();
    const model = writeScript(env.ws, 'model.json', { responses: [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 2.5' } }] }, { chunks: ['slept'] }] });
    const url = await start('1', model);
    const created = await fetch(`${url}/session`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
    expect(created.status).toBe(201);
    const { sessionId } = (await created.json()) as { sessionId: string };

    // An SSE reader is a client: 2.5 s of it keeps a 1 s idle server up.
    const reader = new AbortController();
    const events = await fetch(`${url}/session/${sessionId}/events`, { headers: auth, signal: reader.signal });
    expect(events.status).toBe(200);
    expect(await exitWithin(2500)).toBe(false);
    reader.abort();

    // A turn with nobody watching keeps it up too (the prompt is fire-and-forget: its request ends at once).
    const sent = await fetch(`${url}/session/${sessionId}/message?wait=false`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ text: 'sleep' }) });
    expect(sent.status).toBeLessThan(300);
    expect(await exitWithin(2000)).toBe(false);

    // The turn ends (~2.5 s), then a quiet second: it goes, cleanly.
    const t0 = Date.now();
    expect(await exitWithin(8000)).toBe(true);
    expect(child!.exitCode).toBe(0);
    expect(Date.now() - t0).toBeGreaterThan(500);
  }, 30_000);

  it('needs --http', async () => {
    env = tempEnv();
    child = spawnFerret(['--idle-exit', '5'], { cwd: env.ws, env: { CHIMERA_HOME: env.home }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    expect(await exited(child)).toBe(2);
    expect(err).toContain('--idle-exit: needs --http');
  });
});
