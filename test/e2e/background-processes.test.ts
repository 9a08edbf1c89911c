import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvents } from '../support/eventlog.mjs';
import { api, type Json } from '../support/http.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { writeScript } from '../support/temp.mjs';

// Background processes from the built CLI, confined as every command (workspace-write, bubblewrap):
// a dev server started by one call answers a `curl` made by a later call (they share the session's
// network namespace), its output is read, it is stopped; closing the session, stopping the server
// and killing it (SIGKILL) each leave no process of it behind (pgrep).

const TOKEN = 'tok-procs-0123456789abcdef';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pids whose command line holds `pattern` (pgrep -f), other than pgrep's own. */
function pgrep(pattern: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // exit 1: none
  }
}

async function gone(pattern: string, ms = 5000): Promise<number[]> {
  const end = Date.now() + ms;
  while (pgrep(pattern).length && Date.now() < end) await sleep(50);
  return pgrep(pattern);
}

const outputs = (ups: Json[]) => ups.filter((u) => u['kind'] === 'tool_call_end').map((u) => String((u['result'] as Json)['output']));

describe('background processes (stdio, ferret dialect)', () => {
  const { env, start } = ferretPerTest();

  it('a repository with a hostile config that a running background process makes is moved aside while it still runs', async () => {
    const marker = `ferret-bg-sweep-${process.pid}-${Date.now()}`;
    const model = writeScript(env.home, 'model.json', {
      responses: [
        {
          toolCalls: [
            { name: 'bash', arguments: { command: `mkdir -p sub && cd sub && git init -q && git config core.fsmonitor 'touch PWNED; false' && exec -a ${marker} sleep 60`, background: true } },
          ],
        },
        { chunks: ['started'] },
      ],
    });
    const srv = start(['--model', `scripted:${model}`, '--approval', 'full-auto', '--sandbox', 'workspace-write']);
    const id = (await srv.call('session/new', {}))['sessionId'] as string;
    await srv.call('session/message', { sessionId: id, text: 'start it' });
    expect(pgrep(marker).length).toBeGreaterThan(0); // still running
    const end = Date.now() + 5000;
    while (existsSync(join(env.ws, 'sub', '.git', 'config')) && Date.now() < end) await sleep(100);
    expect(existsSync(join(env.ws, 'sub', '.git', 'config'))).toBe(false);
    expect(pgrep(marker).length).toBeGreaterThan(0); // moved aside without waiting for the process to end
    await srv.close(); // the server stopping ends its processes
    expect(await gone(marker)).toEqual([]);
  }, 30_000);

  it('a server started in the background answers a curl from a later call; its output is read; process_kill stops it; a write outside stays blocked', async () => {
    // A private port per run: the session's namespace is its own, but pgrep looks at the whole machine.
    const port = 20000 + Math.floor(Math.random() * 20000);
    writeFileSync(join(env.ws, 'hello.txt'), 'hello from the workspace\n');
    const model = writeScript(env.home, 'model.json', {
      responses: [
        { chunks: ['starting'], toolCalls: [{ name: 'bash', arguments: { command: `python3 -u -m http.server ${port} --bind 127.0.0.1`, background: true } }] },
        {
          chunks: ['asking it'],
          toolCalls: [{ name: 'bash', arguments: { command: `for i in $(seq 100); do curl -sf http://127.0.0.1:${port}/hello.txt && break; sleep 0.1; done` } }],
        },
        { chunks: ['reading'], toolCalls: [{ name: 'process_output', arguments: { id: 'proc_1' } }] },
        { chunks: ['escaping'], toolCalls: [{ name: 'process_input', arguments: { id: 'proc_1', text: 'ignored\n' } }] },
        { chunks: ['outside'], toolCalls: [{ name: 'bash', arguments: { command: 'echo x > /etc/ferret-bg-probe' } }] },
        { chunks: ['network'], toolCalls: [{ name: 'bash', arguments: { command: 'curl -sS -m 3 http://1.1.1.1/ ; echo "curl exit $?"; tail -n +3 /proc/net/dev | cut -d: -f1' } }] },
        { chunks: ['stopping'], toolCalls: [{ name: 'process_kill', arguments: { id: 'proc_1' } }] },
        { chunks: ['again'], toolCalls: [{ name: 'process_output', arguments: { id: 'proc_1' } }] },
        { chunks: ['done'] },
      ],
    });
    const srv = start(['--model', `scripted:${model}`, '--approval', 'full-auto', '--sandbox', 'workspace-write']);
    const id = (await srv.call('session/new', {}))['sessionId'] as string;
    await srv.call('session/message', { sessionId: id, text: 'serve the folder and fetch hello.txt' });
    const out = outputs(srv.updates(id));
    expect(out[0]).toMatch(/^started background process proc_1/);
    expect(out[1]).toContain('hello from the workspace');
    expect(out[1]).toContain('[exit code 0]');
    expect(out[2]).toMatch(/^\[proc_1: running\]/);
    expect(out[2]).toContain('"GET /hello.txt HTTP/1.1" 200');
    expect(out[3]).toBe('sent 8 characters to proc_1');
    expect(out[4]).toMatch(/Read-only file system/);
    // The shared namespace has loopback only: nothing outside is reached.
    expect(out[5]).toMatch(/curl exit [1-9]/);
    // Its interfaces (/proc/net is the namespace's own): loopback alone.
    expect(out[5]!.split('curl exit')[1]!.replace(/\[exit code \d+\]/, '').trim().split(/\s+/)).toEqual(['7', 'lo']);
    expect(out[6]).toMatch(/^proc_1 stopped \(stopped, exit code/);
    expect(out[7]).toMatch(/^\[proc_1: stopped/);
    expect(pgrep(`http.server ${port}`)).toEqual([]);

    const ups = srv.updates(id);
    const started = ups.find((u) => u['kind'] === 'process_started');
    expect(started).toMatchObject({ id: 'proc_1', command: `python3 -u -m http.server ${port} --bind 127.0.0.1` });
    // The server's log line reached the session log as process_output (what a replay shows).
    const logged = ups.filter((u) => u['kind'] === 'process_output' && u['id'] === 'proc_1').map((u) => String(u['stderr'] ?? '') + String(u['stdout'] ?? ''));
    expect(logged.join('')).toContain('GET /hello.txt');
    expect(ups.filter((u) => u['kind'] === 'process_exited')).toEqual([expect.objectContaining({ id: 'proc_1', reason: 'killed' })]);
  });

  it('the server stopping (SIGTERM) ends its processes, and so does a SIGKILL of the server', async () => {
    for (const how of ['stop', 'kill'] as const) {
      const mark = 7_000_000 + Math.floor(Math.random() * 1_000_000);
      const model = writeScript(env.home, `model-${how}.json`, {
        responses: [{ chunks: ['go'], toolCalls: [{ name: 'bash', arguments: { command: `sleep ${mark}`, background: true } }] }, { chunks: ['ok'] }],
      });
      const srv = start(['--model', `scripted:${model}`, '--approval', 'full-auto']);
      const id = (await srv.call('session/new', {}))['sessionId'] as string;
      await srv.call('session/message', { sessionId: id, text: 'sleep in the background' });
      expect(outputs(srv.updates(id))[0]).toMatch(/^started background process proc_1/);
      expect(pgrep(`sleep ${mark}`).length).toBeGreaterThan(0);
      await (how === 'stop' ? srv.stop() : srv.kill());
      expect(await gone(`sleep ${mark}`), `after ${how}`).toEqual([]);
    }
  });
});

describe('background processes (HTTP)', () => {
  const { env, startHttp } = ferretPerTest();

  it('/status lists what runs; POST /session/:id/close ends every process of the session', async () => {
    const mark = 8_000_000 + Math.floor(Math.random() * 1_000_000);
    const model = writeScript(env.home, 'model.json', {
      responses: [
        {
          chunks: ['two'],
          toolCalls: [
            { name: 'bash', arguments: { command: `sleep ${mark}`, background: true } },
            { name: 'bash', arguments: { command: `bash -c 'while read l; do echo "got $l"; done; sleep ${mark + 1}'`, background: true } },
          ],
        },
        { chunks: ['talk'], toolCalls: [{ name: 'process_input', arguments: { id: 'proc_2', text: 'ping\n' } }] },
        { chunks: ['wait'], toolCalls: [{ name: 'bash', arguments: { command: 'sleep 0.5' } }] },
        { chunks: ['listen'], toolCalls: [{ name: 'process_output', arguments: { id: 'proc_2' } }] },
        { chunks: ['ok'] },
      ],
    });
    const { url } = await startHttp(['--model', `scripted:${model}`, '--approval', 'full-auto'], { FERRET_SERVER_TOKEN: TOKEN });
    const id = (await api(url, 'POST', '/session', {}, TOKEN)).body['sessionId'] as string;
    const turn = await api(url, 'POST', `/session/${id}/message`, { text: 'start two' }, TOKEN);
    expect(turn.status).toBe(200);
    // The answer to the input, read by process_output, and in the log as the process's output.
    const ends = readEvents(env.home, id).filter((e) => e.type === 'tool_call_end').map((e) => String(e.data.output));
    expect(ends.find((o) => o.startsWith('[proc_2'))).toMatch(/^\[proc_2: running\]\ngot ping/);
    expect(readEvents(env.home, id).some((e) => e.type === 'process_output' && e.data.processId === 'proc_2' && String(e.data.text).includes('got ping'))).toBe(true);
    const status = await api(url, 'POST', `/session/${id}/message`, { text: '/status' }, TOKEN);
    const said = JSON.stringify(status.body);
    expect(said).toContain('background processes: 2');
    expect(said).toContain(`proc_1`);
    expect(said).toContain(`sleep ${mark}`);
    expect(pgrep(`sleep ${mark}`).length).toBeGreaterThan(0);
    expect((await api(url, 'POST', `/session/${id}/close`, undefined, TOKEN)).status).toBeLessThan(300);
    expect(await gone(`sleep ${mark}`)).toEqual([]);
    expect(await gone(`sleep ${mark + 1}`)).toEqual([]);
    // Their ends are in the log, said as the session's end.
    const exits = readEvents(env.home, id).filter((e) => e.type === 'process_exited');
    expect(exits.map((e) => [e.data.processId, e.data.reason])).toEqual([
      ['proc_1', 'session_end'],
      ['proc_2', 'session_end'],
    ]);
  });
});
