import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../protocol/index.js';
import { createCore, type CoreInternals as Core } from '../create-core.js';
import type { LiveSession as Session } from '../sessions/live-session.js';
import { closeAfterEach, ofType, scratch, spyOnModel } from '../test-kit.js';
import { TITLE_SYSTEM, titleFromReply } from './title-call.js';

// The title the session's model writes after the first turn: a side call, billed, never in the way.

const { fresh, script } = scratch('ferret-title-call-');
const keep = closeAfterEach();

function newCore(): { core: Core; ws: string } {
  const ws = fresh('ws');
  const core = createCore({ logger: pino({ level: 'silent' }), home: fresh('home'), env: {}, cwd: ws, sandbox: 'workspace-write', approval: 'auto' });
  keep(core);
  return { core, ws };
}

function record(s: Session): SessionEvent[] {
  const events: SessionEvent[] = [];
  s.subscribe((e) => events.push(e));
  return events;
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe('the title call', () => {
  it("emits the model's title after the first turn, billed as a side call, leaving the scripted file's position alone", async () => {
    const { core } = newCore();
    const seen = spyOnModel(core);
    const s = core.manager.create({
      model: script({
        title: { text: '"Fix the flaky parser test."', usage: { input: 40, output: 6 } },
        pricing: { input: 1, output: 1 },
        responses: [{ chunks: ['First.'], usage: { input: 10, output: 2 } }, { chunks: ['Second.'], usage: { input: 12, output: 3 } }],
      }),
    });
    const events = record(s);
    const first = await s.startTurn('please look at the parser test, it fails one run in ten').done;
    expect(first.stopReason).toBe('end_turn');
    await until(() => ofType(events, 'session_info').length === 2);
    expect(ofType(events, 'session_info').map((e) => e.data.title)).toEqual(['please look at the parser test, it fails one run in ten', 'Fix the flaky parser test']);
    expect(s.state.title).toBe('Fix the flaky parser test');
    // After turn_end: the turn did not wait for it.
    const types = events.map((e) => e.type);
    expect(types.indexOf('turn_end')).toBeLessThan(types.lastIndexOf('session_info'));
    const side = ofType(events, 'cost_update').filter((e) => e.data.side);
    expect(side).toHaveLength(1);
    expect(side[0]!.data).toMatchObject({ input: 50, output: 8, side: true });
    expect(s.state.costUsd).toBeCloseTo((50 + 8) / 1e6, 12);
    // The request: the title instructions, no tools, the person's words and the reply's start.
    const ask = seen.find((r) => r.purpose === 'title')!;
    expect(ask.system).toBe(TITLE_SYSTEM);
    expect(ask.tools).toEqual([]);
    expect(ask.maxOutputTokens).toBeGreaterThan(0);
    expect(ask.messages[0]!.role === 'user' && ask.messages[0]!.text).toContain('it fails one run in ten');
    expect(ask.messages[0]!.role === 'user' && ask.messages[0]!.text).toContain('First.');
    // The second turn gets the file's second response, and asks for no title again.
    const second = await s.startTurn('and the lexer?').done;
    expect(second.message.text).toBe('Second.');
    expect(seen.filter((r) => r.purpose === 'title')).toHaveLength(1);
    expect(ofType(events, 'session_info')).toHaveLength(2);
  });

  it('makes no call for a scripted file without a title; the first title stays', async () => {
    const { core } = newCore();
    const seen = spyOnModel(core);
    const s = core.manager.create({ model: script({ responses: [{ chunks: ['Hi.'] }] }) });
    const events = record(s);
    await s.startTurn('say hi').done;
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.filter((r) => r.purpose === 'title')).toHaveLength(0);
    expect(ofType(events, 'session_info').map((e) => e.data.title)).toEqual(['say hi']);
  });

  it("a failing title call changes nothing: the turn ended normally, no cost, the first title stays", async () => {
    const { core } = newCore();
    const s = core.manager.create({ model: script({ title: 'x', responses: [{ chunks: ['Hi.'] }] }) });
    // The provider throws on the title call.
    const inner = core.manager.deps.resolver;
    core.manager.deps.resolver = {
      resolve(id, cwd) {
        const p = inner.resolve(id, cwd);
        return {
          id: p.id,
          stream: (req) => {
            if (req.purpose === 'title') throw new Error('boom');
            return p.stream(req);
          },
        };
      },
    };
    const events = record(s);
    const r = await s.startTurn('say hi').done;
    await new Promise((res) => setTimeout(res, 50));
    expect(r.stopReason).toBe('end_turn');
    expect(ofType(events, 'session_info').map((e) => e.data.title)).toEqual(['say hi']);
    expect(ofType(events, 'cost_update').filter((e) => e.data.side)).toHaveLength(0);
  });

  it("a team command's title call gets the person's words, never the command file's text", async () => {
    const { core, ws } = newCore();
    mkdirSync(join(ws, '.ferret/commands'), { recursive: true });
    writeFileSync(join(ws, '.ferret/commands/review.md'), 'SECRET TEAM CHECKLIST for $ARGUMENTS');
    const seen = spyOnModel(core);
    const s = core.manager.create({ model: script({ title: 'Review the parser', responses: [{ chunks: ['Reviewed.'] }] }) });
    const events = record(s);
    await s.startTurn('/review src/parse.ts').done;
    await until(() => ofType(events, 'session_info').length === 2);
    const ask = seen.find((r) => r.purpose === 'title')!;
    const text = ask.messages[0]!.role === 'user' ? ask.messages[0]!.text : '';
    expect(text).toContain('/review src/parse.ts');
    expect(text).not.toContain('SECRET TEAM CHECKLIST');
    expect(ofType(events, 'session_info')[0]!.data.title).toBe('/review src/parse.ts');
  });
});

describe('titleFromReply', () => {
  it('takes the first line, drops quotes, a label and a final full stop', () => {
    expect(titleFromReply('\n  Title: "Add a cache to the loader."\nextra')).toBe('Add a cache to the loader');
    expect(titleFromReply('   ')).toBeUndefined();
    expect(titleFromReply('word '.repeat(30))!.length).toBeLessThanOrEqual(61);
  });
});
