import { built, SessionEventSchema, type SessionEvent } from '../protocol/index.js';

// The one JSONL codec of session events, shared by the file store (a line of events.jsonl) and the
// Redis store (an entry of the session's stream). A line is always
//   {"seq":N,"sessionId":"…","ts":N,"type":"…","data":{…}}
// in that key order, whatever order the event object was built in: the history fast path
// (line-scanner.ts) recognises a line's seq and type, and a few fields of its data (a call's id,
// a message's role), from the raw text without parsing it, and a snapshot's mark is checked
// against the `{"seq":N,` a line starts with.

/** The start of every line: `{"seq":N,`. */
export const linePrefix = (seq: number): string => `{"seq":${seq},`;

/** The first key of an object (for-in order is JSON.stringify's order). */
function firstKey(o: object): string | undefined {
  for (const k in o) return k;
  return undefined;
}

/**
 * The data of an event with the fields the fast path reads from the raw line first: a
 * progress's or an end's `callId`, a message's `role`. Events the core builds already have them
 * first (then nothing is copied); this only guarantees it.
 */
function orderedData(e: SessionEvent): unknown {
  if (e.type === 'tool_call_progress' || e.type === 'tool_call_end') {
    if (firstKey(e.data) !== 'callId') return Object.assign({ callId: e.data.callId }, e.data);
  } else if (e.type === 'message') {
    if (firstKey(e.data.message) !== 'role') return { ...e.data, message: Object.assign({ role: e.data.message.role }, e.data.message) };
  }
  return e.data;
}

/**
 * An event as one line (without its newline), keys in the codec's order. A literal in that order
 * handed to JSON.stringify: within a few per cent of stringifying the event itself (a template of
 * the fields stringified one by one cost a third more).
 */
export function encodeEvent(e: SessionEvent): string {
  return JSON.stringify({ seq: e.seq, sessionId: e.sessionId, ts: e.ts, type: e.type, data: orderedData(e) });
}

/** Why a line did not decode: not JSON (a torn line, when it is the last), or JSON that is not an event. */
export type DecodeFailure = 'not_json' | 'not_event';

/** The union itself, not its proxy: it parses every line of a validated read (protocol/lazy-schema.ts). */
let eventSchema: typeof SessionEventSchema | undefined;
let known: Set<string> | undefined;

/** The event types of the union, for the shape check of a replay. */
function knownTypes(): Set<string> {
  return (known ??= new Set(SessionEventSchema.options.map((o) => o.shape.type.value)));
}

/** A replayed line's shape, without the full schema: the fields every reader of an event relies on. */
function looksLikeEvent(x: unknown): x is SessionEvent {
  if (typeof x !== 'object' || x === null) return false;
  const e = x as Record<string, unknown>;
  return (
    typeof e['seq'] === 'number' &&
    typeof e['ts'] === 'number' &&
    typeof e['sessionId'] === 'string' &&
    typeof e['type'] === 'string' &&
    typeof e['data'] === 'object' &&
    e['data'] !== null &&
    knownTypes().has(e['type'])
  );
}

/**
 * A line back to an event: with `validate`, the full schema (a load that folds state); else a
 * shape check (a replay, which only hands events on).
 */
export function decodeLine(line: string, validate: boolean): SessionEvent | DecodeFailure {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return 'not_json';
  }
  if (validate) {
    const ok = (eventSchema ??= built(SessionEventSchema)).safeParse(parsed);
    return ok.success ? ok.data : 'not_event';
  }
  return looksLikeEvent(parsed) ? parsed : 'not_event';
}

// ---- reading a line without parsing it (the history fast path) --------------------------------

const TYPE_KEY = ',"type":"';

/** What a line's type mark looks like: `,"type":"<type>","data":{`. */
export const typeMark = (type: SessionEvent['type']): string => `${TYPE_KEY}${type}","data":{`;

/**
 * Whether a line of this codec is of the type `mark` (typeMark) names. The first `,"type":"` is
 * the event's own key: the fields before it are a number, a string (its quotes escaped) and a
 * number, so nested JSON in the data cannot pose as it.
 */
export function isLineOfType(line: string, mark: string): boolean {
  return line.startsWith('{"seq":') && line.startsWith(mark, line.indexOf(TYPE_KEY));
}

/** The seq a line of this codec starts with. */
export function seqOfLine(line: string): number {
  return Number.parseInt(line.slice(7, 23), 10);
}

const PROGRESS_MARK = typeMark('tool_call_progress');
const END_MARK = typeMark('tool_call_end');
const MESSAGE_MARK = typeMark('message');
const MESSAGE_CHUNK_MARK = typeMark('message_chunk');
const ASSISTANT_MARK = '"message":{"role":"assistant"';

/** A message_chunk line. */
export const isChunkLine = (line: string): boolean => isLineOfType(line, MESSAGE_CHUNK_MARK);

/**
 * An assistant message line. Only an assistant message holds raw JSON of a model's choosing (its
 * tool calls' arguments); a user's or a tool's holds strings, where a quote is always escaped.
 */
export const isAssistantMessageLine = (line: string): boolean => isLineOfType(line, MESSAGE_MARK) && line.includes(ASSISTANT_MARK);

/** The callId a line of `mark`'s type starts its data with (the codec puts it first), read as the JSON string it is. */
function callIdAfter(line: string, mark: string): string | undefined {
  if (!isLineOfType(line, mark)) return undefined;
  const from = line.indexOf(TYPE_KEY) + mark.length;
  if (!line.startsWith('"callId":"', from)) return undefined;
  const open = from + '"callId":'.length;
  let i = open + 1;
  let escaped = false;
  for (; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x22 /* " */ && !escaped) break;
    escaped = c === 0x5c /* \ */ && !escaped;
  }
  if (i >= line.length) return undefined;
  const raw = line.slice(open, i + 1);
  if (!raw.includes('\\')) return raw.slice(1, -1);
  try {
    return JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
}

/** The call a tool_call_progress line belongs to; undefined for any other line. */
export const progressCallId = (line: string): string | undefined => callIdAfter(line, PROGRESS_MARK);

/** The call a tool_call_end line ends; undefined for any other line. */
export const endCallId = (line: string): string | undefined => callIdAfter(line, END_MARK);

/** Whether an end line carries a command's whole output (it ran to an exit code), not an interruption or a tool's failure. */
export function endHasExitCode(line: string): boolean {
  try {
    return typeof (JSON.parse(line) as { data?: { exitCode?: unknown } }).data?.exitCode === 'number';
  } catch {
    return false;
  }
}
