import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientHandlers } from '../../../extensions/vscode/src/acp/connection.js';
import { DetachedServer } from '../../../extensions/vscode/src/session/detached-start.js';
import { findServer, versionToStart } from '../../../extensions/vscode/src/session/server-check.js';
import { chooseServer, type Lookers } from '../../../extensions/vscode/src/session/server-reuse.js';
import { WindowSlot } from '../../../extensions/vscode/src/session/window-slot.js';
import { ServerStateFile, serverStateDir, settingsHash, type ServerState } from '../../../extensions/vscode/src/session/server-state.js';
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

describe('an upgraded window beside a live one', () => {
  it('keeps the server the other window is connected to, and replaces it once no window uses it', async () => {
    env = tempEnv();
    const file = new ServerStateFile(tempDir('storage'));
    // Window A: its own extension host (a live process), connected and staying so.
    const hostA = spawn('sleep', ['60']);
    others.push(hostA);
    const slotA = await WindowSlot.claim(file.dir, 'window-A', hostA.pid, 0);
    const exits: unknown[] = [];
    const a = await DetachedServer.open(settings(env), env.ws, '1.0.0', handlers, { ...events, onUnexpectedExit: (e) => void exits.push(e) }, file, slotA);
    const first = file.load()!;
    pids.add(first.pid);

    // Window B opens after an upgrade: A's server is idle but A is connected, so B shares it.
    const b = await openAndLeave(file, '1.1.0');
    expect(b.pid).toBe(first.pid);
    expect(logs.some((l) => l.includes('another window is connected to it'))).toBe(true);
    await new Promise((r) => setTimeout(r, 1500)); // an exit would be seen within a second
    expect(alive(first.pid)).toBe(true);
    expect(exits).toEqual([]);
    expect(a.server.alive).toBe(true);

    // A closes: the next upgraded window replaces the old server.
    await a.server.leave();
    slotA.release();
    const c = await openAndLeave(file, '1.1.0');
    expect(c.pid).not.toBe(first.pid);
    await expect.poll(() => alive(first.pid), { timeout: 8000 }).toBe(false);
  }, 90_000);
});

describe('server.json and the server it names must prove themselves', () => {
  it('no for a url that is not 127.0.0.1 or [::1], nor for another ferret server\'s pid', async () => {
    env = tempEnv();
    const one = await openAndLeave(new ServerStateFile(tempDir('storage')), '1.0.0');
    const two = await openAndLeave(new ServerStateFile(tempDir('storage')), '1.0.0');
    expect(await findServer(one.pid, one.url, one.token)).toBeDefined();
    // The same server, named by a host name that could resolve anywhere.
    expect(await findServer(one.pid, one.url.replace('127.0.0.1', 'localhost'), one.token)).toBeUndefined();
    // A ferret serve process, but not the one on that port.
    expect(await findServer(two.pid, one.url, one.token)).toBeUndefined();
  }, 60_000);

  it('a server.json others may read, another user owns, or naming a remote url is ignored', async () => {
    env = tempEnv();
    const file = new ServerStateFile(tempDir('storage'));
    const st = await openAndLeave(file, '1.0.0');
    const path = join(file.dir, 'server.json');
    const said: string[] = [];
    expect(file.load()).toMatchObject({ pid: st.pid });
    // Only a hash of the settings is kept: chimera.env (API keys) is not copied.
    expect(readFileSync(path, 'utf8')).not.toContain(env.home);
    chmodSync(path, 0o644);
    expect(file.load((l) => said.push(l))).toBeUndefined();
    expect(said.join('\n')).toContain('others may read or write it (mode 644)');
    chmodSync(path, 0o600);
    chownSync(path, 65534, 65534);
    expect(file.load((l) => said.push(l))).toBeUndefined();
    expect(said.join('\n')).toContain('belongs to uid 65534');
    chownSync(path, process.getuid!(), process.getgid!());
    writeFileSync(path, JSON.stringify({ ...st, url: st.url.replace('127.0.0.1', 'example.com') }), { mode: 0o600 });
    expect(file.load((l) => said.push(l))).toBeUndefined();
    expect(said.join('\n')).toContain('is not http://127.0.0.1 or http://[::1]');
  }, 60_000);
});

describe('chooseServer', () => {
  const settingsOf = { command: 'chimera', args: ['ferret', 'serve'], env: {} };
  const st: ServerState = { pid: 1, url: 'http://127.0.0.1:1', token: 't', cwd: '/w', settings: settingsHash(settingsOf), extension: '1.0.0' };
  const want = { cwd: '/w', settings: settingsOf, extension: '1.0.0', program: undefined };
  const look = (found: { version?: string; running: boolean } | undefined, next?: string, usedBy = 0): Lookers => ({
    find: () => Promise.resolve(found && { version: found.version, running: found.running }),
    versionToStart: () => Promise.resolve(next),
    usedBy: () => usedBy,
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

  it('keeps an outdated idle server another live window is connected to', async () => {
    expect(await chooseServer(st, want, look({ version: '0.1.0', running: false }, '0.2.0', 1))).toEqual({
      kind: 'reuse', found: { version: '0.1.0', running: false }, outdated: 'it runs 0.1.0; chimera is now 0.2.0', kept: 'another window is connected to it',
    });
  });

  it('starts one beside a server that is not ours, or ran with other settings', async () => {
    expect(await chooseServer(st, want, look(undefined))).toEqual({ kind: 'start', why: 'no server of ours answers at http://127.0.0.1:1 (pid 1)' });
    expect((await chooseServer(st, { ...want, settings: { ...settingsOf, args: ['ferret', 'serve', '--model', 'x'] } }, look({ running: false }))).kind).toBe('start');
  });
});

describe('versionToStart', () => {
  it('asks the command these settings start (args before serve, then --version)', async () => {
    env = tempEnv();
    expect(await versionToStart(settings(env), env.ws)).toBe('0.1.0');
  });
});

describe('serverStateDir', () => {
  it("is under CHIMERA_HOME (the settings', else the environment's, else ~/.chimera), one folder per workspace", () => {
    const s = (env: Record<string, string>) => ({ command: 'chimera', args: ['ferret', 'serve'], env });
    const a = serverStateDir(s({ CHIMERA_HOME: '/h/set' }), '/w/one', {}, '/home/u');
    expect(a.startsWith('/h/set/ferret/vscode/')).toBe(true);
    expect(serverStateDir(s({ CHIMERA_HOME: '/h/set' }), '/w/one/', {}, '/home/u')).toBe(a);
    expect(serverStateDir(s({ CHIMERA_HOME: '/h/set' }), '/w/two', {}, '/home/u')).not.toBe(a);
    expect(serverStateDir(s({}), '/w/one', { CHIMERA_HOME: '/h/env' }, '/home/u').startsWith('/h/env/ferret/vscode/')).toBe(true);
    expect(serverStateDir(s({}), '/w/one', {}, '/home/u').startsWith('/home/u/.chimera/ferret/vscode/')).toBe(true);
  });
});
