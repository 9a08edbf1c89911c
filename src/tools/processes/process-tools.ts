import { z } from 'zod';
import { BACKGROUND_LIMITS } from '../../sandbox/index.js';
import { defineTool, fail, ok, type ToolContext, type ToolOutcome } from '../define.js';
import type { ProcessInfo, ProcessTable } from './process-table.js';

// The tools that drive a background process started by bash `background: true` (contract §10).
// Each one reaches only the calling session's processes, by the id its bash call returned.

const IdSchema = z.string().min(1).describe('The process id a bash call with background: true returned (proc_1, …).');

function state(p: ProcessInfo): string {
  if (p.running) return 'running';
  const how = p.reason === 'exited' ? 'exited' : p.reason === 'lifetime' ? `stopped at its lifetime limit (${BACKGROUND_LIMITS.lifetimeMs / 60_000} min)` : 'stopped';
  return `${how}, exit code ${p.exitCode ?? 'none'}`;
}

/** The calling session's table and the process, or the failure that says why not. */
function find(ctx: ToolContext, id: string): { table: ProcessTable; p: ProcessInfo } | ToolOutcome {
  const table = ctx.processes;
  if (!table) return fail('no background processes here: they belong to a session');
  const p = table.get(id);
  if (!p) {
    const known = table.list().map((q) => q.id);
    return fail(`no background process ${id} in this session${known.length ? ` (known: ${known.join(', ')})` : ''}`);
  }
  return { table, p };
}

export const processOutputTool = defineTool({
  id: 'process_output',
  description: `Read the new output of a background process since the last read (at most ${BACKGROUND_LIMITS.readChars} characters; call again for more), and whether it still runs.`,
  schema: z.object({ id: IdSchema }),
  kind: 'read',
  effect: 'read', // reads the session's own process
  title: (a) => `output of ${a.id}`,
  approval: async (a) => ({ key: `process_output ${a.id}` }),
  async run(a, ctx) {
    const found = find(ctx, a.id);
    if (!('table' in found)) return found;
    const r = found.table.read(a.id)!;
    const lines = [`[${a.id}: ${state(r.info)}]`];
    if (r.dropped > 0) lines.push(`[${r.dropped} characters of older output were dropped before this read: the buffer holds ${BACKGROUND_LIMITS.bufferChars}]`);
    lines.push(r.text === '' ? '[no new output]' : r.text);
    if (r.more) lines.push('[more output is waiting: call process_output again]');
    return ok(lines.join('\n'));
  },
});

export const processInputTool = defineTool({
  id: 'process_input',
  description: 'Send text to the standard input of a background process (include "\\n" to end a line).',
  schema: z.object({ id: IdSchema, text: z.string().max(64 * 1024) }),
  kind: 'execute',
  effect: 'execute',
  title: (a) => `input to ${a.id}`,
  // The process runs confined as its bash call was approved; input is asked for only where every command is (suggest).
  approval: async (a) => ({
    key: `process_input ${a.id}`,
    judgement: { action: 'allow', risk: 'medium', reason: 'input to a background process of this session, which runs in the sandbox', readOnly: false },
  }),
  async run(a, ctx) {
    const found = find(ctx, a.id);
    if (!('table' in found)) return found;
    if (!found.table.write(a.id, a.text)) return fail(`${a.id} is no longer running (${state(found.p)})`);
    return ok(`sent ${a.text.length} characters to ${a.id}`);
  },
});

export const processKillTool = defineTool({
  id: 'process_kill',
  description: 'Stop a background process and everything it started.',
  schema: z.object({ id: IdSchema }),
  kind: 'execute',
  effect: 'read', // it only ends what this session started: allowed like a read, in every mode
  title: (a) => `stop ${a.id}`,
  approval: async (a) => ({ key: `process_kill ${a.id}` }),
  async run(a, ctx) {
    const found = find(ctx, a.id);
    if (!('table' in found)) return found;
    if (!found.p.running) return ok(`${a.id} had already ended (${state(found.p)})`);
    const p = await found.table.kill(a.id);
    return ok(`${a.id} stopped (${state(p!)})`);
  },
});

export const PROCESS_TOOLS = [processOutputTool, processInputTool, processKillTool];
