import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { listeningUrl } from './http.mjs';
import { eachTest, type EachTest } from './per-test.js';
import { spawnFerret, stopChild } from './spawn.mjs';
import { StderrLog } from './stderr-log.mjs';

type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const schema = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@agentclientprotocol/sdk/schema/v1/schema.json'), 'utf8')) as object;
const ajv = new Ajv2020({ strict: false, logger: false, allErrors: false });
ajv.addSchema(schema, 'acp');
const def = (name: string) => {
  const v = ajv.getSchema(`acp#/$defs/${name}`);
  if (!v) throw new Error(`no $defs/${name} in the SDK schema`);
  return v;
};

/** Which schema definition each answer of ours must satisfy. */
const RESULT_DEF: Record<string, string> = {
  initialize: 'InitializeResponse',
  'session/new': 'NewSessionResponse',
  'session/load': 'LoadSessionResponse',
  'session/resume': 'ResumeSessionResponse',
  'session/list': 'ListSessionsResponse',
  'session/close': 'CloseSessionResponse',
  'session/prompt': 'PromptResponse',
  'session/set_mode': 'SetSessionModeResponse',
  'session/set_config_option': 'SetSessionConfigOptionResponse',
  'session/delete': 'DeleteSessionResponse',
};
const REQUEST_DEF: Record<string, string> = {
  'session/request_permission': 'RequestPermissionRequest',
  'fs/read_text_file': 'ReadTextFileRequest',
  'fs/write_text_file': 'WriteTextFileRequest',
  'terminal/create': 'CreateTerminalRequest',
  'terminal/output': 'TerminalOutputRequest',
  'terminal/release': 'ReleaseTerminalRequest',
  'terminal/wait_for_exit': 'WaitForTerminalExitRequest',
  'terminal/kill': 'KillTerminalRequest',
};

/**
 * Every schema violation in the messages ferret sent (`inbound`, in arrival order), as readable
 * lines (empty = all valid); `sent` maps this client's request ids to their methods, to pick the
 * result definition of each answer.
 */
export function v1SchemaErrors(inbound: readonly Msg[], sent: ReadonlyMap<string | number, string>): string[] {
  const errors: string[] = [];
  for (const m of inbound) {
    const where = JSON.stringify(m).slice(0, 300);
    if (m['jsonrpc'] !== '2.0') errors.push(`not JSON-RPC 2.0: ${where}`);
    let check: ReturnType<typeof def> | undefined;
    let value: unknown;
    if ('method' in m) {
      const method = String(m['method']);
      const notification = method === 'session/update' ? 'SessionNotification' : method === '$/cancel_request' ? 'CancelRequestNotification' : undefined;
      const name = 'id' in m ? REQUEST_DEF[method] : notification;
      if (!name && !method.startsWith('_')) errors.push(`unexpected ${'id' in m ? 'request' : 'notification'} ${method}`);
      if (name) [check, value] = [def(name), m['params']];
    } else if ('error' in m) {
      [check, value] = [def('Error'), m['error']];
    } else {
      const method = sent.get(m['id']);
      if (m['result'] === null || m['result'] === undefined) errors.push(`null result for ${method}: ${where}`);
      const name = method ? RESULT_DEF[method] : undefined;
      if (name) [check, value] = [def(name), m['result']];
    }
    if (check && !check(value)) errors.push(`${ajv.errorsText(check.errors)}: ${where}`);
  }
  return errors;
}

/** 'hold' leaves the prompt open until ferret withdraws it with `$/cancel_request`. */
/** Taps an SDK message stream: every inbound message is recorded, every outbound request's method remembered (for the schema check). */
export function tapStream(raw: acp.Stream, inbound: Msg[], sent: Map<string | number, string>): acp.Stream {
  const readable = raw.readable.pipeThrough(new TransformStream<acp.AnyMessage, acp.AnyMessage>({ transform: (m, c) => (inbound.push(m as Msg), c.enqueue(m)) }));
  const tap = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform: (m, c) => {
      const o = m as Msg;
      if ('method' in o && 'id' in o && o['id'] !== undefined) sent.set(o['id'], o['method']);
      c.enqueue(m);
    },
  });
  void tap.readable.pipeTo(raw.writable).catch(() => undefined);
  return { readable, writable: tap.writable };
}

/** How a test editor answers session/request_permission under its policy ('hold' waits until ferret withdraws it). */
export async function answerPermission(kind: ReturnType<PermissionPolicy>, params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
  if (kind === 'hold') await new Promise((r) => (signal.aborted ? r(undefined) : signal.addEventListener('abort', r, { once: true })));
  if (kind === 'cancelled' || kind === 'hold') return { outcome: { outcome: 'cancelled' } };
  return { outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind === kind)!.optionId } };
}

export type PermissionPolicy = (p: acp.RequestPermissionRequest) => 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always' | 'cancelled' | 'hold';

/**
 * The SDK's real client over a spawned `chimera ferret serve`, with every message ferret sends
 * recorded (in arrival order) and checked against the JSON schema shipped in the SDK.
 */
export class V1Client {
  readonly child: ChildProcessWithoutNullStreams;
  readonly log: StderrLog;
  readonly inbound: Msg[] = [];
  readonly updates: acp.SessionNotification[] = [];
  readonly permissions: acp.RequestPermissionRequest[] = [];
  readonly fsWrites: string[] = [];
  /** Paths ferret asked to read through the editor (`fs/read_text_file`), in order. */
  readonly fsReads: string[] = [];
  readonly agent: acp.ClientContext;
  private readonly conn: acp.ClientConnection;
  private readonly sent = new Map<string | number, string>();
  permissionPolicy: PermissionPolicy = () => 'allow_once';
  /** Every terminal/* request ferret made, in order (method and params). */
  readonly terminalCalls: { method: string; params: Record<string, unknown> }[] = [];
  /** The terminals this editor made: what it ran and what it printed (the editor really runs them, as Zed does). */
  readonly terminals = new Map<string, { command: string; args: string[]; output: string; proc: ChildProcess; exited: Promise<number | null> }>();
  /** How this editor answers `fs/read_text_file` (default: the file on disk); a test may make it never answer. */
  readText: (path: string, signal: AbortSignal) => Promise<string> = (path) => readFile(path, 'utf8');
  /** How this editor answers `fs/write_text_file` (default: writes the file at once); a test may make it never answer or make a person decide. */
  writeText: (path: string, content: string, signal: AbortSignal) => Promise<void> = async (path, content) => {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  };

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawnFerret(args, { env });
    this.log = new StderrLog(this.child.stderr);
    const raw = acp.ndJsonStream(Writable.toWeb(this.child.stdin), Readable.toWeb(this.child.stdout) as ReadableStream<Uint8Array>);
    const tapped = tapStream(raw, this.inbound, this.sent);
    const app = acp
      .client({ name: 'ferret-e2e' })
      .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
        this.permissions.push(params);
        return answerPermission(this.permissionPolicy(params), params, signal);
      })
      .onRequest(acp.methods.client.fs.readTextFile, async ({ params, signal }) => {
        this.fsReads.push(params.path);
        return { content: await this.readText(params.path, signal) };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, async ({ params, signal }) => {
        this.fsWrites.push(params.path);
        await this.writeText(params.path, params.content, signal);
        return {};
      })
      .onNotification(acp.methods.client.session.update, ({ params }) => void this.updates.push(params))
      .onNotification('*', () => {})
      .onRequest(acp.methods.client.terminal.create, async ({ params }) => {
        this.terminalCalls.push({ method: 'terminal/create', params: params });
        const id = `term_${this.terminals.size + 1}`;
        const proc = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, stdio: ['ignore', 'pipe', 'pipe'] });
        const t = { command: params.command, args: params.args ?? [], output: '', proc, exited: new Promise<number | null>((r) => proc.on('close', (code) => r(code))) };
        proc.stdout.on('data', (b: Buffer) => (t.output += b.toString()));
        proc.stderr.on('data', (b: Buffer) => (t.output += b.toString()));
        this.terminals.set(id, t);
        return { terminalId: id };
      })
      .onRequest(acp.methods.client.terminal.output, async ({ params }) => {
        this.terminalCalls.push({ method: 'terminal/output', params: params });
        return { output: this.terminals.get(params.terminalId)?.output ?? '', truncated: false };
      })
      .onRequest(acp.methods.client.terminal.release, async ({ params }) => {
        this.terminalCalls.push({ method: 'terminal/release', params: params });
        this.terminals.get(params.terminalId)?.proc.kill('SIGKILL');
        return {};
      })
      .onRequest(acp.methods.client.terminal.kill, async ({ params }) => {
        this.terminalCalls.push({ method: 'terminal/kill', params: params });
        this.terminals.get(params.terminalId)?.proc.kill('SIGKILL');
        return {};
      })
      .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
        this.terminalCalls.push({ method: 'terminal/wait_for_exit', params: params });
        const code = await this.terminals.get(params.terminalId)?.exited;
        return { exitCode: code ?? null };
      });
    this.conn = app.connect(tapped);
    this.agent = this.conn.agent;
  }

  /** Everything the server wrote to stderr so far. */
  get stderr(): string {
    return this.log.text;
  }

  initialize(caps: acp.ClientCapabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: false }): Promise<acp.InitializeResponse> {
    return this.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: caps, clientInfo: { name: 'ferret-e2e', version: '0.0.0' } });
  }

  /** Updates of one session, unwrapped, in arrival order. */
  of(sessionId: string): acp.SessionUpdate[] {
    return this.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
  }

  /** Every schema violation in what ferret sent so far, as readable lines (empty = all valid). */
  schemaErrors(): string[] {
    return v1SchemaErrors(this.inbound, this.sent);
  }

  /** With --http (and FERRET_LOG_LEVEL=info): the bound URL from the "listening" log line. */
  httpUrl(timeoutMs?: number): Promise<string> {
    return listeningUrl(this.log, timeoutMs);
  }

  /** Resolves when a message matching `pred` has arrived. */
  async waitFor(pred: (m: Msg) => boolean, timeoutMs = 10_000): Promise<Msg> {
    const start = Date.now();
    for (;;) {
      const hit = this.inbound.find(pred);
      if (hit) return hit;
      if (Date.now() - start > timeoutMs) throw new Error(`timed out; stderr:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async close(): Promise<void> {
    for (const t of this.terminals.values()) t.proc.kill('SIGKILL');
    this.conn.close();
    this.child.stdin.end();
    // With --http the server outlives stdin by design; stop it the way an operator would.
    await stopChild(this.child, this.child.spawnargs.includes('--http') ? 'SIGTERM' : null);
  }
}

/** Per test: a temp env, V1 clients started in it with --cwd, and after the test each one's traffic schema-checked, then all closed. */
export function v1PerTest(): EachTest<V1Client> {
  return eachTest(
    (env, args, extra) => new V1Client(['--cwd', env.ws, ...args], { CHIMERA_HOME: env.home, ...extra }),
    (c) => expect(c.schemaErrors()).toEqual([]),
  );
}
