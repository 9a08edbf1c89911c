// What a subagent is given: its tools, its model, its budgets and its system prompt. Pure
// choices over the parent and the agent definition; run-subagent.ts runs the child with them.
import type { ModelProvider, ModelRequest } from '../../providers/provider.js';
import type { ModelResolver } from '../../providers/resolve.js';
import type { ToolRegistry } from '../../tools/registry.js';
import { renderEnvironment, type EnvFacts } from '../prompt/environment.js';
import type { AgentDefinition } from './agents.js';

/** The bounds every subagent runs within (an agent file may ask for less, or more up to the caps). */
export const SUBAGENT_LIMITS = {
  /** Model calls a child makes by default, and at most. */
  steps: 25,
  maxSteps: 100,
  /** Seconds a child runs by default, and at most. */
  seconds: 600,
  maxSeconds: 3600,
  /** Children of one session running at once; more wait for a place. */
  concurrent: 3,
} as const;

/** What a child reads with when its agent names no tools. */
export const DEFAULT_CHILD_TOOLS = ['read_file', 'grep', 'glob', 'list_dir'] as const;

/** Never offered to a child: it cannot start its own children, keep the session's plan, or drive the editor. */
const NEVER = new Set(['task', 'update_plan', 'open_file']);

/** The child's tools, picked from the parent's (so --allowed-tools and MCP tools apply as they do there). */
export function childTools(parent: ToolRegistry, agent: AgentDefinition | undefined): ToolRegistry {
  const wanted = new Set((agent?.tools ?? DEFAULT_CHILD_TOOLS).map((t) => t.toLowerCase()));
  return parent.only((t) => wanted.has(t.id.toLowerCase()) && !NEVER.has(t.id));
}

export function childBudget(agent: AgentDefinition | undefined, parentMaxSteps: number): { steps: number; ms: number } {
  const steps = Math.min(agent?.maxSteps ?? SUBAGENT_LIMITS.steps, SUBAGENT_LIMITS.maxSteps, parentMaxSteps);
  const seconds = Math.min(agent?.timeoutSeconds ?? SUBAGENT_LIMITS.seconds, SUBAGENT_LIMITS.maxSeconds);
  return { steps: Math.max(1, Math.floor(steps)), ms: Math.round(seconds * 1000) };
}

const INTRO = `You are a subagent of ferret, a coding agent. The main agent handed you one task; you have your own context and see nothing of its conversation.
Work on the task with the tools you are offered, then stop calling tools and write your final message: the main agent reads only that message, in place of all your work. Make it complete and short: the findings with file paths and line numbers, or what you changed, and anything you could not settle.
You cannot ask anyone a question. Calls that change files or run commands are judged by the same approval rules as the main agent's; a denied call means no.`;

export function childSystemPrompt(agent: AgentDefinition | undefined, env: EnvFacts | undefined): string {
  const parts = [INTRO];
  if (agent?.prompt) parts.push(`# Your role: ${agent.name}\n${agent.prompt}`);
  if (env) parts.push(renderEnvironment(env));
  return parts.join('\n\n');
}

/** A resolver whose providers mark each request as this subagent's (a scripted file answers it from its own list). */
export function taggedResolver(inner: ModelResolver, subagent: NonNullable<ModelRequest['subagent']>): ModelResolver {
  return {
    resolve(id, cwd) {
      const p = inner.resolve(id, cwd);
      const tagged = Object.create(p) as ModelProvider;
      tagged.stream = (req) => p.stream({ ...req, subagent });
      return tagged;
    },
  };
}
