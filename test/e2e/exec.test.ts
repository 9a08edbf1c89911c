import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHIMERA, REPO, exited, track } from '../support/spawn.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';

// `chimera ferret exec`: the one-shot mode a CI script runs, checked as that script would.

let env: TempEnv;
afterEach(() => env?.cleanup());

function execSync(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [CHIMERA, 'ferret', 'exec', '--cwd', env.ws, ...args], {
    env: { ...process.env, CHIMERA_HOME: env.home, FERRET_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout: 30_000,
    ...(input !== undefined ? { input } : {}),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('chimera ferret exec', () => {
  it("runs the README's hello example: progress on stderr, the final text on stdout, exit 0", () => {
    env = tempEnv();
    copyFileSync(join(REPO, 'test/fixtures/hello.json'), join(env.ws, 'hello.json'));
    const r = execSync(['--model', 'scripted:hello.json', 'make hello.py']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Done: hello.py prints hi.\n');
    expect(r.stderr).toMatch(/▸ Write hello\.py/);
    expect(r.stderr).toMatch(/■ end_turn/);
    expect(readFileSync(join(env.ws, 'hello.py'), 'utf8')).toContain('print');
  });

  it('--json prints one parseable event per line, ending with turn_end; --resume continues the session; the prompt may come on stdin', () => {
    env = tempEnv();
    const model = writeScript(env.ws, 'two.json', { responses: [{ chunks: ['first'] }, { chunks: ['second'] }] });
    const r = execSync(['--json', '--model', `scripted:${model}`], 'from stdin');
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; sessionId: string; [k: string]: unknown });
    expect(events).toContainEqual(expect.objectContaining({ kind: 'session_info', title: 'from stdin' }));
    expect(events).toContainEqual(expect.objectContaining({ kind: 'agent_message_chunk', text: 'first' }));
    expect(events.at(-1)).toMatchObject({ kind: 'turn_end', stop_reason: 'end_turn', duration_ms: expect.any(Number) });
    const again = execSync(['--resume', events[0]!.sessionId, 'go on']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('second\n');
  });

  it('exec keeps the same folds as serve: the snapshot of a long session carries the IDE frames\' state, before and after --resume', () => {
    env = tempEnv();
    const chunks = Array.from({ length: 2100 }, (_, i) => `w${i} `); // long enough to keep a snapshot
    const model = writeScript(env.ws, 'long.json', { responses: [{ chunks }, { chunks: ['again'] }] });
    const r = execSync(['--json', '--model', `scripted:${model}`, 'go']);
    expect(r.code, r.stderr).toBe(0);
    const id = (JSON.parse(r.stdout.split('\n')[0]!) as { sessionId: string }).sessionId;
    const header = () => JSON.parse(readFileSync(join(env.home, 'eventlog', `ferret-${id}`, 'snapshot.json'), 'utf8').split('\n')[0]!) as { seq: number; folds: Record<string, unknown> };
    const first = header();
    expect(Object.keys(first.folds)).toEqual(['ide-frames']); // what `serve` keeps, so the next serve loads from it
    const again = execSync(['--resume', id, 'more']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('again\n');
    const second = header();
    expect(second.seq).toBeGreaterThan(first.seq);
    expect(Object.keys(second.folds)).toEqual(['ide-frames']);
  });

  it('a permission nobody can answer is denied, the model hears why, and the exit code is 4', () => {
    env = tempEnv();
    const model = writeScript(env.ws, 'push.json', {
      responses: [{ toolCalls: [{ name: 'bash', arguments: { command: 'git push origin main' } }] }, { chunks: ['could not push'] }],
    });
    const r = execSync(['--model', `scripted:${model}`, 'push it']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/denied bash/);
    expect(r.stdout).toBe('could not push\n');
  });

  it('an error ends with exit 1 and says why; a bad flag exits 2 naming it', () => {
    env = tempEnv();
    const model = writeScript(env.ws, 'err.json', { responses: [{ error: 'provider exploded' }] });
    const r = execSync(['--model', `scripted:${model}`, 'hi']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/provider exploded/);
    const bad = execSync(['--approval', 'yolo', 'hi']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--approval: unknown preset "yolo"/);
  });

  it('no model that can run: exit 2 with the message once, and no session is made', () => {
    env = tempEnv();
    const r = spawnSync(process.execPath, [CHIMERA, 'ferret', 'exec', '--cwd', env.ws, 'hi'], {
      env: { ...process.env, CHIMERA_HOME: env.home, FERRET_LOG_LEVEL: 'warn', FERRET_MODEL: '', OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.match(/No model is configured/g)).toHaveLength(1);
    expect(existsSync(join(env.home, 'eventlog')) ? readdirSync(join(env.home, 'eventlog')) : []).toEqual([]);
  });

  it('/nonsense is answered locally: exit 0, no model call (the scripted file is untouched)', () => {
    env = tempEnv();
    const model = writeScript(env.ws, 'one.json', { responses: [] });
    const r = execSync(['--model', `scripted:${model}`, '/nonsense']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Unknown command \/nonsense/);
  });

  it('Ctrl-C cancels the turn: exit 130 within a second, and nothing it started is left running', async () => {
    env = tempEnv();
    const marker = `sleep-${process.pid}-${Date.now() % 100000}`;
    const model = writeScript(env.ws, 'long.json', { responses: [{ toolCalls: [{ name: 'bash', arguments: { command: `exec -a ${marker} sleep 30` } }] }, { chunks: ['never'] }] });
    const child = track(
      spawn(process.execPath, [CHIMERA, 'ferret', 'exec', '--cwd', env.ws, '--approval', 'full-auto', '--model', `scripted:${model}`, 'wait'], {
        env: { ...process.env, CHIMERA_HOME: env.home, FERRET_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    await waitFor(() => stderr.includes('▸ '));
    await waitFor(() => spawnSync('pgrep', ['-f', marker]).status === 0);
    const t0 = Date.now();
    child.kill('SIGINT');
    expect(await exited(child)).toBe(130);
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(stderr).toMatch(/■ cancelled/);
    expect(spawnSync('pgrep', ['-f', marker]).status, 'the command is gone').not.toBe(0);
    expect(existsSync(join(env.ws, 'never'))).toBe(false);
  });
});

async function waitFor(pred: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
