import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentMode } from './types.js';
import type { OfferedTool } from './tool-runner.js';

const BASE: Record<AgentMode, string> = {
  code:
    'You are ferret, a coding agent working in the user\'s workspace. Use the tools to read, change and ' +
    'run code. Make the smallest change that does the job, run the tests when there are any, and say ' +
    'briefly what you did.',
  plan:
    'You are ferret in plan mode. Read the code and propose a plan; do not change files or run ' +
    'commands that change anything. End with a numbered plan the user can approve.',
};

/** The system prompt of a turn: the agent's own text, the workspace, and AGENTS.md when present. */
export function systemPrompt(mode: AgentMode, cwd: string, tools: OfferedTool[]): string {
  const parts = [BASE[mode], `Workspace: ${cwd}`, `Tools: ${tools.map((t) => t.tool.id).join(', ')}`];
  const agents = join(cwd, 'AGENTS.md');
  if (existsSync(agents)) {
    try {
      parts.push(`Instructions from AGENTS.md:\n${readFileSync(agents, 'utf8').slice(0, 32_000)}`);
    } catch {
      /* unreadable AGENTS.md is not worth failing a turn */
    }
  }
  return parts.join('\n\n');
}
