import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFerretClient, type FerretApiClient } from '../../clients/typescript/src/index.mjs';
import { startHttp, type FerretClient } from '../support/ferret-client.mjs';
import { stopChild, track } from '../support/spawn.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';

/**
 * A schema-driven fuzz of every operation in the served OpenAPI document: requests generated
 * from each operation's parameters and body schema (valid ones, and invalid ones: mutated bodies,
 * bad ids, bad query and header values, no or a wrong token, a foreign Host, wrong content types,
 * malformed JSON, an oversized body) against one spawned server. Every answer must be a status
 * the document declares for that operation, with a declared content type and a body its schema
 * accepts, and never a 5xx. Meanwhile /health is polled from a worker thread and must answer
 * under 50 ms throughout, also while hostile scripted-model paths are tried.
 */

const TOKEN = 'fuzz-token-0123456789abcdefghijklmnop';
const SECRET = 'fuzz-secret-in-the-environment-8d1f7c';
const MARKER = 'FUZZ-FILE-CONTENT-MARKER-5e2a';
const HEALTH_BUDGET_MS = 50;
const FUZZ_TIME_MS = 25_000;
const RUNS_PER_OP = 80;
const VALID_RUNS_PER_OP = 12;
/** The operations this test knows (others in the document are fuzzed too, from their schemas alone). */
const KNOWN = ['answerPermission', 'cancelTurn', 'createSession', 'getBridge', 'getSandbox', 'getSession', 'health', 'listSessions', 'openapi', 'sendMessage', 'setApproval', 'setMode', 'setModel', 'streamEvents'];

// ------------------------------------------------------------------ the document

interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
}
interface Param {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema: Schema;
}
interface Operation {
  operationId: string;
  method: 'GET' | 'POST';
  path: string;
  parameters: Param[];
  body: { required: boolean; schema: Schema } | undefined;
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  /** Whether it needs the bearer token (the operation's `security`, else the document's). */
  needsToken: boolean;
}
interface Doc {
  paths: Record<string, Record<string, { operationId: string; parameters?: Param[]; requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> }; responses: Operation['responses']; security?: unknown[] }>>;
  components: { schemas: Record<string, Schema> };
  security?: unknown[];
}

function operations(doc: Doc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(item)) {
      const json = op.requestBody?.content['application/json'];
      ops.push({
        operationId: op.operationId,
        method: m.toUpperCase() as Operation['method'],
        path,
        parameters: op.parameters ?? [],
        body: json ? { required: op.requestBody?.required ?? false, schema: json.schema } : undefined,
        responses: op.responses,
        needsToken: (op.security ?? doc.security ?? []).length > 0,
      });
    }
  }
  return ops;
}

// ------------------------------------------------------------------ schema → arbitraries

type Hints = Record<string, () => fc.Arbitrary<unknown>>;

function resolve(doc: Doc, s: Schema): Schema {
  for (let i = 0; s.$ref && i < 10; i++) s = doc.components.schemas[s.$ref.replace('#/components/schemas/', '')]!;
  return s;
}

/** Values the schema accepts; `hints` (by property name) bias strings toward meaningful ones. */
function valid(doc: Doc, schema: Schema, hints: Hints, name = ''): fc.Arbitrary<unknown> {
  const s = resolve(doc, schema);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf ?? s.oneOf) return fc.oneof(...(s.anyOf ?? s.oneOf)!.map((x) => valid(doc, x, hints, name)));
  const type = (Array.isArray(s.type) ? s.type[0] : s.type) ?? 'string';
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: -5, max: 1000 });
    case 'number':
      return fc.double({ noNaN: true, min: -1e6, max: 1e6 });
    case 'array':
      return fc.array(s.items ? valid(doc, s.items, hints) : fc.jsonValue(), { maxLength: 3 });
    case 'object': {
      const props = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, valid(doc, v, hints, k)]));
      return fc.record(props, { requiredKeys: s.required ?? [] });
    }
    default: {
      const hint = hints[name];
      const plain = s.pattern ? fc.stringMatching(new RegExp(s.pattern)) : fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 40) });
      return hint ? fc.oneof({ arbitrary: hint(), weight: 3 }, { arbitrary: plain, weight: 1 }) : plain;
    }
  }
}

/** A value of the wrong JSON type for the schema. */
function wrongType(doc: Doc, schema: Schema): fc.Arbitrary<unknown> {
  const s = resolve(doc, schema);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  const all = { string: fc.string({ maxLength: 5 }), number: fc.double({ noNaN: true }), boolean: fc.boolean(), object: fc.constant({ x: 1 }), array: fc.constant([1]), null: fc.constant(null) };
  const accepted = new Set([type ?? 'string', ...(s.enum ? [] : []), ...(type === 'integer' ? ['number'] : [])]);
  if (s.anyOf) for (const x of s.anyOf) accepted.add(String(resolve(doc, x).type));
  const wrong = Object.entries(all).filter(([t]) => !accepted.has(t)).map(([, a]) => a);
  return fc.oneof(...wrong);
}

/** Bodies the schema refuses: a required key dropped, an unknown key added, a field of the wrong type or outside its enum. */
function invalid(doc: Doc, schema: Schema, hints: Hints): fc.Arbitrary<unknown> | undefined {
  let s = resolve(doc, schema);
  const nullable = s.anyOf?.some((x) => resolve(doc, x).type === 'null') ?? false;
  const object = s.anyOf ? s.anyOf.map((x) => resolve(doc, x)).find((x) => x.type === 'object') : s.type === 'object' ? s : undefined;
  if (!object) return undefined;
  s = object;
  const base = valid(doc, s, hints) as fc.Arbitrary<Record<string, unknown>>;
  const props = Object.entries(s.properties ?? {});
  const variants: fc.Arbitrary<unknown>[] = [];
  if (s.additionalProperties === false) variants.push(base.map((v) => ({ ...v, unexpectedField: 1 })));
  if (s.required?.length) variants.push(fc.tuple(base, fc.constantFrom(...s.required)).map(([v, k]) => Object.fromEntries(Object.entries(v).filter(([x]) => x !== k))));
  if (props.length) {
    variants.push(
      fc
        .constantFrom(...props)
        .chain(([k, p]) => fc.tuple(base, fc.constant(k), resolve(doc, p).enum ? fc.constant('not-in-the-enum') : wrongType(doc, p)))
        .map(([v, k, w]) => ({ ...v, [k]: w })),
    );
  }
  const scalar = fc.oneof(fc.constant([]), fc.integer(), fc.constant('text'), fc.constant(true));
  variants.push(nullable ? scalar : fc.oneof(scalar, fc.constant(null)));
  return fc.oneof(...variants);
}

// ------------------------------------------------------------------ requests

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** The request breaks the document (the answer must be a 4xx). */
  invalid: string | undefined;
}
interface BodyPick {
  text: string | undefined;
  invalid: string | undefined;
}
interface ParamPick {
  p: Param;
  v: string | undefined;
  invalid: string | undefined;
}
interface Res {
  status: number;
  /** The server refused an over-limit body by closing the connection while it was still being sent (EPIPE, ECONNRESET): the client never read an answer. */
  closedEarly?: true;
  contentType: string;
  text: string;
  ms: number;
}

/** The server's body limit (1 MiB): the generated over-limit bodies are just past it. */
const BODY_LIMIT = 1024 * 1024;

/** One request on its own connection; an event stream is dropped once its head arrives. */
function send(url: string, r: Req, timeoutMs = 10_000): Promise<Res> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    let answered = false;
    // No host header = none sent (setHost false): Node would fill in an empty or missing one itself.
    const headers = { ...r.headers, ...(r.body !== undefined ? { 'content-length': String(Buffer.byteLength(r.body)) } : {}) };
    // host/port/path rather than a URL string: a URL would normalise `/session/%2e%2e` to `/`.
    const u = new URL(url);
    const req = httpRequest({ host: u.hostname, port: u.port, path: r.path, method: r.method, headers, setHost: false, agent: false }, (res) => {
      answered = true;
      const contentType = res.headers['content-type'] ?? '';
      const done = (text: string) => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, contentType, text, ms: performance.now() - t0 });
      };
      if (contentType.startsWith('text/event-stream')) {
        res.destroy();
        return done('');
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => done(text));
      res.on('error', (e) => reject(e));
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer in ${timeoutMs} ms: ${r.method} ${r.path}`));
    }, timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (answered) return;
      clearTimeout(timer);
      // A server may answer a body over its limit at once and close; a client still writing it
      // then loses the answer to EPIPE (a race on loopback, there before and after any change here).
      if (r.body !== undefined && r.body.length > BODY_LIMIT && (e.code === 'EPIPE' || e.code === 'ECONNRESET')) {
        resolve({ status: 0, contentType: '', text: '', ms: performance.now() - t0, closedEarly: true });
        return;
      }
      reject(e);
    });
    req.end(r.body);
  });
}

// ------------------------------------------------------------------ the /health poller

// Polls GET /health of ferret, and of a control server (a bare node:http server in its own
// process), back to back on keep-alive connections from a worker thread. Every gap between two
// answers over STALL_MS is kept with its time span and, for ferret, the CPU time ferret's process
// used during it (/proc/PID/stat). A gap is ferret's fault unless the machine explains it: the
// control stalled over the same span (the box, or the poller itself, stalled), or ferret used
// under 50 ms of CPU in it (it waited for a core: on a shared 2-core box other jobs take them).
const STALL_MS = 20;
const POLLER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const http = require('node:http');
const TICK_MS = 1000 / workerData.clkTck;
const cpuMs = (pid) => {
  if (!pid) return 0;
  try {
    const f = readFileSync('/proc/' + pid + '/stat', 'utf8').slice(readFileSync('/proc/' + pid + '/stat', 'utf8').lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS; // utime + stime
  } catch { return 0; }
};
const fresh = () => ({ n: 0, fails: 0, worstLatency: 0, worstGap: 0, stalls: [] });
const targets = workerData.urls.map((url, i) => ({ url, pid: workerData.pids[i], agent: new http.Agent({ keepAlive: true, maxSockets: 1 }), s: fresh(), last: 0, lastCpu: 0 }));
const now = () => performance.timeOrigin + performance.now();
const restart = (t) => { t.s = fresh(); t.last = now(); t.lastCpu = cpuMs(t.pid); };
targets.forEach(restart);
let stop = false;
parentPort.on('message', (m) => {
  if (m === 'stats') parentPort.postMessage(targets.map((t) => t.s));
  else if (m === 'reset') targets.forEach(restart);
  else if (m === 'stop') { stop = true; for (const t of targets) t.agent.destroy(); }
});
function tick(t) {
  if (stop) return;
  const t0 = now();
  const req = http.get(t.url + '/health', { agent: t.agent }, (res) => {
    res.resume();
    res.on('end', () => {
      const t1 = now();
      const cpu = cpuMs(t.pid);
      t.s.n++;
      if (res.statusCode !== 200) t.s.fails++;
      t.s.worstLatency = Math.max(t.s.worstLatency, t1 - t0);
      const gap = t1 - t.last;
      t.s.worstGap = Math.max(t.s.worstGap, gap);
      if (gap > workerData.stallMs) t.s.stalls.push({ start: t.last, end: t1, cpuMs: cpu - t.lastCpu });
      t.last = t1;
      t.lastCpu = cpu;
      setTimeout(() => tick(t), 2);
    });
  });
  req.setTimeout(2000, () => req.destroy(new Error('timeout')));
  req.on('error', () => { t.s.fails++; if (!stop) setTimeout(() => tick(t), 2); });
}
for (const t of targets) tick(t);
`;

const CONTROL_SERVER = `require('node:http').createServer((q, s) => s.end('{"ok":true}')).listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });`;

interface Stall {
  start: number;
  end: number;
  /** CPU time the polled process used during it (ferret only; 10 ms ticks). */
  cpuMs: number;
}
interface HealthStats {
  n: number;
  fails: number;
  worstLatency: number;
  worstGap: number;
  stalls: Stall[];
}

async function healthPoller(url: string, pid: number) {
  const control = track(spawn(process.execPath, ['-e', CONTROL_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] }));
  const port = await new Promise<string>((resolve, reject) => {
    control.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
    control.once('exit', () => reject(new Error('the control server exited')));
  });
  const clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const w = new Worker(POLLER, { eval: true, workerData: { urls: [url, `http://127.0.0.1:${port}`], pids: [pid, 0], clkTck, stallMs: STALL_MS } });
  const stats = (): Promise<{ ferret: HealthStats; control: HealthStats }> =>
    new Promise((r) => {
      w.once('message', ([ferret, ctl]: HealthStats[]) => r({ ferret: ferret!, control: ctl! }));
      w.postMessage('stats');
    });
  return {
    stats,
    reset: () => w.postMessage('reset'),
    stop: async () => {
      w.postMessage('stop');
      await w.terminate();
      await stopChild(control, 'SIGKILL');
    },
  };
}

/**
 * ferret's /health gaps over 50 ms that the machine does not explain (see the poller): each as
 * "wall ms (control stalled N ms of it, ferret used C ms of CPU)". FERRET_FUZZ_STRICT_HEALTH=1:
 * every gap over 50 ms counts, whatever the machine did.
 */
function unexplainedStalls(ferret: HealthStats, control: HealthStats): string[] {
  const strict = process.env['FERRET_FUZZ_STRICT_HEALTH'] === '1';
  return ferret.stalls.flatMap((s) => {
    const wall = s.end - s.start;
    if (wall < HEALTH_BUDGET_MS) return [];
    const covered = Math.max(0, ...control.stalls.map((c) => Math.min(s.end, c.end) - Math.max(s.start, c.start)));
    const explained = !strict && (wall - covered < HEALTH_BUDGET_MS || s.cpuMs < HEALTH_BUDGET_MS);
    return explained ? [] : [`${wall.toFixed(0)} ms (control stalled ${covered.toFixed(0)} ms of it, ferret used ${s.cpuMs.toFixed(0)} ms of CPU)`];
  });
}

/** The figures of one poll period. */
function healthFigures(ferret: HealthStats, control: HealthStats) {
  const worst = ferret.stalls.reduce<Stall | undefined>((w, s) => (!w || s.end - s.start > w.end - w.start ? s : w), undefined);
  return {
    polls: ferret.n,
    worstGapMs: +ferret.worstGap.toFixed(1),
    worstLatencyMs: +ferret.worstLatency.toFixed(1),
    cpuMsInWorstGap: worst?.cpuMs ?? 0,
    gapsOver50: ferret.stalls.filter((s) => s.end - s.start >= HEALTH_BUDGET_MS).length,
    controlWorstGapMs: +control.worstGap.toFixed(1),
    controlGapsOver50: control.stalls.filter((s) => s.end - s.start >= HEALTH_BUDGET_MS).length,
  };
}

// ------------------------------------------------------------------ the test

describe('reliability: schema-driven fuzz of every HTTP route (one server, token set)', () => {
  let env: TempEnv;
  let proc: FerretClient;
  let url: string;
  let host: string;
  let doc: Doc;
  let ferret: FerretApiClient;
  let poller: Awaited<ReturnType<typeof healthPoller>>;
  let permStream: { close(): void } | undefined;
  const sessions: string[] = [];
  /** Sessions only the fuzzed deleteSession uses. */
  const doomed: string[] = [];
  let permSession = '';
  const permIds: string[] = [];
  const files: Record<string, string> = {};
  const figures: Record<string, unknown> = {};

  beforeAll(async () => {
    env = tempEnv();
    const chat = (n: number, tag: string) => ({ responses: Array.from({ length: n }, (_, i) => ({ chunks: [`${tag} ${i}`] })) });
    files['chatA'] = writeScript(env.home, 'chat-a.json', chat(300, 'a'));
    files['chatB'] = writeScript(env.home, 'chat-b.json', chat(300, 'b'));
    // A turn that asks for many permissions (suggest), so answerPermission meets real pending ids.
    const writes = { responses: [{ toolCalls: Array.from({ length: 40 }, (_, i) => ({ name: 'write_file', arguments: { path: `f${i}.txt`, content: 'x' } })) }, ...chat(300, 'p').responses] };
    files['perm'] = writeScript(env.home, 'perm.json', writes);
    // Hostile model paths: a FIFO, a 100 MB file, a directory, small files with secrets in them.
    const hostile = join(env.home, 'hostile');
    mkdirSync(join(hostile, 'dir'), { recursive: true });
    files['fifo'] = join(hostile, 'fifo');
    execFileSync('mkfifo', [files['fifo']]);
    files['big'] = join(hostile, 'big.json');
    writeFileSync(files['big'], `{"responses":[{"chunks":["${MARKER}`);
    truncateSync(files['big'], 100 * 1024 * 1024);
    files['dir'] = join(hostile, 'dir');
    files['notJson'] = join(hostile, 'not.json');
    writeFileSync(files['notJson'], `${MARKER} ${SECRET}\n`);
    files['badField'] = join(hostile, 'bad-field.json');
    writeFileSync(files['badField'], JSON.stringify({ responses: `${MARKER}` }));

    ({ proc, url } = await startHttp(['--cwd', env.ws, '--model', `scripted:${files['chatA']}`], { CHIMERA_HOME: env.home, FERRET_SERVER_TOKEN: TOKEN, FUZZ_SECRET: SECRET }));
    host = new URL(url).host;
    ferret = createFerretClient({ baseUrl: url, token: TOKEN });
    doc = (await ferret.openapi()) as unknown as Doc;
    for (let i = 0; i < 3; i++) sessions.push((await ferret.createSession()).sessionId);
    for (let i = 0; i < 10; i++) doomed.push((await ferret.createSession()).sessionId);
    // Kept out of `sessions` (no fuzzed cancel or approval change ends its turn); answerPermission targets it.
    permSession = (await ferret.createSession({ model: `scripted:${files['perm']}`, approval: 'suggest' })).sessionId;
    // Follow it to learn the permission ids as they come (the fuzz answers some of them).
    const stream = ferret.events(permSession, { retryMs: 100, maxRetries: 0 });
    permStream = stream;
    await stream.opened;
    void (async () => {
      for await (const f of stream) if (f.event === 'loop_event' && f.data.kind === 'permission_request') permIds.push(f.data.id);
    })().catch(() => undefined);
    await ferret.sendMessage(permSession, 'write files', { wait: false });
    poller = await healthPoller(url, proc.child.pid!);
  }, 60_000);

  afterAll(async () => {
    permStream?.close();
    await poller?.stop();
    if (proc) await proc.stop();
    env?.cleanup();
    process.stdout.write(`http-fuzz figures: ${JSON.stringify(figures)}\n`);
  });

  /** The checks every answer gets: declared status and content type, a body its schema accepts, no 5xx. */
  function checker() {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', '"#/$defs/')) as object;
    ajv.addSchema({ $id: 'https://ferret.invalid/doc', $defs: defs });
    const compiled = new Map<Schema, ReturnType<typeof ajv.compile>>();
    const validator = (s: Schema) => {
      let v = compiled.get(s);
      if (!v) {
        v = ajv.compile(JSON.parse(JSON.stringify(s).replaceAll('"#/components/schemas/', '"https://ferret.invalid/doc#/$defs/')) as object);
        compiled.set(s, v);
      }
      return v;
    };
    return (op: Operation, r: Req, res: Res): string | undefined => {
      const what = `${op.operationId}: ${r.method} ${r.path} ${JSON.stringify(r.headers)} ${r.body === undefined ? '(no body)' : r.body.slice(0, 160)} → ${res.status} ${res.contentType} ${res.text.slice(0, 200)}`;
      // Closing on a body over the server's limit is a refusal (send() reports it for those bodies only).
      if (res.closedEarly) return undefined;
      if (res.status >= 500) return `5xx: ${what}`;
      const declared = op.responses[String(res.status)];
      if (!declared) return `undeclared status ${res.status}: ${what}`;
      const media = res.contentType.split(';')[0]!.trim();
      const content = declared.content ?? {};
      if (!(media in content)) return `undeclared content type "${res.contentType}" for ${res.status} (declared: ${Object.keys(content).join(', ') || 'none'}): ${what}`;
      if (r.invalid && res.status < 400) return `accepted an invalid request (${r.invalid}): ${what}`;
      const schema = content[media]?.schema;
      if (media === 'application/json' && schema) {
        let body: unknown;
        try {
          body = JSON.parse(res.text);
        } catch {
          return `body is not JSON: ${what}`;
        }
        const v = validator(schema);
        if (!v(body)) return `body does not match its schema (${ajv.errorsText(v.errors)}): ${what}`;
      }
      return undefined;
    };
  }

  it('every operation: generated valid and invalid requests get only declared statuses, content types and bodies, never a 5xx; /health stays under 50 ms', async () => {
    const check = checker();
    const ops = operations(doc);
    expect(ops.map((o) => o.operationId)).toEqual(expect.arrayContaining(KNOWN));
    const hints: Hints = {
      cwd: () => fc.constantFrom(env.ws, '.', 'no-such-dir', '/no/such/dir', '/', env.home, files['big']!),
      model: () => fc.constantFrom(`scripted:${files['chatA']}`, `scripted:${files['chatB']}`, `scripted:${files['chatA']}`, `scripted:${files['chatB']}`, 'nope/none', 'scripted:/no/such/file.json', 'scripted:', 'scripted:relative.json'),
      text: () => fc.constantFrom('hi', '/status', '/help', '/mode plan', '/approval suggest', '/model nope/none', ''),
      // Mostly the latest request (pending until someone answers it), else any seen so far (409 already_decided).
      id: () => fc.oneof({ arbitrary: fc.constant(-1), weight: 3 }, { arbitrary: fc.nat(), weight: 1 }).map((i) => (i < 0 ? permIds.at(-1) : permIds[i % Math.max(1, permIds.length)]) ?? 'perm-none'),
    };
    // A delete gets sessions of its own: deleting the shared ones would leave the other operations only 404s.
    const existing = (op: Operation) =>
      op.operationId === 'answerPermission'
        ? fc.constant(permSession)
        : op.operationId === 'deleteSession'
          ? fc.nat().map((i) => doomed[i % doomed.length]!)
          : fc.nat().map((i) => sessions[i % sessions.length]!);
    const idArb = (op: Operation) => fc.oneof(
      { arbitrary: existing(op), weight: 6 },
      { arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), weight: 2 },
      { arbitrary: fc.constantFrom('..', '%2e%2e', '..%2F..%2Fetc', 'a%00b', 'x'.repeat(65), 'a%20b', '%F0%9F%92%A9'), weight: 1 },
      { arbitrary: fc.string({ minLength: 1, maxLength: 70 }).map(encodeURIComponent), weight: 1 },
    );
    const headerValue = fc.oneof(
      fc.constantFrom('0', '1', '1.1', '3', '999999', '999999999999999', '9999999999999999', '1.2.3', '-1', 'abc', ' 2 ', '1.1234567'),
      fc.stringMatching(/^[ -~]{0,20}$/),
    );

    /** Requests for one operation; `validOnly`: the token, the Host, JSON, an existing session and a body its schema accepts. */
    const reqArb = (op: Operation, validOnly = false): fc.Arbitrary<Req> => {
      const bodyArb = validOnly
        ? op.body
          ? valid(doc, op.body.schema, hints).map((v): BodyPick => ({ text: JSON.stringify(v), invalid: undefined }))
          : fc.constant<BodyPick>({ text: undefined, invalid: undefined })
        : op.body
        ? fc.oneof(
            { arbitrary: valid(doc, op.body.schema, hints).map((v): BodyPick => ({ text: JSON.stringify(v), invalid: undefined })), weight: 30 },
            ...(invalid(doc, op.body.schema, hints) ? [{ arbitrary: invalid(doc, op.body.schema, hints)!.map((v) => ({ text: JSON.stringify(v), invalid: 'body breaks its schema' })), weight: 15 }] : []),
            { arbitrary: fc.constantFrom('{', '{"text":', 'not json', "{'a':1}", '[1,', '\u0000').map((t) => ({ text: t, invalid: 'malformed JSON' })), weight: 5 },
            { arbitrary: fc.constant({ text: undefined, invalid: op.body.required ? 'no body' : undefined }), weight: 5 },
            { arbitrary: fc.constant({ text: JSON.stringify({ text: 'a'.repeat(1024 * 1024 + 10) }), invalid: 'body over the limit' }), weight: 1 },
          )
        : fc.oneof(
            { arbitrary: fc.constant<BodyPick>({ text: undefined, invalid: undefined }), weight: 8 },
            { arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => ({ text: JSON.stringify(v) ?? 'null', invalid: undefined })), weight: 1 },
            ...(op.method === 'POST' ? [{ arbitrary: fc.constant({ text: 'x'.repeat(1024 * 1024 + 10), invalid: 'body over the limit' }), weight: 1 }] : []),
          );
      const params = op.parameters.map((p) => {
        if (p.in === 'path') return (validOnly ? existing(op) : idArb(op)).map((v) => ({ p, v, invalid: new RegExp(p.schema.pattern ?? '.*').test(decodeURIComponentSafe(v)) ? undefined : 'bad path parameter' }));
        const good = p.in === 'header' ? headerValue : valid(doc, p.schema, hints);
        const bad = fc.stringMatching(/^[ -~]{0,12}$/).filter((x) => !(p.schema.enum ?? []).includes(x));
        if (validOnly) return good.map((v): ParamPick => ({ p, v: String(v), invalid: undefined }));
        return fc.oneof(
          { arbitrary: good.map((v): ParamPick => ({ p, v: String(v), invalid: undefined })), weight: 4 },
          { arbitrary: fc.constant<ParamPick>({ p, v: undefined, invalid: p.required ? 'missing parameter' : undefined }), weight: 2 },
          ...(p.schema.enum ? [{ arbitrary: bad.map((v): ParamPick => ({ p, v, invalid: 'value outside the enum' })), weight: 1 }] : []),
        );
      });
      return fc
        .record({
          params: fc.tuple(...params),
          body: bodyArb,
          auth: validOnly ? fc.constant('good') : fc.constantFrom('good', 'good', 'good', 'good', 'good', 'good', 'none', 'wrong'),
          host: validOnly ? fc.constant('good') : fc.constantFrom('good', 'good', 'good', 'good', 'good', 'good', 'good', 'good', 'evil', 'none'),
          contentType: validOnly ? fc.constantFrom('application/json', 'application/json; charset=utf-8') : fc.constantFrom('application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'none'),
          accept: validOnly ? fc.constantFrom(undefined, 'text/event-stream', '*/*') : fc.constantFrom(undefined, undefined, 'text/event-stream', '*/*', 'application/json', 'text/event-stream;q=0', 'text/*'),
        })
        .map((a) => {
          let path = op.path;
          const query: string[] = [];
          const headers: Record<string, string> = {};
          let invalidWhy: string | undefined;
          for (const { p, v, invalid: why } of a.params) {
            invalidWhy ??= why;
            if (p.in === 'path') path = path.replace(`{${p.name}}`, v ?? '');
            else if (v !== undefined && p.in === 'query') query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(v)}`);
            else if (v !== undefined && p.in === 'header') headers[p.name] = v;
          }
          if (op.needsToken && a.auth !== 'good') invalidWhy ??= `token ${a.auth}`;
          if (a.auth === 'good') headers['authorization'] = `Bearer ${TOKEN}`;
          else if (a.auth === 'wrong') headers['authorization'] = `Bearer ${TOKEN.slice(0, -1)}x`;
          if (a.host === 'good') headers['host'] = host;
          else if (a.host === 'evil') {
            headers['host'] = 'evil.example';
            invalidWhy ??= 'foreign Host';
          } else invalidWhy ??= 'no Host header';
          if (a.accept !== undefined) headers['accept'] = a.accept;
          if (op.operationId === 'streamEvents' && (a.accept === 'application/json' || a.accept === 'text/event-stream;q=0')) invalidWhy ??= 'Accept refuses text/event-stream';
          const body = a.body.text;
          if (body !== undefined && a.contentType !== 'none') headers['content-type'] = a.contentType;
          if (op.body) {
            invalidWhy ??= a.body.invalid;
            if (body !== undefined && (a.contentType === 'text/plain' || a.contentType === 'none')) invalidWhy ??= 'not application/json';
          }
          return { method: op.method, path: path + (query.length ? `?${query.join('&')}` : ''), headers, ...(body !== undefined ? { body } : {}), invalid: invalidWhy };
        });
    };

    poller.reset();
    const started = Date.now();
    const deadline = started + FUZZ_TIME_MS;
    const problems: string[] = [];
    const statuses: Record<string, Record<number, number>> = {};
    const slowest: Record<string, number> = {};
    const inFlight: { op: string; start: number; end: number; status: number }[] = [];
    let sent = 0;
    // Per operation: a pass of valid requests (so the success paths are reached), then a mixed one.
    for (const [i, [op, validOnly]] of ops.flatMap((o) => [[o, true], [o, false]] as const).entries()) {
      const budget = Math.max(1000, (deadline - Date.now()) / (ops.length * 2 - i));
      await fc.assert(
        fc.asyncProperty(reqArb(op, validOnly), async (r) => {
          const start = performance.timeOrigin + performance.now();
          const res = await send(url, r);
          sent++;
          slowest[op.operationId] = Math.max(slowest[op.operationId] ?? 0, +res.ms.toFixed(1));
          inFlight.push({ op: op.operationId, start, end: start + res.ms, status: res.status });
          (statuses[op.operationId] ??= {})[res.status] = (statuses[op.operationId]![res.status] ?? 0) + 1;
          const why = check(op, r, res);
          if (why && problems.length < 30) problems.push(why);
        }),
        { numRuns: validOnly ? VALID_RUNS_PER_OP : RUNS_PER_OP, interruptAfterTimeLimit: budget, markInterruptAsFailure: false, seed: Number(process.env['FUZZ_SEED'] ?? Date.now() % 2 ** 31) },
      );
    }
    const { ferret: health, control } = await poller.stats();
    Object.assign(figures, {
      requests: sent,
      fuzzMs: Date.now() - started,
      statuses,
      health: healthFigures(health, control),
      slowestAnswerMsByOp: slowest,
      // The fuzz requests in flight during ferret's longest /health gap.
      duringWorstGap: ((w) => (w ? inFlight.filter((f) => f.end >= w.start && f.start <= w.end).map((f) => `${f.op}:${f.status}:${Math.round(f.end - f.start)}ms`) : []))(
        health.stalls.reduce<Stall | undefined>((a, b) => (!a || b.end - b.start > a.end - a.start ? b : a), undefined),
      ),
    });
    expect(problems, 'answers the document does not declare').toEqual([]);
    expect(sent).toBeGreaterThan(ops.length * 20);
    for (const op of ops.filter((o) => KNOWN.includes(o.operationId))) expect(Object.keys(statuses[op.operationId] ?? {}).some((s) => s.startsWith('2')), `${op.operationId} got some 2xx`).toBe(true);
    expect(health.fails, '/health failures').toBe(0);
    expect(health.n).toBeGreaterThan(50);
    expect(unexplainedStalls(health, control), `/health gaps over ${HEALTH_BUDGET_MS} ms the machine does not explain (${health.n} polls)`).toEqual([]);
    expect(proc.child.exitCode, 'server still running').toBeNull();
  }, 60_000);

  it('hostile scripted model paths (/dev/zero, a FIFO, /proc/self/environ, a 100 MB file, a directory, …) answer 4xx at once and never echo the file', async () => {
    const check = checker();
    const ops = new Map(operations(doc).map((o) => [o.operationId, o]));
    const paths = [
      '/dev/zero',
      files['fifo']!,
      '/proc/self/environ',
      files['big']!,
      files['dir']!,
      '/dev/stdin',
      '/proc/self/fd/0',
      '/dev/urandom',
      '/etc/passwd',
      files['notJson']!,
      files['badField']!,
    ];
    const never = [MARKER, SECRET, TOKEN, 'root:x:0:0', 'FERRET_SERVER_TOKEN='];
    poller.reset();
    const slow: string[] = [];
    const problems: string[] = [];
    let worst = 0;
    const byPath: Record<string, number> = {};
    const headers = { authorization: `Bearer ${TOKEN}`, host, 'content-type': 'application/json' };
    for (const p of paths) {
      for (const [opId, path, body] of [
        ['createSession', '/session', { model: `scripted:${p}` }],
        ['createSession', '/session', { cwd: env.ws, model: `scripted:${p}`, approval: 'full-auto' }],
        ['setModel', `/session/${sessions[0]}/model`, { model: `scripted:${p}` }],
      ] as const) {
        const r: Req = { method: 'POST', path, headers, body: JSON.stringify(body), invalid: 'hostile model path' };
        const res = await send(url, r, 5000);
        worst = Math.max(worst, res.ms);
        byPath[p] = Math.max(byPath[p] ?? 0, Math.round(res.ms));
        if (res.ms > 1000) slow.push(`${p}: ${Math.round(res.ms)} ms`);
        const why = check(ops.get(opId)!, r, res);
        if (why) problems.push(why);
        for (const s of never) if (res.text.includes(s)) problems.push(`${p}: the answer echoes ${JSON.stringify(s)}: ${res.text.slice(0, 300)}`);
      }
    }
    // Relative to a hostile cwd, too.
    const rel = await send(url, { method: 'POST', path: '/session', headers, body: JSON.stringify({ cwd: '/proc/self', model: 'scripted:environ' }), invalid: 'hostile' });
    expect(rel.status).toBeGreaterThanOrEqual(400);
    expect(rel.status).toBeLessThan(500);
    for (const s of never) expect(rel.text).not.toContain(s);
    const { ferret: health, control } = await poller.stats();
    Object.assign(figures, {
      hostileRequests: paths.length * 3 + 1,
      hostileWorstMs: +worst.toFixed(1),
      hostileMsByPath: byPath,
      hostileHealth: healthFigures(health, control),
    });
    expect(problems).toEqual([]);
    expect(slow, 'hostile paths answered within 1 s').toEqual([]);
    expect(health.fails).toBe(0);
    expect(unexplainedStalls(health, control), `/health gaps over ${HEALTH_BUDGET_MS} ms while hostile paths were tried that the machine does not explain (${health.n} polls)`).toEqual([]);
    // The server still serves a turn.
    expect((await ferret.sendMessage(sessions[1]!, 'still there?')).stopReason).toBe('end_turn');
  }, 30_000);

  // /proc/self/mem is a "regular file" to fstat, but read() fails with EIO: a 400, never a 500.
  it('a regular file that cannot be read (/proc/self/mem: EIO) answers 4xx, not 500', async () => {
    const headers = { authorization: `Bearer ${TOKEN}`, host, 'content-type': 'application/json' };
    for (const [path, body] of [
      ['/session', { model: 'scripted:/proc/self/mem' }],
      [`/session/${sessions[0]}/model`, { model: 'scripted:/proc/self/mem' }],
    ] as const) {
      const res = await send(url, { method: 'POST', path, headers, body: JSON.stringify(body), invalid: 'unreadable model file' });
      expect(res.status, `POST ${path} → ${res.status} ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `POST ${path} → ${res.status} ${res.text}`).toBeLessThan(500);
    }
  });
});

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
