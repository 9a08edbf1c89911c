import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { FerretError, lazySchema, PricingSchema, UsageSchema } from '../protocol/index.js';
import { isOverflowText } from './overflow.js';
import { unseenImagesNotice } from './images.js';
import { ContextOverflowError, ModelError, type ModelProvider, type ModelRequest, type ModelStreamPart } from './provider.js';

const ScriptedResponseSchema = lazySchema(() =>
  z.object({
    chunks: z.array(z.string()).default([]),
    reasoning: z.array(z.string()).optional(),
    toolCalls: z
      .array(z.object({ id: z.string().optional(), name: z.string().min(1), arguments: z.unknown().default({}) }))
      .default([]),
    usage: UsageSchema.partial().optional(),
    delayMs: z.number().int().nonnegative().default(0),
    error: z.string().optional(),
    /** How the provider ended the reply: `length` (output-token limit) or `refusal`; default a normal end. */
    finish: z.enum(['stop', 'length', 'refusal']).optional(),
  }),
);

export const ScriptedFileSchema = lazySchema(() =>
  z.object({
    responses: z.array(ScriptedResponseSchema),
    pricing: PricingSchema.partial().optional(),
    contextWindow: z.number().int().positive().optional(),
    /** false: a text-only model (an image in its prompt is a notice, as for a real one); default true. */
    vision: z.boolean().optional(),
    /**
     * What the model answers when ferret asks it for the session's title (after the first turn):
     * a string, or an object with its usage. Absent: no title call is made, and `responses` keep
     * their positions either way.
     */
    title: z.union([z.string(), z.object({ text: z.string(), usage: UsageSchema.partial().optional() })]).optional(),
    /**
     * The responses of subagents (`task` calls), by the task's description, else its agent's
     * name, else `*`: each child reads its own list from its first entry, so children running
     * at once stay deterministic, and none of them moves the session's own position.
     */
    subagents: z.record(z.string(), z.array(ScriptedResponseSchema)).optional(),
  }),
);
export type ScriptedFile = z.infer<typeof ScriptedFileSchema>;

function fieldPath(path: PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
}

/** Largest scripted file read; a model path may come from a request, so nothing unbounded is read. */
const MAX_SCRIPT_BYTES = 16 * 1024 * 1024;

/**
 * Reads a scripted file without ever blocking or reading without bound: opened non-blocking (a
 * FIFO cannot hold the event loop), only a regular file is read, and at most MAX_SCRIPT_BYTES.
 */
function readScript(path: string, unchanged: (sig: string) => boolean): { text?: string; sig: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    throw new FerretError('invalid_params', `scripted model file ${path}: cannot open it (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { field: 'model' });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new FerretError('invalid_params', `scripted model file ${path}: not a regular file`, { field: 'model' });
    if (st.size > MAX_SCRIPT_BYTES) throw new FerretError('invalid_params', `scripted model file ${path}: larger than ${MAX_SCRIPT_BYTES} bytes`, { field: 'model' });
    const sig = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    if (unchanged(sig)) return { sig };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(64 * 1024);
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        // A "regular" file the kernel will not read (/proc/self/mem): an answer, not a 500.
        throw new FerretError('invalid_params', `scripted model file ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { field: 'model' });
      }
      if (n === 0) break;
      total += n;
      if (total > MAX_SCRIPT_BYTES) throw new FerretError('invalid_params', `scripted model file ${path}: larger than ${MAX_SCRIPT_BYTES} bytes`, { field: 'model' });
      chunks.push(buf.subarray(0, n));
    }
    return { text: Buffer.concat(chunks).toString('utf8'), sig };
  } finally {
    closeSync(fd);
  }
}

/** Parsed files by path, with the stat they were read at: a turn re-reads only a file that changed. */
const parsedFiles = new Map<string, { sig: string; file: ScriptedFile }>();
const PARSED_FILES_KEPT = 64;
/** Larger files are parsed each turn, as before: the cache stays small whatever paths a client names. */
const PARSED_FILE_MAX_BYTES = 1024 * 1024;

export function loadScriptedFile(path: string): ScriptedFile {
  const known = parsedFiles.get(path);
  const { text, sig } = readScript(path, (sig) => known?.sig === sig);
  if (text === undefined && known) return known.file;
  const body = text ?? '';
  const file = parseScript(path, body);
  if (body.length > PARSED_FILE_MAX_BYTES) return file;
  if (parsedFiles.size >= PARSED_FILES_KEPT) parsedFiles.delete(parsedFiles.keys().next().value!);
  parsedFiles.set(path, { sig, file });
  return file;
}

function parseScript(path: string, text: string): ScriptedFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    // Never echo the file: the path may name any readable file (`/proc/self/environ`).
    const at = /at position \d+(?: \(line \d+ column \d+\))?/.exec((err as Error).message)?.[0];
    throw new FerretError('invalid_params', `scripted model file ${path}: not valid JSON${at ? ` (${at})` : ''}`, { field: 'model' });
  }
  const parsed = ScriptedFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue ? fieldPath(issue.path) : '';
    throw new FerretError(
      'invalid_params',
      `scripted model file ${path}: field ${field || '(root)'}: ${issue?.message ?? 'invalid'}`,
      { field: 'model', file: path, path: field },
    );
  }
  return parsed.data;
}

const YIELD_EVERY = 64;

/**
 * Replays a JSON file of responses. Its position is the number of model calls the session has
 * made, so a session loaded in a new process continues where it left off.
 */
export class ScriptedProvider implements ModelProvider {
  readonly pricing;
  readonly contextWindow;
  readonly takesImages: boolean;
  private readonly file: ScriptedFile;

  constructor(
    readonly id: string,
    path: string,
    cwd: string,
  ) {
    this.file = loadScriptedFile(resolve(cwd, path));
    const p = this.file.pricing;
    this.pricing = p ? PricingSchema.parse(p) : undefined;
    this.contextWindow = this.file.contextWindow;
    this.takesImages = this.file.vision !== false;
  }

  /** Whether the file answers a title call. */
  get titles(): boolean {
    return this.file.title !== undefined;
  }

  /** The session's own responses, or a subagent's list (by description, agent, then `*`). */
  private responsesFor(req: ModelRequest): { list: ScriptedFile['responses']; name: string } {
    const sub = req.subagent;
    if (!sub) return { list: this.file.responses, name: '' };
    const lists = this.file.subagents ?? {};
    for (const key of [sub.description, sub.agent, '*']) {
      if (key !== undefined && Object.hasOwn(lists, key)) return { list: lists[key]!, name: ` for subagent "${key}"` };
    }
    return { list: [], name: ` for subagent "${sub.description}" (no subagents entry names it, nor "*")` };
  }

  async *stream(req: ModelRequest): AsyncIterable<ModelStreamPart> {
    if (req.purpose === 'title') {
      // A side call: answered from `title`, never from `responses` (whose position it does not move).
      const t = this.file.title;
      if (t === undefined) throw new ModelError(`scripted model ${this.id}: the file has no title`);
      const { text, usage } = typeof t === 'string' ? { text: t, usage: undefined } : t;
      yield { type: 'text', text };
      yield { type: 'usage', usage: { input: 0, output: 0, cache: 0, reasoning: 0, ...usage } };
      return;
    }
    const index = req.callIndex;
    const { list, name } = this.responsesFor(req);
    const r = list[index];
    if (!r) {
      throw new ModelError(`scripted model ${this.id}: no response left${name} (the file has ${list.length}, this is call ${index + 1})`);
    }
    if (!this.takesImages) {
      const unseen = unseenImagesNotice(this.id, req.messages);
      if (unseen) yield { type: 'notice', level: 'warning', text: unseen };
    }
    for (const text of r.reasoning ?? []) yield { type: 'reasoning', text };
    for (let i = 0; i < r.chunks.length; i++) {
      if (i > 0 && r.delayMs > 0) await sleep(r.delayMs, undefined, { signal: req.signal });
      // A network stream never holds the event loop for a whole reply; neither does a replay,
      // so clients see a long burst as it is produced rather than all at its end.
      else if (i > 0 && i % YIELD_EVERY === 0) await nextTurn();
      req.signal.throwIfAborted();
      yield { type: 'text', text: r.chunks[i] ?? '' };
    }
    // An error that reads like a context-length refusal (before any text) is one, as from a real provider.
    if (r.error) throw r.chunks.length === 0 && isOverflowText(r.error) ? new ContextOverflowError(r.error) : new ModelError(r.error);
    for (let i = 0; i < r.toolCalls.length; i++) {
      const c = r.toolCalls[i]!;
      yield { type: 'tool_call', id: c.id ?? `call_${index + 1}_${i + 1}`, name: c.name, args: c.arguments };
    }
    if (r.usage) yield { type: 'usage', usage: UsageSchema.parse(r.usage) };
    if (r.finish) yield { type: 'finish', reason: r.finish };
  }
}
