import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsPath, readEvents } from '../support/eventlog.mjs';
import { startHttp, type FerretClient, type Json } from '../support/ferret-client.mjs';
import { api } from '../support/http.mjs';
import { SseClient } from '../support/sse.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';

const SESSIONS = 50;
const TURNS = 20;
const marker = (i: number): string => `S${i}Z`;
const MARK = /S(\d+)Z/g;

/** Session i's own model: every chunk of every reply carries its marker and the turn number. */
function scriptFor(i: number): unknown {
  return {
    responses: Array.from({ length: TURNS }, (_, t) => ({ chunks: [`${marker(i)} `, `turn ${t} `, `tok-${i}-${t}`] })),
  };
}
const replyText = (i: number, t: number): string => `${marker(i)} turn ${t} tok-${i}-${t}`;

/** Every marker in a text; all must be `own`. */
function foreignMarkers(text: string, own: number): string[] {
  return [...text.matchAll(MARK)].map((m) => m[0]).filter((m) => m !== marker(own));
}

describe('reliability: load', () => {
  let env: TempEnv;
  let proc: FerretClient;
  let url: string;

  beforeAll(async () => {
    env = tempEnv();
    ({ proc, url } = await startHttp(['--cwd', env.ws], { CHIMERA_HOME: env.home, FERRET_LOG_LEVEL: 'info' }));
    await proc.call('initialize', {});
  });
  afterAll(async () => {
    if (proc) await proc.stop();
    env?.cleanup();
  });

  it(`${SESSIONS} sessions × ${TURNS} turns, mixed over stdio and HTTP at once, with no cross-session leakage in replies, notifications, SSE or events.jsonl`, async () => {
    const t0 = Date.now();
    // Create: even sessions over stdio, odd over HTTP, each with its own scripted model.
    const ids: string[] = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, i) => {
        const model = `scripted:${writeScript(env.ws, `model-${i}.json`, scriptFor(i))}`;
        if (i % 2 === 0) return (await proc.call('session/new', { model }))['sessionId'] as string;
        const r = await api(url, 'POST', '/session', { model });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        return r.body['sessionId'] as string;
      }),
    );
    expect(new Set(ids).size).toBe(SESSIONS);
    const sessionOf = new Map(ids.map((id, i) => [id, i]));
    // An SSE reader on every odd session.
    const readers = new Map<number, SseClient>();
    for (let i = 1; i < SESSIONS; i += 2) readers.set(i, new SseClient(url, `/session/${ids[i]}/events`));
    for (const r of readers.values()) expect(await r.opened).toBe(200);

    // Drive: every session concurrently, its turns in order, alternating the transport turn by turn.
    const wrong: string[] = [];
    await Promise.all(
      ids.map(async (id, i) => {
        for (let t = 0; t < TURNS; t++) {
          const text = `turn ${t} for ${marker(i)}`;
          let reply: Json;
          if ((i + t) % 2 === 0) reply = await proc.call('session/message', { sessionId: id, text });
          else {
            const r = await api(url, 'POST', `/session/${id}/message`, { text });
            if (r.status !== 200) wrong.push(`${marker(i)} turn ${t}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
            reply = r.body;
          }
          if (reply['stopReason'] !== 'end_turn' || reply['message']?.text !== replyText(i, t)) {
            wrong.push(`${marker(i)} turn ${t}: ${JSON.stringify(reply).slice(0, 200)}`);
          }
        }
      }),
    );
    const driveMs = Date.now() - t0;
    expect(wrong, 'every reply is its own session\'s next scripted reply').toEqual([]);
    await new Promise((r) => setTimeout(r, 100)); // the last log tick and SSE frames

    // stdio notifications: each carries its session's own marker only.
    const leaks: string[] = [];
    for (const u of proc.updates()) {
      const i = sessionOf.get(u['sessionId'] as string);
      if (i === undefined) leaks.push(`stdio update for unknown session ${String(u['sessionId'])}`);
      else for (const m of foreignMarkers(JSON.stringify(u), i)) leaks.push(`stdio update of ${marker(i)} carries ${m}`);
    }
    // SSE: every frame of a session's stream is that session's.
    for (const [i, r] of readers) {
      await r.waitFor((f) => f.filter((x) => x.event === 'result').length >= TURNS, 10_000);
      for (const f of r.frames) {
        if (f.event === 'loop_event' && f.data['sessionId'] !== ids[i]) leaks.push(`SSE of ${marker(i)} got an event of ${String(f.data['sessionId'])}`);
        for (const m of foreignMarkers(JSON.stringify(f.data), i)) leaks.push(`SSE of ${marker(i)} carries ${m}`);
      }
      r.close();
    }
    // events.jsonl: only its own sessionId, only its own markers, every turn's token, in order.
    for (const [i, id] of ids.entries()) {
      const raw = readFileSync(eventsPath(env.home, id), 'utf8');
      for (const m of foreignMarkers(raw, i)) leaks.push(`events.jsonl of ${marker(i)} carries ${m}`);
      const events = readEvents(env.home, id);
      const others = events.filter((e) => e['sessionId'] !== id);
      if (others.length) leaks.push(`events.jsonl of ${marker(i)} has ${others.length} events of other sessions`);
      const seqs = events.map((e) => e['seq'] as number);
      if (seqs.some((s, k) => s !== k + 1)) leaks.push(`events.jsonl of ${marker(i)}: seq not 1..n`);
      const chunks = events.filter((e) => e['type'] === 'message_chunk').map((e) => e['data'].text as string).join('');
      const want = Array.from({ length: TURNS }, (_, t) => replyText(i, t)).join('');
      if (chunks !== want) leaks.push(`events.jsonl of ${marker(i)}: replies ${chunks.slice(0, 80)}… ≠ ${want.slice(0, 80)}…`);
      if (events.filter((e) => e['type'] === 'turn_end').length !== TURNS) leaks.push(`events.jsonl of ${marker(i)}: not ${TURNS} turn_end events`);
    }
    expect(leaks.slice(0, 20), `${leaks.length} leaks`).toEqual([]);
    expect(proc.child.exitCode).toBeNull();
    expect(driveMs, `${SESSIONS * TURNS} turns took ${driveMs} ms`).toBeLessThan(60_000);
  }, 90_000);
});
