import { ContextOverflowError, ModelError, type ModelProvider, type FinishReason } from '../providers/provider.js';
import { tokensOf } from './compaction/estimate.js';
import { endOfReply } from './reply-end.js';
import { compactIfNeeded } from './compaction/compact.js';
import { commandWord, errorText, isFerretError, parseSlashCommand, usdOf, ZERO_USAGE, type ErrorCode, type Image, type ReasoningPart, type StopReason, type ToolCall, type ToolResult, type TurnResult, type Usage } from '../protocol/index.js';
import { runSlashCommand, unknownCommand } from './slash-commands.js';
import { afterTurn, prepareCheckpoints } from './checkpoints/turn-checkpoints.js';
import { addContextNotes, systemPromptOf } from './system-prompt.js';
import { expandCommand } from './commands/team-commands.js';
import { teamCommandOfTurn } from './commands/turn-command.js';
import { mentionsText } from './loop/mentions.js';
import { titleOf } from './session/title.js';
import { improveTitle } from './session/title-call.js';
import { runCalls } from './loop/run-calls.js';
import { offeredTools } from './tool-runner.js';
import type { Mention } from './api.js';
import type { TurnHost } from './turn-host.js';

export interface TurnStart {
  turnId: string;
  text: string;
  /** The client that started the turn. */
  origin: string | undefined;
  signal: AbortSignal;
  /** @-mentioned files, read into the user's message (turn/mentions.ts). */
  mentions?: readonly Mention[] | undefined;
  /** Images the person attached, checked (protocol/images.ts): kept once, in the user's message. */
  images?: readonly Image[] | undefined;
}

/** How the loop ended, and for `error` the sentence that says why. */
export interface LoopEnd {
  stop: StopReason;
  error?: string;
  errorCode?: ErrorCode;
}

/** A failure as the turn reports it: its sentence, and its code when it has one. */
function failed(err: unknown, prefix = ''): LoopEnd {
  const code = err instanceof ModelError ? err.code : isFerretError(err) ? err.code : undefined;
  return { stop: 'error', error: prefix + errorText(err), ...(code ? { errorCode: code } : {}) };
}

/**
 * The agent loop: model call → streamed text → tool calls → gate → run → results back to
 * the model, until a reply without tool calls, the step limit, cancellation or an error.
 */
export async function runTurn(session: TurnHost, t: TurnStart): Promise<TurnResult> {
  const { turnId, text, origin, signal } = t;
  const untitled = session.state.title === undefined;
  const began = { at: performance.now(), usage: { ...session.state.usage }, usd: session.state.costUsd };
  session.emit({ type: 'turn_start', data: { turnId, text, ...(origin !== undefined ? { origin } : {}) } });
  // The first request names the session: every client's list shows it from now on.
  if (untitled && session.state.title !== undefined) session.emit({ type: 'session_info', data: { title: titleOf(text) } });
  let lastText = '';
  let end: LoopEnd;
  try {
    await session.ready?.(); // a session loaded from its snapshot reads its history in the background
    await session.deps.loadTools?.(); // the first turn of a process loads the built-in tools (warm-up may have)
    const command = parseSlashCommand(text);
    // A team's own command (a Markdown file) becomes the user's message, arguments filled in.
    const team = teamCommandOfTurn(session, command ? undefined : text);
    const prompt = team ? expandCommand(team.command, team.args) : text;
    // A slash-like first request names the session only when it is a team command (what was typed).
    if (team && untitled && session.state.title === undefined) session.emit({ type: 'session_info', data: { title: titleOf(text) } });
    const stray = command || team ? undefined : commandWord(text);
    const outcome = command
      ? await runSlashCommand(session, command.name, command.arg, turnId, signal)
      : stray
        ? unknownCommand(stray)
        : { kind: 'prompt' as const, text: prompt };
    if (outcome.kind === 'answer') {
      // A command's answer is the turn's text; it never joins the conversation the model sees.
      session.emit({ type: 'message_chunk', data: { turnId, text: outcome.text } });
      lastText = outcome.text;
      end = outcome.error ? { stop: 'error', error: outcome.error.message, ...(outcome.error.code ? { errorCode: outcome.error.code } : {}) } : { stop: 'end_turn' };
    } else {
      const withMentions = t.mentions?.length ? outcome.text + (await mentionsText(session, t.mentions, origin)) : outcome.text;
      const images = t.images?.length ? { images: [...t.images] } : {};
      session.emit({ type: 'message', data: { turnId, message: { role: 'user', text: withMentions, ...images } } });
      prepareCheckpoints(session);
      await session.loadConfigTools();
      end = await runLoop(session, t, (s) => (lastText = s));
    }
  } catch (err) {
    end = signal.aborted ? { stop: 'cancelled' } : failed(err);
  }
  await afterTurn(session, turnId); // the turn's files as it leaves them: what /undo checks for changes made since
  if (end.error !== undefined) session.emit({ type: 'notice', data: { level: 'error', text: end.error } });
  const why = { ...(end.error !== undefined ? { error: end.error } : {}), ...(end.errorCode ? { errorCode: end.errorCode } : {}) };
  session.emit({ type: 'turn_end', data: { turnId, stopReason: end.stop, text: lastText, ...why, ...summaryOf(session, began) } });
  // The first request named the session; now its model may name it better. After turn_end and not
  // awaited: the turn never waits for it, and its failure is only a debug line.
  if (untitled && session.state.title !== undefined && end.stop === 'end_turn') void improveTitle(session, text, lastText);
  return { turnId, stopReason: end.stop, message: { role: 'assistant', text: lastText }, ...why };
}

/** What a bot wants at a turn's end: its duration, the tokens and USD its model calls used. */
function summaryOf(session: TurnHost, began: { at: number; usage: Usage; usd: number }): { durationMs: number; usage: Usage; costUsd: number; totalUsd: number } {
  const now = session.state.usage;
  const usage = { input: now.input - began.usage.input, output: now.output - began.usage.output, cache: now.cache - began.usage.cache, reasoning: now.reasoning - began.usage.reasoning };
  const costUsd = Math.max(0, session.state.costUsd - began.usd);
  return { durationMs: Math.round(performance.now() - began.at), usage, costUsd: Math.round(costUsd * 1e8) / 1e8, totalUsd: session.state.costUsd };
}

/**
 * The model ↔ tools loop of one turn, after its user message is in the history. A subagent
 * (core/subagent/) runs the same loop over its own host.
 */
export async function runLoop(session: TurnHost, t: Pick<TurnStart, 'turnId' | 'origin' | 'signal'>, setText: (t: string) => void): Promise<LoopEnd> {
  const { turnId, origin, signal } = t;
  let model: ModelProvider;
  try {
    model = session.deps.resolver.resolve(session.state.model, session.state.cwd);
    model.check?.();
  } catch (err) {
    return failed(err);
  }
  await model.prepare?.(signal); // e.g. a local server's real context window, before compaction judges by it
  let overflowAt = -2; // the step whose call the provider refused as too long (retried once, compacted)
  for (let step = 0; step < session.deps.maxSteps; step++) {
    const system = await systemPromptOf(session); // built once per session: the same bytes every call
    const tools = offeredTools(session);
    const fixed = tokensOf(system) + tokensOf(JSON.stringify(tools.map((x) => x.spec)));
    // A summary call is billed, but is not the prompt size of the conversation that goes on.
    const bill = (u: Usage | undefined) => addCost(session, model, u ?? ZERO_USAGE, false);
    await compactIfNeeded(session, model, turnId, signal, { reason: 'threshold', fixedTokens: fixed, bill });
    if (signal.aborted) return { stop: 'cancelled' };
    await addContextNotes(session, turnId); // what changed since reaches the model as a message
    let text = '';
    const calls: ToolCall[] = [];
    const reasoning: ReasoningPart[] = [];
    let usage: Usage | undefined;
    let finish: FinishReason = 'stop';
    try {
      const stream = model.stream({
        system,
        messages: session.state.history,
        tools: tools.map((t) => t.spec),
        signal,
        callIndex: session.state.modelCalls - session.state.modelCallBase,
        reasoning: session.state.reasoning,
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
          case 'reasoning_part':
            reasoning.push(part.part);
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
          case 'finish':
            finish = part.reason;
            break;
          case 'restart':
            text = ''; // a retried reply that differs: the provider streams it again in full
            break;
        }
      }
    } catch (err) {
      if (err instanceof ContextOverflowError && !text && overflowAt !== step - 1 && !signal.aborted) {
        // Refused as too long before a word: compact (old output cleared, older steps summarised) and call again once.
        addCost(session, model, usage);
        overflowAt = step;
        const compacted = await compactIfNeeded(session, model, turnId, signal, { reason: 'overflow', fixedTokens: fixed, bill });
        if (signal.aborted) return { stop: 'cancelled' };
        if (compacted.freed) continue;
        return failed(err);
      }
      recordAssistant(session, turnId, text, [], reasoning);
      setText(text);
      addCost(session, model, usage); // the call was made: it counts (and a replayable model moves on)
      if (signal.aborted) return { stop: 'cancelled' };
      return err instanceof ModelError ? failed(err) : failed(err, 'model call failed: ');
    }
    if (signal.aborted) {
      recordAssistant(session, turnId, text, [], reasoning);
      setText(text);
      addCost(session, model, usage);
      return { stop: 'cancelled' };
    }
    setText(text);
    const cut = endOfReply(finish, calls.length);
    // A refused or cut reply's complete tool calls are not run: the model did not finish deciding.
    recordAssistant(session, turnId, text, cut ? [] : calls, reasoning);
    if (cut) {
      addCost(session, model, usage);
      session.emit({ type: 'notice', data: { level: 'warning', text: cut.notice } });
      return { stop: cut.stop };
    }
    if (calls.length > 0) {
      const results: ToolResult[] = await runCalls(session, { turnId, signal, files: session.filesFor(origin) }, calls);
      session.emit({ type: 'message', data: { turnId, message: { role: 'tool', results } } });
    }
    addCost(session, model, usage);
    if (signal.aborted) return { stop: 'cancelled' };
    if (calls.length === 0) return { stop: 'end_turn' };
  }
  session.emit({
    type: 'notice',
    data: { level: 'warning', text: `stopped after ${session.deps.maxSteps} model calls in one turn (step limit)` },
  });
  return { stop: 'max_steps' };
}

function recordAssistant(session: TurnHost, turnId: string, text: string, calls: ToolCall[], reasoning: ReasoningPart[]): void {
  if (!text && calls.length === 0) return;
  const thought = reasoning.length > 0 ? { reasoning } : {}; // kept so the next call hands it back (providers/reasoning.ts)
  session.emit({ type: 'message', data: { turnId, message: { role: 'assistant', text, toolCalls: calls, ...thought } } });
}

/**
 * cost_update exactly once per model call (after that call's tools ran, or when it failed), with
 * the session's running totals: the fold counts model calls by it.
 */
function addCost(session: TurnHost, model: ModelProvider, usage: Usage | undefined, tracksPrompt = true): void {
  const u = session.state.usage;
  const add = usage ?? { input: 0, output: 0, cache: 0, reasoning: 0 };
  const next = {
    input: u.input + add.input,
    output: u.output + add.output,
    cache: u.cache + add.cache,
    reasoning: u.reasoning + add.reasoning,
  };
  const totalUsd = session.state.costUsd + usdOf(add, model.pricing);
  session.emit({
    type: 'cost_update',
    data: { ...next, totalUsd, ...(usage && tracksPrompt ? { call: usage } : {}), ...(model.contextWindow ? { contextWindow: model.contextWindow } : {}) },
  });
}
