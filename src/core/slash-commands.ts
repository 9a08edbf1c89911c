import { AGENT_MODES, APPROVAL_PRESETS, SLASH_COMMANDS, AgentModeSchema, ApprovalPresetSchema, REASONING_EFFORTS, ReasoningEffortSchema, errorText, isFerretError, usdOf, ZERO_USAGE, type ErrorCode, type Pricing, type Usage } from '../protocol/index.js';
import { compactIfNeeded } from './compaction/compact.js';
import type { TurnHost } from './turn-host.js';
import { redo, rewind, type RewindAnswer } from './checkpoints/rewind-command.js';

/** What a command did: its answer to show, or a prompt that the loop then runs as the user's message. */
export type CommandOutcome =
  | { kind: 'answer'; text: string; error?: { message: string; code?: ErrorCode } }
  | { kind: 'prompt'; text: string };

const INIT_PROMPT =
  'Write an AGENTS.md at the root of this workspace for the coding agents that will work here. ' +
  'Read the repository first (README, build files, the source layout, the tests). Then describe, briefly and ' +
  'concretely: what the project is, how to build it, how to run the tests, the layout of the source, the ' +
  'conventions the code follows, and anything an agent must not do. If an AGENTS.md exists, improve it instead ' +
  'of replacing what is still true.';

/**
 * The slash commands, as core commands: every client (ACP v1's `/` menu, the ferret dialect,
 * HTTP) sends them as a message's text, and sees their answer as the turn's text.
 */
export async function runSlashCommand(host: TurnHost, name: string, arg: string, turnId: string, signal: AbortSignal): Promise<CommandOutcome> {
  switch (name) {
    case 'status':
      return answer(status(host));
    case 'init':
      return { kind: 'prompt', text: arg ? `${INIT_PROMPT}\n\nAlso: ${arg}` : INIT_PROMPT };
    case 'compact':
      return compact(host, turnId, signal);
    case 'approval':
      return setting(host, 'approval', arg, APPROVAL_PRESETS, host.state.approval, () => host.setApproval(ApprovalPresetSchema.parse(arg)));
    case 'mode':
      return setting(host, 'mode', arg, AGENT_MODES, host.state.mode, () => host.setMode(AgentModeSchema.parse(arg)));
    case 'reasoning': {
      const out = setting(host, 'reasoning', arg, REASONING_EFFORTS, host.state.reasoning, () => host.setReasoning(ReasoningEffortSchema.parse(arg)));
      return out.kind === 'answer' && !out.error ? answer(out.text + reasoningCaveat(host)) : out;
    }
    case 'model': {
      if (!arg) {
        const others = host.deps.catalog.models().map((m) => m.id).filter((m) => m !== host.state.model);
        const listed = [`- ${host.state.model} (current)`, ...others.map((m) => `- ${m}`)].join('\n');
        const hint = others.length ? '' : '\n(no other model: set a provider key or add providers to config.json, see docs/providers.md)';
        return answer(`Models you can pick now:\n${listed}${hint}`);
      }
      return attempt(() => host.setModel(arg), `model: ${arg}`);
    }
    case 'undo':
    case 'rewind':
      return rewound(await rewind(host, name, arg));
    case 'redo':
      return rewound(await redo(host, arg));
    default:
      return unknownCommand(name);
  }
}

/** A `/word` that is neither ours nor a team command: said here, never sent to the model (no billed turn). */
export function unknownCommand(name: string): CommandOutcome {
  const ours = SLASH_COMMANDS.map((c) => `/${c.name}`).join(', ');
  return answer(`Unknown command /${name}. Commands: ${ours}, and the team's own from .ferret/commands. Nothing was sent to the model.`);
}

/** A refusal is the turn's error (HTTP and ACP clients see it fail), with the sentence that says why. */
function rewound(r: RewindAnswer): CommandOutcome {
  return r.refused ? answer(r.text, { message: r.text, code: 'invalid_params' }) : answer(r.text);
}

function answer(text: string, error?: { message: string; code?: ErrorCode }): CommandOutcome {
  return { kind: 'answer', text, ...(error ? { error } : {}) };
}

function attempt(run: () => unknown, done: string): CommandOutcome {
  try {
    run();
    return answer(done);
  } catch (err) {
    return answer(errorText(err), { message: errorText(err), ...(isFerretError(err) ? { code: err.code } : {}) });
  }
}

function setting(host: TurnHost, what: string, arg: string, choices: readonly string[], current: string, set: () => unknown): CommandOutcome {
  if (!arg) return answer(`${what}: ${current} (one of ${choices.join(', ')})`);
  if (!choices.includes(arg)) {
    const message = `/${what}: "${arg}" is not one of ${choices.join(', ')}`;
    return answer(message, { message, code: 'invalid_params' });
  }
  return attempt(set, `${what}: ${arg}`);
}

/** Said beside the level when the session's model would not be sent it. */
function reasoningCaveat(host: TurnHost): string {
  try {
    const model = host.deps.resolver.resolve(host.state.model, host.state.cwd);
    return model.takesReasoning === false ? `\n(${model.id} takes no reasoning effort: the level is kept for models that do)` : '';
  } catch {
    return '';
  }
}

function status(host: TurnHost): string {
  const s = host.state;
  const u = s.usage;
  return [
    `model: ${s.model}`,
    `mode: ${s.mode} · approval: ${s.approval} · sandbox: ${s.sandbox} · reasoning: ${s.reasoning}`,
    `context: ${s.lastCallTokens} tokens in the last call`,
    `cost: $${s.costUsd.toFixed(4)} (tokens: ${u.input} input, ${u.output} output, ${u.cache} cached, ${u.reasoning} reasoning) · turns: ${s.turns}`,
    `workspace: ${s.cwd}`,
    ...processLines(host),
  ].join('\n');
}

/** The session's background processes that still run, one a line (none: nothing is said). */
function processLines(host: TurnHost): string[] {
  const running = host.processes?.list().filter((p) => p.running) ?? [];
  if (running.length === 0) return [];
  const now = Date.now();
  return [
    `background processes: ${running.length}`,
    ...running.map((p) => `  ${p.id} (${Math.round((now - p.startedAt) / 1000)} s): ${p.command.split('\n')[0]!.slice(0, 100)}`),
  ];
}

async function compact(host: TurnHost, turnId: string, signal: AbortSignal): Promise<CommandOutcome> {
  let model;
  try {
    model = host.deps.resolver.resolve(host.state.model, host.state.cwd);
    model.check?.();
  } catch (err) {
    return answer(errorText(err), { message: errorText(err), ...(isFerretError(err) ? { code: err.code } : {}) });
  }
  const before = host.state.history.length;
  const bill = (u: Usage | undefined) => host.emit({ type: 'cost_update', data: costAfter(host, u ?? ZERO_USAGE, model.pricing) });
  const { called } = await compactIfNeeded(host, model, turnId, signal, { reason: 'command', bill });
  if (!called) return answer('Nothing to compact yet.');
  const after = host.state.history.length;
  return answer(after < before || before === 0 ? `Compacted ${before} messages into a summary.` : 'The conversation could not be compacted; see the notice.');
}

function costAfter(host: TurnHost, add: Usage, pricing: Pricing | undefined) {
  const u = host.state.usage;
  const total = { input: u.input + add.input, output: u.output + add.output, cache: u.cache + add.cache, reasoning: u.reasoning + add.reasoning };
  return { ...total, totalUsd: host.state.costUsd + usdOf(add, pricing) };
}
