import { z } from 'zod';
import { defineTool, fail, type Tool } from './define.js';

// A subagent: the model hands a sub-question (a broad search, a review) to a child loop with its
// own context, and gets back only the child's final answer. The child itself is the core's
// (core/subagent/): this file is the tool as the model sees it, and it asks the context to run it.

const MAX_DESCRIPTION = 120;
const MAX_PROMPT = 32 * 1024;

const Schema = z.object({
  description: z.string().trim().min(1, 'name the task in a few words').max(MAX_DESCRIPTION, `keep the description under ${MAX_DESCRIPTION} characters`).describe('A short name for the task (3-8 words), shown to the person.'),
  prompt: z.string().trim().min(1, 'say what the subagent should do').max(MAX_PROMPT, `keep the prompt under ${MAX_PROMPT} characters`).describe('The whole task for the subagent: it sees nothing of this conversation, so say everything it needs and what to report back.'),
  agent: z.string().trim().min(1).max(64).optional().describe('A named agent definition to run (see the list in this tool\'s description); default: a general read-only researcher.'),
});

export type TaskArgs = z.infer<typeof Schema>;

/** A named agent as the task tool's description lists it. */
export interface AgentSummary {
  name: string;
  description: string;
}

const BASE =
  'Run a subagent: a separate model loop with its own empty context that works on one sub-question and returns only its final answer to you. ' +
  'Use it for broad searches or reviews whose intermediate reading would fill this conversation (find every caller of a function, survey how a module is used, review a diff), ' +
  'not for a single file read or a grep you can do yourself. By default it can only read (read_file, grep, glob, list_dir). ' +
  'Its result is its final message; it cannot ask you questions, so give it the whole task in the prompt. ' +
  'Several task calls in one reply run at the same time.';

function describe(agents: readonly AgentSummary[]): string {
  if (agents.length === 0) return BASE;
  const lines = agents.map((a) => `- ${a.name}: ${a.description}`);
  return `${BASE}\nNamed agents (pass the name as \`agent\`):\n${lines.join('\n')}`;
}

/** The task tool; its description lists the workspace's named agents (`.ferret/agents/*.md`). */
export function taskTool(agents: readonly AgentSummary[] = []): Tool {
  return defineTool({
    id: 'task',
    description: describe(agents),
    schema: Schema,
    kind: 'think',
    delegatesWrites: true,
    // The call itself touches nothing: each of the child's calls is judged (and asked about) on its own.
    effect: 'read',
    approval: async (args) => ({ key: `task:${args.agent ?? 'default'}` }),
    title: (args) => (args.agent ? `${args.agent}: ${args.description}` : `task: ${args.description}`),
    run: async (args, ctx) => {
      if (!ctx.subagent) return fail('subagents are not available here (a subagent cannot start another one)');
      return ctx.subagent({ description: args.description, prompt: args.prompt, ...(args.agent !== undefined ? { agent: args.agent } : {}) });
    },
  });
}

export const defaultTaskTool = taskTool();
