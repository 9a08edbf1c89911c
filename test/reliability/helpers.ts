import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AcpProcess, type Json } from '../e2e/harness.js';

/** A server process's resident set size in KiB, from /proc (Linux). */
export function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]);
}

export function eventsPath(home: string, sessionId: string): string {
  return join(home, 'eventlog', `ferret-${sessionId}`, 'events.jsonl');
}

/** Every whole line of a session's events.jsonl, parsed (a torn tail is dropped, as a loader would). */
export function readEvents(home: string, sessionId: string): Json[] {
  const p = eventsPath(home, sessionId);
  if (!existsSync(p)) return [];
  const out: Json[] = [];
  for (const line of readFileSync(p, 'utf8').split('\n')) {
    if (!line) continue;
    try {
      out.push(JSON.parse(line) as Json);
    } catch {
      // a torn last line; the caller decides whether that matters
    }
  }
  return out;
}

export async function waitUntil(pred: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Answers (results or errors, not notifications) the process has sent so far. */
export function answers(p: AcpProcess): Json[] {
  return p.messages.filter((m) => 'result' in m || 'error' in m);
}

/** Keeps real provider keys out of the server so no fuzzed model id can reach the network. */
export const NO_PROVIDER_KEYS: NodeJS.ProcessEnv = {
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: '',
  OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
};
