import { ModelError, type ModelProvider } from '../providers/provider.js';
import { compactIfNeeded } from './compaction.js';
import { errorText } from './errors.js';
import type { Session, TurnResult } from './session.js';
import { systemPrompt } from './system-prompt.js';
import { offeredTools, runToolCall } from './tool-runner.js';
import { usdOf, type StopReason, type ToolCall, type ToolResult, type Usage } from './types.js';

/**
 * The agent loop: model call → streamed text → tool calls → gate → run → results back to
 * the model, until a reply without tool calls, the step limit, cancellation or an error.
 */
export async function runTurn(session: Session, turnId: string, text: string, signal: AbortSignal): Promise<TurnResult> {
  session.emit({ type: 'turn_start', data: { turnId, text } });
  session.emit({ type: 'message', data: { turnId, message: { role: 'user', text } } });
  let lastText = '';
  let stop: StopReason;
  if (session.deps.mcp) {
    try {
      const { tools, failures } = await session.deps.mcp.tools();
      session.configTools = tools;
      for (const text of failures) session.emit({ type: 'notice', data: { level: 'warning', text } });
    } catch (err) {
      session.emit({ type: 'notice', data: { level: 'warning', text: `MCP servers from config.json are unavailable: ${errorText(err)}` } });
    }
  }
  try {
    stop = await loop(session, turnId, signal, (t) => (lastText = t));
  } catch (err) {
    stop = signal.aborted ? 'cancelled' : 'error';
    if (!signal.aborted) session.emit({ type: 'notice', data: { level: 'error', text: errorText(err) } });
  }
  session.emit({ type: 'turn_end', data: { turnId, stopReason: stop, text: lastText } });
  return { turnId, stopReason: stop, message: { role: 'assistant', text: lastText } };
}

async function loop(session: Session, turnId: string, signal: AbortSignal, setText: (t: string) => void): Promise<StopReason> {
  let model: ModelProvider;
  try {
    model = session.deps.resolver.resolve(session.state.model, session.state.cwd);
  } catch (err) {
    session.emit({ type: 'notice', data: { level: 'error', text: errorText(err) } });
    return 'error';
  }
  for (let step = 0; step < session.deps.maxSteps; step++) {
    const summaryUsage = await compactIfNeeded(session, model, turnId, signal);
    // Billed, but not the prompt size of the conversation that goes on.
    if (summaryUsage) addCost(session, model, summaryUsage, false);
    if (signal.aborted) return 'cancelled';
    const tools = offeredTools(session);
    let text = '';
    const calls: ToolCall[] = [];
    let usage: Usage | undefined;
    try {
      const stream = model.stream({
        system: systemPrompt(session.state.mode, session.state.cwd, tools, session.state.touched),
        messages: session.state.history,
        tools: tools.map((t) => t.spec),
        signal,
        callIndex: session.state.modelCalls,
      });
      for await (const part of stream) {
        if (signal.aborted) break;
        switch (part.type) {
          case 'text':
            text += part.text;
            session.emit({ type: 'message_chunk', data: { turnId, text: part.text } });
            break;
          case 'reasoning':
            session.emit({ type: 'reasoning_chunk', data: { turnId, text: part.text } });
            break;
          case 'tool_call':
            calls.push({ id: part.id, name: part.name, args: part.args });
            break;
          case 'usage':
            usage = part.usage;
            break;
          case 'notice':
            session.emit({ type: 'notice', data: { level: part.level, text: part.text } });
            break;
        }
      }
    } catch (err) {
      recordAssistant(session, turnId, text, []);
      setText(text);
      if (signal.aborted) return 'cancelled';
      const msg = err instanceof ModelError ? err.message : `model call failed: ${errorText(err)}`;
      session.emit({ type: 'notice', data: { level: 'error', text: msg } });
      return 'error';
    }
    if (signal.aborted) {
      recordAssistant(session, turnId, text, []);
      setText(text);
      return 'cancelled';
    }
    setText(text);
    recordAssistant(session, turnId, text, calls);
    if (calls.length > 0) {
      const results: ToolResult[] = [];
      for (const call of calls) results.push(await runToolCall(session, turnId, call, signal));
      session.emit({ type: 'message', data: { turnId, message: { role: 'tool', results } } });
    }
    addCost(session, model, usage);
    if (signal.aborted) return 'cancelled';
    if (calls.length === 0) return 'end_turn';
  }
  session.emit({
    type: 'notice',
    data: { level: 'warning', text: `stopped after ${session.deps.maxSteps} model calls in one turn (step limit)` },
  });
  return 'max_steps';
}

function recordAssistant(session: Session, turnId: string, text: string, calls: ToolCall[]): void {
  if (!text && calls.length === 0) return;
  session.emit({ type: 'message', data: { turnId, message: { role: 'assistant', text, toolCalls: calls } } });
}

/** cost_update once per model call, after that call's tools ran, with the session's running totals. */
function addCost(session: Session, model: ModelProvider, usage: Usage | undefined, tracksPrompt = true): void {
  const u = session.state.usage;
  const add = usage ?? { input: 0, output: 0, cache: 0, reasoning: 0 };
  const next = {
    input: u.input + add.input,
    output: u.output + add.output,
    cache: u.cache + add.cache,
    reasoning: u.reasoning + add.reasoning,
  };
  const totalUsd = session.state.costUsd + usdOf(add, model.pricing);
  session.emit({ type: 'cost_update', data: { ...next, totalUsd, ...(usage && tracksPrompt ? { call: usage } : {}) } });
}
