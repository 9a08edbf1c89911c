// Runs one `task` call: a child loop with its own context on the task's prompt, within a step and
// a time budget, at most a few at once per session. Its final text is the call's result; the
// parent's Stop reaches it through the call's signal.
import { errorText, type FileAccess } from '../../protocol/index.js';
import { fail, ok, type SubagentRequest, type ToolOutcome } from '../../tools/define.js';
import { runLoop, type LoopEnd } from '../turn.js';
import type { TurnHost } from '../turn-host.js';
import type { AgentDefinition } from './agents.js';
import { ChildHost } from './child-host.js';
import { childBudget, childSystemPrompt, childTools, SUBAGENT_LIMITS, taggedResolver } from './child-setup.js';
import { Places } from './places.js';

export interface SubagentRun extends SubagentRequest {
  parentCallId: string;
  turnId: string;
  signal: AbortSignal;
  files: FileAccess;
}

/** Each session's places for running children. */
const places = new WeakMap<TurnHost, Places>();

export async function runSubagent(parent: TurnHost, run: SubagentRun, agents: readonly AgentDefinition[]): Promise<ToolOutcome> {
  const agent = run.agent === undefined ? undefined : agents.find((a) => a.name.toLowerCase() === run.agent!.toLowerCase());
  if (run.agent !== undefined && !agent) {
    const known = agents.map((a) => a.name).join(', ');
    return fail(`no agent named "${run.agent}"; ${known ? `known agents: ${known}` : 'this workspace defines none (.ferret/agents/*.md)'}`);
  }
  let slots = places.get(parent);
  if (!slots) places.set(parent, (slots = new Places(SUBAGENT_LIMITS.concurrent)));
  const release = await slots.take(run.signal);
  if (!release) return { status: 'failed', output: 'cancelled before the subagent started' };
  try {
    return await runChild(parent, run, agent);
  } finally {
    release();
  }
}

async function runChild(parent: TurnHost, run: SubagentRun, agent: AgentDefinition | undefined): Promise<ToolOutcome> {
  const label = agent ? `task ${agent.name} (${run.description})` : `task (${run.description})`;
  const model = pickModel(parent, agent, label);
  const budget = childBudget(agent, parent.deps.maxSteps);
  const env = parent.promptMemo.env ? await parent.promptMemo.env.catch(() => undefined) : undefined;
  const tools = childTools(parent.tools(), agent);
  const deps = {
    ...parent.deps,
    maxSteps: budget.steps,
    resolver: taggedResolver(parent.deps.resolver, { description: run.description, ...(agent ? { agent: agent.name } : {}) }),
  };
  const child = new ChildHost({ parent, parentCallId: run.parentCallId, model, tools, deps, systemPrompt: childSystemPrompt(agent, env), files: run.files, label });
  const timer = AbortSignal.timeout(budget.ms);
  const signal = AbortSignal.any([run.signal, timer]);
  child.emit({ type: 'turn_start', data: { turnId: run.turnId, text: run.prompt } });
  child.emit({ type: 'message', data: { turnId: run.turnId, message: { role: 'user', text: run.prompt } } });
  let text = '';
  let end: LoopEnd;
  try {
    end = await runLoop(child, { turnId: run.turnId, origin: undefined, signal }, (t) => (text = t));
  } catch (err) {
    end = signal.aborted ? { stop: 'cancelled' } : { stop: 'error', error: errorText(err) };
  }
  child.emit({ type: 'turn_end', data: { turnId: run.turnId, stopReason: end.stop, text } });
  return outcome(end, text, budget, run.signal.aborted, timer.aborted);
}

/** The agent's model when this server can run it; else the parent's, said in a notice. */
function pickModel(parent: TurnHost, agent: AgentDefinition | undefined, label: string): string {
  const wanted = agent?.model;
  if (wanted === undefined || wanted === parent.state.model) return parent.state.model;
  try {
    const p = parent.deps.resolver.resolve(wanted, parent.state.cwd);
    p.check?.();
    return wanted;
  } catch (err) {
    parent.emit({ type: 'notice', data: { level: 'warning', text: `${label}: model ${wanted} is not available here (${errorText(err)}); it runs on ${parent.state.model}` } });
    return parent.state.model;
  }
}

function outcome(end: LoopEnd, text: string, budget: { steps: number; ms: number }, stopped: boolean, timedOut: boolean): ToolOutcome {
  const said = text.trim();
  const partial = said ? `\n\nWhat it had said so far:\n${said}` : '';
  switch (end.stop) {
    case 'end_turn':
      return ok(said || '(the subagent finished without a final message)');
    case 'max_steps':
      return ok(`${said}\n\n[the subagent stopped at its budget of ${budget.steps} model calls; its answer may be incomplete]`.trim());
    case 'max_tokens':
    case 'refusal':
      return ok(`${said}\n\n[the subagent's last reply ended early (${end.stop})]`.trim());
    case 'cancelled':
      if (timedOut && !stopped) return fail(`the subagent ran out of its time budget (${+(budget.ms / 1000).toFixed(1)} s)${partial}`);
      return { status: 'failed', output: `the subagent was stopped${partial}` };
    case 'error':
      return fail(`the subagent failed: ${end.error ?? 'unknown error'}${partial}`);
  }
}
