import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientHandlers } from '../../../extensions/vscode/src/acp/connection.js';
import { DetachedServer } from '../../../extensions/vscode/src/session/detached-start.js';
import { findServer, versionToStart } from '../../../extensions/vscode/src/session/server-check.js';
import { chooseServer, type Lookers } from '../../../extensions/vscode/src/session/server-reuse.js';
import { WindowSlot } from '../../../extensions/vscode/src/session/window-slot.js';
import { ServerStateFile, type ServerState } from '../../../extensions/vscode/src/session/server-state.js';
import { CHIMERA } from '../../support/spawn.mjs';
import { tempDir, tempEnv, writeScript, type TempEnv } from '../../support/temp.mjs';

// Which detached server a window takes over: the real extension code against real `ferret serve`
// processes. Only a server that proves it is ours (a ferret serve pid, our token accepted and a
// wrong one refused) is reattached to or signalled; one from another extension or program version
// is replaced unless a turn runs on it.

let env: TempEnv | undefined;
const pids = new Set<number>();
const others: (ChildProcess | Server)[] = [];
afterEach(() => {
  for (const pid of pids) signal(pid);
  pids.clear();
  for (const o of others.splice(0)) {
    if ('kill' in o) o.kill('SIGKILL');
    else o.close();
  }
  env?.cleanup();
  env = undefined;
});

function signal(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const handlers: ClientHandlers = {
  permission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }),
  readTextFile: () => Promise.reject(new Error('not in this test')),
  writeTextFile: () => new Promise(() => undefined),
  update: () => undefined,
  extension: () => undefined,
};
const logs: string[] = [];
const events = { onLog: (l: string) => void logs.push(l), onHttpUrl: () => undefined, onUnexpectedExit: () => undefined };

function settings(e: TempEnv) {
  const model = writeScript(e.ws, 'model.json', { responses: [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 30' } }] }, { chunks: ['slept'] }] });
  return { command: process.execPath, args: [CHIMERA, 'ferret', 'serve', '--model', `scripted:${model}`, '--approval', 'full-auto'], env: { CHIMERA_HOME: e.home } };
}

let windows = 0;

/** Opens as a window would (extension `version`), then leaves as a reloading window does; answers server.json after. */
async function openAndLeave(file: ServerStateFile, version: string): Promise<ServerState> {
  // A window of its own each time (its record in the shared folder, window-slot.ts).
  const slot = await WindowSlot.claim(file.dir, `window-${++windows}`, process.pid, 0);
  const ds = await DetachedServer.open(settings(env!), env!.ws, version, handlers, events, file, slot);
  await ds.server.leave();
  const st = file.load()!;
  pids.add(st.pid);
  return st;
}

describe('findServer: is the server in server.json ours?', () => {
  it('yes for our ferret serve with our token; no for a wrong token, a pid that is not ferret, or a stranger on the port', async () => {
    env = tempEnv();
    const file = new ServerStateFile(tempDir('storage'));
    const st = await openAndLeave(file, '1.0.0');
    expect(await findServer(st.pid, st.url, st.token)).toEqual({ version: '0.1.0', running: false });
    expect(await findServer(st.pid, st.url, 'a-token-someone-guessed')).toBeUndefined();
    // A pid the system gave to another program (here: a sleep) is never trusted.
    const sleeper = spawn('sleep', ['30']);
    others.push(sleeper);
    expect(await findServer(sleeper.pid!, st.url, st.token)).toBeUndefined();
    // A process that took a port and answers 200 to anything: it accepts a wrong token too.
    const stranger = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"version":"0.1.0","sessions":[]}'));
    others.push(stranger);
    await new Promise<void>((r) => stranger.listen(0, '127.0.0.1', r));
    expect(await findServer(st.pid, `http://127.0.0.1:${(stranger.address() as AddressInfo).port}`, st.token)).toBeUndefined();
  }, 60_000);
});

describe('DetachedServer.open: reattach, replace or start beside', () => {
  it('reattaches to the same version; replaces an idle one another extension version started; keeps one a turn runs on', async () => {
    env = tempEnv();
    const file = new ServerStateFile(tempDir('storage'));
    const first = await openAndLeave(file, '1.0.0');
    expect(first).toMatchObject({ extension: '1.0.0', version: '0.1.0' });
    expect(first.program).toContain('main.js');

    // A reload, nothing upgraded: the same server.
    expect((await openAndLeave(file, '1.0.0')).pid).toBe(first.pid);

    // The extension was upgraded and nothing runs: the old server is stopped, a new one started.
    const upgraded = await openAndLeave(file, '1.1.0');
    expect(upgraded.pid).not.toBe(first.pid);
    expect(upgraded.extension).toBe('1.1.0');
    await expect.poll(() => alive(first.pid), { timeout: 8000 }).toBe(false);
    expect(logs.some((l) => l.includes('the extension changed (1.0.0 started it, this is 1.1.0)'))).toBe(true);

    // A turn runs on it (a window's command sleeps): upgraded again, the window still takes it over.
    const auth = { authorization: `Bearer ${upgraded.token}`, 'content-type': 'application/json' };
    const made = (await (await fetch(`${upgraded.url}/session`, { method: 'POST', headers: auth, body: '{}' })).json()) as { sessionId: string };
    await fetch(`${upgraded.url}/session/${made.sessionId}/message?wait=false`, { method: 'POST', headers: auth, body: JSON.stringify({ text: 'sleep' }) });
    await expect.poll(async () => (await findServer(upgraded.pid, upgraded.url, upgraded.token))?.running, { timeout: 8000 }).toBe(true);
    const kept = await openAndLeave(file, '1.2.0');
    expect(kept.pid).toBe(upgraded.pid);
    expect(alive(upgraded.pid)).toBe(true);
    expect(logs.some((l) => l.includes('reattaching to the running server although the extension changed'))).toBe(true);
  }, 90_000);

  it('starts a new server, signalling nothing, when the recorded pid is not a ferret server', async () => {
    env = tempEnv();
    const file = new ServerStateFile(tempDir('storage'));
    const first = await openAndLeave(file, '1.0.0');
    // The server went and its pid went to another program; the port still answers (here: the old server).
    const sleeper = spawn('sleep', ['30'], { detached: true });
    others.push(sleeper);
    file.save({ ...first, pid: sleeper.pid! });
    const next = await openAndLeave(file, '2.0.0');
    expect(next.pid).not.toBe(sleeper.pid);
    expect(next.pid).not.toBe(first.pid);
    expect(alive(sleeper.pid!)).toBe(true);
    expect(alive(first.pid)).toBe(true); // not proven ours by the file any more: left to its --idle-exit
  }, 60_000);
});

describe('chooseServer', () => {
  const st: ServerState = { pid: 1, url: 'http://127.0.0.1:1', token: 't', cwd: '/w', settings: { command: 'chimera', args: ['ferret', 'serve'], env: {} }, extension: '1.0.0' };
  const want = { cwd: '/w', settings: st.settings, extension: '1.0.0', program: undefined };
  const look = (found: { version?: string; running: boolean } | undefined, next?: string): Lookers => ({
    find: () => Promise.resolve(found && { version: found.version, running: found.running }),
    versionToStart: () => Promise.resolve(next),
  });

  it('compares the program on disk when it can be found', async () => {
    const recorded = { ...st, program: '/bin/chimera:10:1' };
    expect((await chooseServer(recorded, { ...want, program: '/bin/chimera:10:1' }, look({ running: false }))).kind).toBe('reuse');
    const changed = await chooseServer(recorded, { ...want, program: '/bin/chimera:12:2' }, look({ version: '0.1.0', running: false }));
    expect(changed).toEqual({ kind: 'replace', why: 'chimera changed on disk since it started (it runs 0.1.0)' });
  });

  it("asks a command that is no file its version, and compares it with the server's", async () => {
    expect(await chooseServer(st, want, look({ version: '0.1.0', running: false }, '0.2.0'))).toEqual({ kind: 'replace', why: 'it runs 0.1.0; chimera is now 0.2.0' });
    expect((await chooseServer(st, want, look({ version: '0.1.0', running: false }, '0.1.0'))).kind).toBe('reuse');
    expect(await chooseServer(st, want, look({ version: '0.1.0', running: true }, '0.2.0'))).toMatchObject({ kind: 'reuse', outdated: 'it runs 0.1.0; chimera is now 0.2.0' });
  });

  it('starts one beside a server that is not ours, or ran with other settings', async () => {
    expect(await chooseServer(st, want, look(undefined))).toEqual({ kind: 'start', why: 'no server of ours answers at http://127.0.0.1:1 (pid 1)' });
    expect((await chooseServer(st, { ...want, settings: { ...st.settings, args: ['ferret', 'serve', '--model', 'x'] } }, look({ running: false }))).kind).toBe('start');
  });
});

describe('versionToStart', () => {
  it('asks the command these settings start (args before serve, then --version)', async () => {
    env = tempEnv();
    expect(await versionToStart(settings(env), env.ws)).toBe('0.1.0');
  });
});
