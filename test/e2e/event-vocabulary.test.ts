import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFerretClient } from '../../clients/typescript/src/index.mjs';
import { ferretPerTest } from '../support/per-test.js';
import { CHIMERA } from '../support/spawn.mjs';
import { writeScript } from '../support/temp.mjs';

// One vocabulary for bots: `exec --json` prints the very objects the SSE stream's loop_event frames
// carry (kind names and field names alike), each event once, ending with the turn's summary.

const TOKEN = 'tok-vocab-0123456789';
const TURN = {
  responses: [
    {
      chunks: ['Writing ', 'a file.'],
      toolCalls: [
        { name: 'write_file', arguments: { path: 'a.txt', content: 'one\n' } },
        { name: 'bash', arguments: { command: 'echo ran' } },
      ],
      usage: { input: 120, output: 30 },
    },
    { chunks: ['Done.'], usage: { input: 200, output: 5 } },
  ],
};

type Update = Record<string, unknown> & { kind: string; seq: number };

/** What a bot keys on: each object's kind and its field names (values such as ids and times differ per run). */
const shape = (u: Update) => `${u.kind}(${Object.keys(u).sort().join(',')})`;

describe('one event vocabulary: exec --json and SSE', () => {
  const { env, startHttp } = ferretPerTest();

  it('name the same kinds with the same fields, each event once, ending with a turn_end that sums the turn up', async () => {
    const model = writeScript(env.home, 'model.json', TURN);

    const r = spawnSync(process.execPath, [CHIMERA, 'ferret', 'exec', '--json', '--cwd', env.ws, '--approval', 'full-auto', '--model', `scripted:${model}`, 'make a.txt'], {
      env: { ...process.env, CHIMERA_HOME: env.home, FERRET_LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const fromExec = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Update);
    rmSync(join(env.ws, 'a.txt')); // the same turn again, from the same start

    const { url } = await startHttp(['--model', `scripted:${model}`, '--approval', 'full-auto'], { FERRET_SERVER_TOKEN: TOKEN });
    const ferret = createFerretClient({ baseUrl: url, token: TOKEN });
    const { sessionId } = await ferret.createSession({});
    const stream = ferret.events(sessionId);
    await stream.opened;
    await ferret.sendMessage(sessionId, 'make a.txt', { wait: false });
    const fromSse: Update[] = [];
    for await (const f of stream) {
      if (f.event === 'loop_event') fromSse.push(f.data);
      if (f.event === 'result') break;
    }

    // The session's title event may come a moment later on the live stream; compare the turn itself.
    const turnOf = (us: Update[]) => us.filter((u) => u.kind !== 'session_info');
    expect(turnOf(fromExec).map(shape)).toEqual(turnOf(fromSse).map(shape));

    for (const us of [fromExec, fromSse]) {
      const seqs = us.map((u) => u.seq);
      expect(new Set(seqs).size, 'each event once').toBe(seqs.length);
      const edit = us.find((u) => u.kind === 'file_edit')!;
      expect(edit).toMatchObject({ path: expect.stringContaining('a.txt'), change_kind: 'add' });
      expect(edit['diff']).toContain('+one');
      expect(Object.keys(edit)).not.toContain('newText'); // the diff, not both whole files
      const last = us.at(-1)!;
      expect(last).toMatchObject({ kind: 'turn_end', stop_reason: 'end_turn', tokens: { input: 320, output: 35 } });
      expect(last['duration_ms']).toEqual(expect.any(Number));
      expect(last['cost_usd']).toEqual(expect.any(Number));
      expect(last['total_usd']).toEqual(expect.any(Number));
    }

    // The OpenAPI document describes that summary, so the typed client knows its fields.
    const doc = (await (await fetch(`${url}/openapi.json`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { components: { schemas: Record<string, unknown> } };
    expect(JSON.stringify(doc.components.schemas['FerretUpdate'])).toContain('duration_ms');
  });
});
