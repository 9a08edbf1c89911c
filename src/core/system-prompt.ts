import { dirname, join, relative, sep } from 'node:path';
import { isInside, type AgentMode } from '../protocol/index.js';
import { inStateBlock, readFileHeadSync, realPathOf, type HostFacts } from '../sandbox/index.js';
import type { OfferedTool } from './turn-host.js';

const BASE: Record<AgentMode, string> = {
  code:
    "You are ferret, a coding agent working in the user's workspace. Use the tools to read, change and " +
    'run code. Make the smallest change that does the job, run the tests when there are any, and say ' +
    'briefly what you did.',
  plan:
    'You are ferret in plan mode. Read the code and propose a plan; you cannot change files or run ' +
    'commands. End with a numbered plan the user can approve.',
};

const MAX_AGENTS_BYTES = 32_000;

/** Folders from the workspace root down to each touched file's folder, root first, each once. */
export function agentsDirs(cwd: string, touched: Iterable<string>): string[] {
  const dirs = [cwd];
  for (const file of touched) {
    const rel = relative(cwd, dirname(file));
    if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) continue;
    let cur = cwd;
    for (const part of rel.split(sep)) {
      cur = join(cur, part);
      if (!dirs.includes(cur)) dirs.push(cur);
    }
  }
  return dirs;
}

/** Bytes read of each AGENTS.md: enough for MAX_AGENTS_BYTES characters of any UTF-8. */
const READ_AGENTS_BYTES = 4 * MAX_AGENTS_BYTES;

// Read per model call: a missing file costs no thrown error, a FIFO never blocks, and a link is
// followed only to a file in the workspace outside ferret's state: the workspace is the model's
// to write, and `ln -s ~/.chimera/ferret/config.json AGENTS.md` must not put the API keys (or
// /etc/shadow) in the prompt.
function readAgents(allowed: (real: string) => boolean, dir: string): string | undefined {
  return readFileHeadSync(join(dir, 'AGENTS.md'), READ_AGENTS_BYTES, allowed)?.slice(0, MAX_AGENTS_BYTES);
}

/**
 * The system prompt of a model call: the agent's own text, the workspace, and AGENTS.md from
 * the workspace root and from every folder on the way to a file the agent has touched (as Codex
 * does), nearer files last so their instructions win.
 */
export function systemPrompt(mode: AgentMode, cwd: string, tools: OfferedTool[], touched: Iterable<string>, sandbox: HostFacts): string {
  const parts = [BASE[mode], `Workspace: ${cwd}`, `Tools: ${tools.map((t) => t.tool.id).join(', ')}`];
  const ws = realPathOf(cwd); // the descriptor's path is a real one
  const facts = sandbox.workspace(ws);
  const allowed = (real: string) => isInside(ws, real) && inStateBlock(facts, real) === undefined;
  for (const dir of agentsDirs(cwd, touched)) {
    const text = readAgents(allowed, dir);
    if (text !== undefined) parts.push(`Instructions from ${relative(cwd, join(dir, 'AGENTS.md'))}:\n${text}`);
  }
  return parts.join('\n\n');
}
