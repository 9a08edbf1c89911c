import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent } from '../protocol/index.js';
import { decodeLine, encodeEvent } from '../store/codec.js';
import { FileSessionStore } from '../store/file-store.js';
import { LineScanner } from '../store/line-scanner.js';
import type { SessionLog } from '../store/session-store.js';
import { connectStore, newPrefix, startRedis, type RedisServer } from '../store/redis/test-kit.js';
import type { RedisSessionStore } from '../store/redis/store.js';
import { historyOmissions, historyReplay } from './history-policy.js';

// The history rule has one definition (history-policy.ts) and a fast path in the store that
// leaves most omitted lines unparsed (store/line-scanner.ts). These properties hold the fast
// path to the rule over generated logs: whatever a store's history read hands out is exactly
// what the rule keeps.

/** Text with what could trip a reader of raw lines: quotes, backslashes, newlines, other lines' marks, any unicode. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('"message":{"role":"assistant"', ',"type":"message_chunk","data":{', '{"seq":1,"callId":"a"}', '\\"', '\n', 'ü€😀', ''),
);
const callId = fc.constantFrom('a', 'b', 'c', '', 'q"u\\o', 'ü😀', 'x\ny');
const role = fc.constantFrom('assistant', 'user', 'tool');
/** Some data objects are built with their keys in another order: the codec puts the fields the fast path reads first. */
const shuffled = fc.boolean();

type Draft = Pick<SessionEvent, 'type' | 'data'>;
const draft: fc.Arbitrary<Draft> = fc.oneof(
  { weight: 6, arbitrary: text.map((t): Draft => ({ type: 'message_chunk', data: { turnId: 't', text: t } })) },
  {
    weight: 2,
    arbitrary: fc.tuple(role, text, fc.jsonValue({ maxDepth: 2 }), shuffled).map(([r, t, args, odd]): Draft => {
      const message =
        r === 'assistant'
          ? odd
            ? { text: t, toolCalls: [{ id: 'a', name: 'bash', args }], role: 'assistant' as const }
            : { role: 'assistant' as const, text: t, toolCalls: [{ id: 'a', name: 'bash', args }] }
          : r === 'user'
            ? { role: 'user' as const, text: t }
            : { role: 'tool' as const, results: [{ callId: 'a', name: 'bash', status: 'completed' as const, output: t }] };
      return { type: 'message', data: { turnId: 't', message } };
    }),
  },
  {
    weight: 3,
    arbitrary: fc.tuple(callId, text, shuffled).map(([c, t, odd]): Draft => ({ type: 'tool_call_progress', data: odd ? { text: t, stream: 'stdout', callId: c } : { callId: c, stream: 'stdout', text: t } })),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(callId, text, fc.constantFrom<number | null | undefined>(0, 1, null, undefined), shuffled).map(([c, t, exit, odd]): Draft => {
      const data = { callId: c, tool: 'bash', status: exit === undefined ? ('failed' as const) : ('completed' as const), output: t, durationMs: 1, ...(exit !== undefined ? { exitCode: exit } : {}) };
      return { type: 'tool_call_end', data: odd ? Object.assign({ output: t }, data) : data };
    }),
  },
  { weight: 1, arbitrary: fc.tuple(callId, fc.jsonValue({ maxDepth: 2 })).map(([c, args]): Draft => ({ type: 'tool_call_start', data: { turnId: 't', callId: c, tool: 'bash', args, kind: 'execute', title: 't', locations: [] } })) },
  { weight: 1, arbitrary: text.map((t): Draft => ({ type: 'reasoning_chunk', data: { turnId: 't', text: t } })) },
  { weight: 1, arbitrary: text.map((t): Draft => ({ type: 'notice', data: { level: 'info', text: t } })) },
  { weight: 1, arbitrary: text.map((t): Draft => ({ type: 'turn_start', data: { turnId: 't', text: t } })) },
);

/** A log: its events in seq order, where a read starts (`after`) and where the replay began (`upTo`, 0: not a history read). */
interface Case {
  events: SessionEvent[];
  after: number;
  upTo: number;
}

const logCase = (sessionId: fc.Arbitrary<string>): fc.Arbitrary<Case> =>
  fc.tuple(fc.array(draft, { maxLength: 50 }), sessionId, fc.nat(), fc.nat(), fc.boolean(), fc.constantFrom('any', 'end', 'edge', 'edge')).map(([drafts, sid, a, u, afterZero, where]) => {
    const events = drafts.map((d, i) => ({ seq: i + 1, sessionId: sid, ts: 1_700_000_000_000 + i, ...d }) as SessionEvent);
    const n = events.length;
    // Often where it matters: the whole log (a session/load), or at a chunk or a progress, best one a message or an end follows.
    const before = events.filter((e, i) => (e.type === 'message_chunk' && events[i + 1]?.type === 'message') || (e.type === 'tool_call_progress' && events[i + 1]?.type === 'tool_call_end'));
    const edges = (before.length ? before : events.filter((e) => e.type === 'message_chunk' || e.type === 'tool_call_progress')).map((e) => e.seq);
    const upTo = where === 'end' ? n : where === 'edge' && edges.length ? edges[u % edges.length]! : u % (n + 2);
    return { events, after: afterZero ? 0 : a % ((where === 'any' ? n : upTo) + 1), upTo };
  });

const sessionIds = fc.constantFrom('s1', 'sé"\\s😀');

/** The scanner over the codec's lines, fed in pieces of the given sizes (cutting lines and UTF-8 sequences anywhere). */
function scan(c: Case, pieces: number[]): { events: SessionEvent[]; lastSeq: number } {
  const bytes = Buffer.from(c.events.map((e) => encodeEvent(e) + '\n').join(''));
  const s = new LineScanner({ seq: 0, at: 0 }, c.after, false, c.upTo);
  const out: SessionEvent[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = pieces.length ? pieces[i % pieces.length]! : bytes.length;
    s.feed(bytes.subarray(at, at + size), out);
    at += size;
  }
  s.finish(out);
  return { events: out, lastSeq: s.lastSeq };
}

/** What the rule keeps, as the events a reader decodes (undefined fields are not in a line). */
const kept = (c: Case): SessionEvent[] => historyReplay(c.events, c.after, c.upTo).map((e) => JSON.parse(JSON.stringify(e)) as SessionEvent);

// The two stores' property tests open and fill a log alike:
/** A write error fails the test. */
const fail = (err: Error): never => {
  throw err;
};
/** The log itself: the test is its only writer, so it is never held elsewhere. */
function free<L extends object>(log: L): Exclude<L, { owner: unknown }> {
  if ('owner' in log) throw new Error('busy');
  return log as Exclude<L, { owner: unknown }>;
}
/** Appends the case's events under `id`; returns what a history read of them must hand out. */
function fill(log: SessionLog, c: Case, id: string): SessionEvent[] {
  for (const e of c.events) log.append({ ...e, sessionId: id });
  return kept(c).map((e) => ({ ...e, sessionId: id }));
}

async function readAll(log: SessionLog, c: Case, chunkBytes: number): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for await (const chunk of log.read(c.after, { omitRepeatedChunksUpTo: c.upTo, chunkBytes })) out.push(...chunk.events);
  return out;
}

describe('the history rule', () => {
  it('leaves out chunks an assistant message ends, and progress an exit repeats; a chunk past upTo ends a run', () => {
    const ev = (seq: number, d: Draft) => ({ seq, sessionId: 's', ts: seq, ...d }) as SessionEvent;
    const chunk = (seq: number) => ev(seq, { type: 'message_chunk', data: { turnId: 't', text: `c${seq}` } });
    const reply = (seq: number) => ev(seq, { type: 'message', data: { turnId: 't', message: { role: 'assistant', text: 'x', toolCalls: [] } } });
    const progress = (seq: number) => ev(seq, { type: 'tool_call_progress', data: { callId: 'a', stream: 'stdout', text: 'p' } });
    const end = (seq: number, exitCode?: number) => ev(seq, { type: 'tool_call_end', data: { callId: 'a', tool: 'bash', status: 'completed', output: 'p', durationMs: 1, ...(exitCode !== undefined ? { exitCode } : {}) } });
    const log = [chunk(1), chunk(2), reply(3), chunk(4), chunk(5), reply(6), progress(7), end(8), progress(9), end(10, 0)];
    expect(historyOmissions(log, 10)).toEqual([true, true, false, true, true, false, false, false, true, false]);
    // The replay began at 4: chunk 5 is live, so chunk 4's run does not end in a message within it.
    expect(historyOmissions(log, 4)).toEqual([true, true, false, false, false, false, false, false, false, false]);
    expect(historyOmissions(log, 0).some(Boolean)).toBe(false);
  });

  it('the codec writes every generated event so that a validated read gives it back', () => {
    fc.assert(
      fc.property(logCase(sessionIds), (c) => {
        for (const e of c.events) {
          const line = encodeEvent(e);
          expect(line.startsWith(`{"seq":${e.seq},"sessionId":`)).toBe(true);
          expect(decodeLine(line, true)).toEqual(JSON.parse(JSON.stringify(e)));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("the store's byte scanner hands out exactly what the rule keeps, whatever the pieces it is fed", () => {
    fc.assert(
      fc.property(logCase(sessionIds), fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 5 }), (c, pieces) => {
        const got = scan(c, pieces);
        expect(got.events).toEqual(kept(c));
        // Left-out events still count as read: the reader's position is the last seq of the log.
        expect(got.lastSeq).toBe(c.events.length > c.after ? c.events.length : 0);
      }),
      { numRuns: 1500 },
    );
  });
});

describe('the history rule through the stores', () => {
  let home: string;
  let file: FileSessionStore;
  let redis: RedisServer;
  let fleet: RedisSessionStore;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'ferret-history-'));
    file = new FileSessionStore(home);
    redis = await startRedis();
    fleet = await connectStore(redis, newPrefix());
  });
  afterAll(async () => {
    await fleet?.close();
    await redis?.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('a file store history read (any chunk size) hands out exactly what the rule keeps', async () => {
    await fc.assert(
      fc.asyncProperty(logCase(fc.constant(randomUUID())), fc.integer({ min: 8, max: 2048 }), async (c, chunkBytes) => {
        const id = randomUUID();
        const log = free(file.open(id, fail));
        try {
          const want = fill(log, c, id);
          expect(await readAll(log, c, chunkBytes)).toEqual(want);
        } finally {
          log.close();
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a redis store history read, from memory before the writes are acknowledged and from the stream after, hands out exactly what the rule keeps', async () => {
    await fc.assert(
      fc.asyncProperty(logCase(fc.constant('x')), fc.integer({ min: 8, max: 2048 }), async (c, chunkBytes) => {
        const id = randomUUID();
        const log = free(await fleet.openAsync(id, fail));
        try {
          const want = fill(log, c, id);
          expect(await readAll(log, c, chunkBytes)).toEqual(want);
          await log.drain();
          expect(await readAll(log, c, chunkBytes)).toEqual(want);
        } finally {
          log.close();
          await log.whenClosed();
        }
      }),
      { numRuns: 150 },
    );
  });
});
