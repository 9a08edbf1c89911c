import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEvents } from '../support/eventlog.mjs';
import { FerretClient, type Json } from '../support/ferret-client.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';
import { NO_PROVIDER_KEYS, waitUntil } from './helpers.js';

/**
 * Property-based fuzzing of the stdio JSON-RPC framing and of every ferret-dialect method's
 * params, against ONE long-lived server. The oracle is JSON-RPC 2.0 itself (contract section 7):
 * - a line that is not JSON → exactly one -32700 with id null;
 * - JSON that is not a valid request (arrays/batches, primitives, bad jsonrpc/method/id) → exactly
 *   one -32600, with the request's id when it is a string or number, else null;
 * - a valid request with an id → exactly one answer (result or error) with that id, never -32700/-32600;
 * - a notification (no id) or a response → no answer.
 * After each input a sentinel request is sent and awaited, so every answer an input provokes is
 * counted before the next input goes out.
 */

const METHODS = [
  'initialize',
  'session/new',
  'session/load',
  'session/list',
  'session/message',
  'session/cancel',
  'session/setMode',
  'session/setModel',
  'session/setSandbox',
  'session/setApproval',
  'session/bridgeStatus',
  'permission/respond',
] as const;

const CONTROL_TOKEN = 'ctl-7f3a9q';
const CONTROL_MODEL = {
  responses: Array.from({ length: 4 }, () => ({ chunks: ['control ', 'ok ', CONTROL_TOKEN] })),
};
const FUZZ_MODEL = { responses: [{ chunks: ['fuzz'] }, { chunks: ['fuzz 2'] }] };

type Expect =
  | { kind: 'none' }
  | { kind: 'error'; code: -32700 | -32600; id: string | number | null }
  | { kind: 'answer'; id: string | number | null };

const isId = (v: unknown): v is string | number | null => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || v === null;
const detectableId = (v: unknown): string | number | null => (typeof v === 'string' || typeof v === 'number' ? (JSON.parse(JSON.stringify(v)) as number | string | null) : null);

/** The JSON-RPC 2.0 oracle for one inbound line (as the server's line reader will see it). */
function expected(line: string): Expect {
  if (line.trim() === '') return { kind: 'none' };
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    return { kind: 'error', code: -32700, id: null };
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return { kind: 'error', code: -32600, id: null };
  const o = msg as Record<string, unknown>;
  const hasId = Object.prototype.hasOwnProperty.call(o, 'id');
  if (Object.prototype.hasOwnProperty.call(o, 'method')) {
    const valid = o['jsonrpc'] === '2.0' && typeof o['method'] === 'string' && o['method'].length > 0 && (!hasId || isId(o['id']));
    if (!valid) return { kind: 'error', code: -32600, id: detectableId(o['id']) };
    return hasId ? { kind: 'answer', id: o['id'] as string | number | null } : { kind: 'none' };
  }
  const err = o['error'] as Record<string, unknown> | undefined;
  const errOk = !('error' in o) || (typeof err === 'object' && err !== null && typeof err['code'] === 'number' && typeof err['message'] === 'string');
  const isResponse = o['jsonrpc'] === '2.0' && hasId && isId(o['id']) && ('result' in o || 'error' in o) && errOk;
  if (isResponse) return { kind: 'none' }; // stray responses are ignored, as JSON-RPC says
  return { kind: 'error', code: -32600, id: detectableId(o['id']) };
}

const idKey = (id: unknown): string => `${typeof id}:${JSON.stringify(id)}`;

describe('reliability: ACP stdio fuzzing (one long-lived server)', () => {
  let env: TempEnv;
  let srv: FerretClient;
  let controlId: string;
  let fuzzId: string;
  let controlModel: string;
  let fuzzModel: string;
  // Answers seen so far, per id; updated incrementally from srv.messages.
  const counts = new Map<string, number>();
  const lastById = new Map<string, Json>();
  let scanned = 0;
  let seq = 0;

  function tally(): void {
    for (; scanned < srv.messages.length; scanned++) {
      const m = srv.messages[scanned]!;
      if (!('result' in m) && !('error' in m)) continue;
      const k = idKey(m['id']);
      counts.set(k, (counts.get(k) ?? 0) + 1);
      lastById.set(k, m);
    }
  }
  const count = (id: unknown): number => (tally(), counts.get(idKey(id)) ?? 0);

  /** Sends one line (string or raw bytes), checks it provoked exactly what the oracle says. */
  async function probe(raw: string | Uint8Array, method?: string): Promise<void> {
    const line = typeof raw === 'string' ? raw : new TextDecoder().decode(raw);
    const exp = expected(line);
    const watch = exp.kind === 'none' ? null : exp.id;
    const before = count(watch);
    const nullBefore = count(null);
    srv.child.stdin.write(typeof raw === 'string' ? raw + '\n' : Buffer.concat([Buffer.from(raw), Buffer.from('\n')]));
    if (exp.kind !== 'none') await waitUntil(() => count(watch) > before, 15_000, `an answer to ${line.slice(0, 200)}`);
    // The dialect can be switched by initialize (an integer protocolVersion picks ACP v1): switch back.
    if (method === 'initialize') await srv.request('initialize', {}, `reset-${++seq}`);
    const sentinel = `sentinel-${++seq}`;
    const s = await srv.request('session/list', {}, sentinel);
    expect(s['result'], 'the server answers the sentinel after every input').toBeDefined();
    const got = count(watch) - before;
    if (exp.kind === 'none') {
      expect(count(null) - nullBefore, `no answer expected for ${line.slice(0, 200)}`).toBe(0);
      return;
    }
    expect(got, `exactly one answer to ${line.slice(0, 200)}`).toBe(1);
    const ans = lastById.get(idKey(watch))!;
    if (exp.kind === 'error') {
      expect(ans['error']?.code, `error code for ${line.slice(0, 200)}`).toBe(exp.code);
      expect(typeof ans['error']?.message).toBe('string');
    } else if (ans['error']) {
      expect([-32700, -32600], `a valid request is not called invalid: ${line.slice(0, 200)}`).not.toContain(ans['error'].code);
      expect(Number.isInteger(ans['error'].code)).toBe(true);
      expect(typeof ans['error'].message).toBe('string');
    }
    if (exp.kind === 'answer' && watch !== null) expect(ans['id']).toEqual(watch);
  }

  /** The control session's log did not grow while fuzzed input flowed: no input reached it. */
  async function untouched(before: number): Promise<void> {
    await new Promise((r) => setTimeout(r, 50)); // let the log writer's tick land
    expect(readEvents(env.home, controlId).length, 'no fuzzed input touched the control session').toBe(before);
  }
  const controlEvents = (): number => readEvents(env.home, controlId).length;

  async function controlStillWorks(): Promise<void> {
    expect(srv.child.exitCode, 'the server is still running').toBeNull();
    const r = await srv.request('session/message', { sessionId: controlId, text: 'still there?' }, `control-${++seq}`);
    expect(r['error'], JSON.stringify(r['error'])).toBeUndefined();
    expect(r['result']).toMatchObject({ stopReason: 'end_turn', message: { role: 'assistant', text: `control ok ${CONTROL_TOKEN}` } });
    const ev = readEvents(env.home, controlId);
    expect(ev.every((e) => e['sessionId'] === controlId)).toBe(true);
  }

  beforeAll(async () => {
    env = tempEnv();
    controlModel = writeScript(env.ws, 'control.json', CONTROL_MODEL);
    fuzzModel = writeScript(env.ws, 'fuzz.json', FUZZ_MODEL);
    srv = new FerretClient(['--cwd', env.ws, '--model', `scripted:${fuzzModel}`], { CHIMERA_HOME: env.home, ...NO_PROVIDER_KEYS });
    await srv.call('initialize', {});
    controlId = (await srv.call('session/new', { model: `scripted:${controlModel}` }))['sessionId'] as string;
    fuzzId = (await srv.call('session/new', {}))['sessionId'] as string;
    // One turn on the control session before the fuzzing starts.
    const r = await srv.call('session/message', { sessionId: controlId, text: 'hello' });
    expect(r['message']).toEqual({ role: 'assistant', text: `control ok ${CONTROL_TOKEN}` });
  });

  afterAll(async () => {
    await srv?.close();
    env?.cleanup();
  });

  it('framing fuzz: garbage text, raw bytes, any JSON value, batches and truncated requests each get exactly their one JSON-RPC answer', async () => {
    const noBreak = (s: string) => !/[\r\n]/.test(s);
    const request = fc.record({
      jsonrpc: fc.constant('2.0'),
      id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
      method: fc.constantFrom(...METHODS, 'nope/nothing'),
      params: fc.jsonValue({ maxDepth: 2 }),
    });
    const line = fc.oneof(
      { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).filter(noBreak) },
      { weight: 2, arbitrary: fc.uint8Array({ maxLength: 200 }).filter((b) => !b.includes(10) && !b.includes(13)) },
      { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
      { weight: 2, arbitrary: fc.array(request, { maxLength: 4 }).map((b) => JSON.stringify(b)) }, // a JSON-RPC batch
      {
        weight: 2,
        arbitrary: fc.tuple(request, fc.nat()).map(([r, n]) => {
          const s = JSON.stringify(r);
          return s.slice(0, Math.max(1, n % s.length)); // a request cut off mid-line
        }),
      },
      { weight: 1, arbitrary: fc.constantFrom('{', '}', '[', 'null', 'true', '"2.0"', '0', '-1e400', '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":7}', '\u0000', '\uFEFF{}') },
    );
    const controlBefore = controlEvents();
    await fc.assert(
      fc.asyncProperty(line, async (l) => {
        await probe(l);
      }),
      { numRuns: 200 },
    );
    await untouched(controlBefore);
    await controlStillWorks();
  }, 90_000);

  it('params fuzz: every ferret-dialect method with wrong types, unknown fields and ids of every type (string, int, float, negative, null, object, array, bool, overflow) gets exactly one answer', async () => {
    const json = fc.jsonValue({ maxDepth: 2 });
    const str = fc.string({ maxLength: 40 });
    const pick = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: str }, { weight: 1, arbitrary: json });
    const fields = {
      sessionId: pick(fc.constantFrom(fuzzId, '..%2F..%2Fetc', '../../etc/passwd', '', 'x'.repeat(65), 'no-such-session', '.', '/')),
      text: pick(fc.oneof(str, fc.constant('y'.repeat(100_000)))),
      cwd: pick(fc.constantFrom('/', env.ws, '..', '/etc/passwd', '/no/such/dir', '', 'sub')),
      model: pick(fc.constantFrom(`scripted:${fuzzModel}`, 'scripted:/no/such.json', 'scripted:', `scripted:${env.ws}`, 'nope/model', 'a', '')),
      mode: pick(fc.constantFrom('code', 'plan', 'read-only', 'workspace-write', 'danger-full-access', 'PLAN')),
      approval: pick(fc.constantFrom('suggest', 'auto', 'full-auto', 'yolo')),
      preset: pick(fc.constantFrom('suggest', 'auto', 'full-auto', 'yolo')),
      id: pick(fc.constantFrom('perm-1', 'call_1', '')),
      decision: pick(fc.constantFrom('allow', 'deny', 'always', 'never', 'maybe')),
      protocolVersion: pick(fc.constantFrom('0.2', 1, 0, 2.5, -1, '1')),
    };
    const params = fc.oneof(
      {
        weight: 8,
        arbitrary: fc
          .tuple(fc.record(fields, { requiredKeys: [] }), fc.dictionary(fc.string({ maxLength: 12 }), json, { maxKeys: 3 }))
          .map(([known, unknown]) => ({ ...unknown, ...known })),
      },
      { weight: 1, arbitrary: json },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
    const idSpec = fc.oneof(
      fc.constant({ k: 'absent' as const }),
      fc.constant({ k: 'null' as const }),
      fc.record({ k: fc.constant('string' as const), s: str }),
      fc.constant({ k: 'int' as const }),
      fc.constant({ k: 'float' as const }),
      fc.constant({ k: 'negative' as const }),
      fc.constant({ k: 'big' as const }),
      fc.constant({ k: 'overflow' as const }),
      fc.record({ k: fc.constant('bool' as const), b: fc.boolean() }),
      fc.record({ k: fc.constant('object' as const), v: fc.object({ maxDepth: 1 }) }),
      fc.record({ k: fc.constant('array' as const), v: fc.array(fc.integer(), { maxLength: 3 }) }),
    );
    const req = fc.record(
      {
        jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant<unknown>('2.0') }, { weight: 1, arbitrary: fc.constantFrom<unknown>('1.0', 2, null, '2') }),
        method: fc.oneof({ weight: 12, arbitrary: fc.constantFrom<unknown>(...METHODS) }, { weight: 1, arbitrary: str }, { weight: 1, arbitrary: json }),
        params,
        id: idSpec,
        omitJsonrpc: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      },
      { requiredKeys: ['jsonrpc', 'method', 'id', 'omitJsonrpc'] },
    );

    const controlBefore = controlEvents();
    await fc.assert(
      fc.asyncProperty(req, async (r) => {
        const n = ++seq;
        const OVERFLOW = `__overflow_${n}__`;
        const o: Record<string, unknown> = {};
        if (!r.omitJsonrpc) o['jsonrpc'] = r.jsonrpc;
        const spec = r.id;
        switch (spec.k) {
          case 'absent': break;
          case 'null': o['id'] = null; break;
          case 'string': o['id'] = `f${n}:${spec.s}`; break;
          case 'int': o['id'] = 1_000_000 + n; break;
          case 'float': o['id'] = 1_000_000 + n + 0.25; break;
          case 'negative': o['id'] = -(1_000_000 + n); break;
          case 'big': o['id'] = 2 ** 52 + n; break;
          case 'overflow': o['id'] = OVERFLOW; break; // becomes 1e400 → Infinity once parsed
          case 'bool': o['id'] = spec.b; break;
          case 'object': o['id'] = spec.v; break;
          case 'array': o['id'] = spec.v; break;
        }
        o['method'] = r.method;
        if (r.params !== undefined) o['params'] = r.params;
        const line = JSON.stringify(o).replace(`"${OVERFLOW}"`, '1e400');
        await probe(line, typeof r.method === 'string' ? r.method : undefined);
      }),
      { numRuns: 200 },
    );
    await untouched(controlBefore);
    await controlStillWorks();
  }, 120_000);

  it('huge lines: a few MB of garbage, a few-MB request, a few-MB string id, and a line over the 16 MiB limit each get one answer', async () => {
    const mb = 1024 * 1024;
    const controlBefore = controlEvents();
    await probe('x'.repeat(3 * mb)); // -32700
    await probe(JSON.stringify({ jsonrpc: '2.0', id: 'huge-unknown-field', method: 'session/list', params: { junk: 'z'.repeat(3 * mb) } }));
    await probe(JSON.stringify({ jsonrpc: '2.0', id: `huge-id-${'i'.repeat(2 * mb)}`, method: 'session/list', params: {} }));
    await probe(JSON.stringify({ jsonrpc: '2.0', id: 'huge-text', method: 'session/setMode', params: { sessionId: fuzzId, mode: 'm'.repeat(3 * mb) } }));
    // Over MAX_LINE_BYTES: answered as invalid (id null), never buffered forever.
    const nullBefore = count(null);
    srv.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: 'too-long', method: 'session/list', params: { junk: 'q'.repeat(17 * mb) } }));
    await waitUntil(() => count(null) > nullBefore, 20_000, 'the answer to a 17 MB line');
    const last = lastById.get(idKey(null))!;
    expect(last['error']?.code).toBe(-32600);
    expect(count('too-long')).toBe(0);
    await untouched(controlBefore);
    await controlStillWorks();
  }, 90_000);
});
