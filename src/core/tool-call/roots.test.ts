import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FerretError, type SessionEvent } from '../../protocol/index.js';
import { createCore, type CoreInternals as Core } from '../create-core.js';
import { closeAfterEach, ofType, scratch } from '../test-kit.js';

// A session's extra roots (ACP additionalDirectories): the file tools reach them under the rules
// that hold in cwd, nothing outside them opens up, and they are kept in the log.

const { fresh, script } = scratch('ferret-roots-');
const keep = closeAfterEach();

function newCore(home = fresh('home'), ws = fresh('ws')): { core: Core; home: string; ws: string } {
  const core = createCore({ logger: pino({ level: 'silent' }), home, env: {}, cwd: ws, sandbox: 'workspace-write', approval: 'auto' });
  keep(core);
  return { core, home, ws };
}

const write = (path: string, content = 'x\n') => ({ name: 'write_file', arguments: { path, content } });

describe('additionalDirectories', () => {
  it('the file tools write and read in an extra root; outside every root and its .git stay refused', async () => {
    const { core } = newCore();
    const extra = fresh('extra');
    mkdirSync(join(extra, '.git/hooks'), { recursive: true });
    const outside = fresh('outside');
    writeFileSync(join(extra, 'notes.md'), 'extra root notes\n');
    const s = core.manager.create({
      additionalDirectories: [extra],
      model: script({
        responses: [
          {
            toolCalls: [
              write(join(extra, 'made.txt'), 'made\n'),
              { name: 'read_file', arguments: { path: join(extra, 'notes.md') } },
              { name: 'grep', arguments: { pattern: 'extra root', path: extra } },
              write(join(outside, 'no.txt')),
              write(join(extra, '.git/hooks/pre-commit'), '#!/bin/sh\n'),
            ],
          },
          { chunks: ['Done.'] },
        ],
      }),
    });
    const events: SessionEvent[] = [];
    s.subscribe((e) => events.push(e));
    expect(s.state.additionalDirectories).toEqual([extra]);
    await s.startTurn('work in both').done;
    // By call, in the order the model made them (reads may end before the writes).
    const byId = new Map(ofType(events, 'tool_call_end').map((e) => [e.data.callId, [e.data.tool, e.data.status, e.data.output] as const]));
    const ends = [1, 2, 3, 4, 5].map((i) => byId.get(`call_1_${i}`));
    expect(ends[0]!.slice(0, 2)).toEqual(['write_file', 'completed']);
    expect(readFileSync(join(extra, 'made.txt'), 'utf8')).toBe('made\n');
    expect(ends[1]![1]).toBe('completed');
    expect(ends[1]![2]).toContain('extra root notes');
    expect(ends[2]![1]).toBe('completed');
    expect(ends[2]![2]).toContain('notes.md');
    expect(ends[3]!.slice(0, 2)).toEqual(['write_file', 'failed']);
    expect(ends[3]![2]).toContain('outside the workspace');
    expect(existsSync(join(outside, 'no.txt'))).toBe(false);
    expect(ends[4]![1]).not.toBe('completed');
    expect(existsSync(join(extra, '.git/hooks/pre-commit'))).toBe(false);
  });

  it('each root must be an absolute folder that exists: the error names the field', () => {
    const { core } = newCore();
    const file = join(fresh('f'), 'a-file');
    writeFileSync(file, '');
    for (const [dirs, says] of [
      [['relative/dir'], 'not an absolute path'],
      [['/no/such/folder/here'], 'no such directory'],
      [[file], 'not a directory'],
    ] as const) {
      let err: unknown;
      try {
        core.manager.create({ additionalDirectories: dirs });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FerretError);
      expect((err as FerretError).code).toBe('invalid_params');
      expect((err as FerretError).message).toMatch(/^additionalDirectories\[0\]: /);
      expect((err as FerretError).message).toContain(says);
    }
  });

  it('are kept in the log: a new process loads the session with them, its list entry names them, a fork keeps them', async () => {
    const { core, home, ws } = newCore();
    const extra = fresh('extra');
    const s = core.manager.create({ additionalDirectories: [extra, extra, ws], model: script({ responses: [] }) });
    expect(s.state.additionalDirectories).toEqual([extra]); // duplicates and cwd itself dropped
    const id = s.id;
    await core.close();
    const { core: again } = newCore(home, ws);
    const model = script({ responses: [] });
    const loaded = await again.manager.open(id);
    expect(loaded.state.additionalDirectories).toEqual([extra]);
    const page = await again.manager.list({});
    expect(page.sessions.find((x) => x.sessionId === id)?.additionalDirectories).toEqual([extra]);
    loaded.setModel(model);
    const fork = await again.manager.fork(id);
    expect(fork.state.additionalDirectories).toEqual([extra]);
  });
});
