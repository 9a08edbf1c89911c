// What the model is told, per session: the system prompt, built once and reused for every call
// (so provider prompt caches hit), and the context messages that carry what changed since.
// The parts live in prompt/; docs/agent.md "What the model is told" describes the whole.
import { BUILTIN_TOOL_IDS } from '../protocol/index.js';
import { hiddenEditTools } from './edit-tools.js';
import { osLine, gitFacts, today, type EnvFacts } from './prompt/environment.js';
import { InstructionReader, instructionNames } from './prompt/instructions.js';
import { pendingNote } from './prompt/context-notes.js';
import { buildSystemPrompt } from './prompt/system-prompt.js';
import type { TurnHost } from './turn-host.js';

export { agentsDirs } from './prompt/instructions.js';
export { CONTEXT_PREFIX, isContextNote } from './prompt/context-notes.js';

function readerOf(host: TurnHost): InstructionReader {
  return new InstructionReader(host.state.cwd, host.deps.sandbox, instructionNames(host.deps.instructionFiles));
}

/** The environment as the session's first model call finds it. */
async function gatherEnv(host: TurnHost): Promise<EnvFacts> {
  const s = host.state;
  return { os: osLine(), date: today(), workspace: s.cwd, git: await gitFacts(s.cwd, host.deps.env), sandbox: s.sandbox, approval: s.approval };
}

/**
 * The session's system prompt: the same bytes on every call until a person changes the mode or
 * the model. The environment is gathered at the session's first call (in this process) and kept.
 */
export async function systemPromptOf(host: TurnHost): Promise<string> {
  const memo = host.promptMemo;
  const key = `${host.state.mode}\n${host.state.model}`;
  if (memo.text !== undefined && memo.key === key) return memo.text;
  memo.env ??= gatherEnv(host);
  const env = await memo.env;
  const hidden = hiddenEditTools(host.state.model, host.deps.editTools);
  const builtins = host.deps.tools.list().filter((t) => BUILTIN_TOOL_IDS.includes(t.id) && !hidden.has(t.id));
  const instructions = readerOf(host).forSystemPrompt(host.deps.home, env.git?.root);
  const built = buildSystemPrompt({ mode: host.state.mode, model: host.state.model, builtins, env, instructions });
  Object.assign(memo, { key, text: built.text, instructionChars: built.instructionChars });
  return built.text;
}

/**
 * Before a model call: what changed since the system prompt was written (instruction files of
 * folders the tools touched, a new approval preset or sandbox) goes into the history as one
 * context message, logged like any message. Call after systemPromptOf.
 */
export async function addContextNotes(host: TurnHost, turnId: string): Promise<void> {
  const memo = host.promptMemo;
  if (!memo.env) return;
  const env = await memo.env;
  const s = host.state;
  const text = pendingNote({
    history: s.history,
    cwd: s.cwd,
    touched: s.touched,
    approval: s.approval,
    sandbox: s.sandbox,
    stated: { approval: env.approval, sandbox: env.sandbox },
    instructionChars: memo.instructionChars ?? 0,
    reader: readerOf(host),
  });
  if (text !== undefined) host.emit({ type: 'message', data: { turnId, message: { role: 'user', text } } });
}
