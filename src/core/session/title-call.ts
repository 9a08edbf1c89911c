import type { ModelProvider } from '../../providers/provider.js';
import { errorText, usdOf, type Usage } from '../../protocol/index.js';
import type { TurnHost } from '../turn-host.js';
import { titleOf } from './title.js';

// The title the session's own model writes at the end of the first turn, replacing the one cut
// from the first request (title.ts). A small side call: a few hundred tokens in, a low output
// limit, billed like any call but no step of the conversation. It runs after the turn has ended,
// so it never holds a turn up, and any failure leaves the first title as it was.

/** Characters of the request and of the reply the title call is shown. */
const PROMPT_CHARS = 2000;
const REPLY_CHARS = 1000;
/** Output tokens the title call may use (room for a reasoning model's short thought). */
const TITLE_OUTPUT_TOKENS = 256;
/** How long a title call may take before it is given up. */
const TITLE_WAIT_MS = 20_000;

/** The title call's instructions; the fake vendor servers of the tests recognise the call by its first words. */
export const TITLE_SYSTEM =
  'You give a coding session a short name for a list of sessions. Answer with the name alone: at most eight words on one line, ' +
  'saying what the person wants done, in the language they wrote in, without quotes or a full stop at the end.';

/** The model's answer as a title: its first non-empty line, quotes and a `Title:` label dropped, shortened like the first one. */
export function titleFromReply(text: string): string | undefined {
  const line = text.split('\n').map((l) => l.trim()).find((l) => l.length > 0);
  if (!line) return undefined;
  const bare = line.replace(/^title:\s*/i, '').replace(/^["'`“”‘’]+|["'`“”‘’.]+$/g, '').trim();
  return bare ? titleOf(bare) : undefined;
}

/**
 * Asks the session's model for a better title and emits it (`session_info`) when it differs from
 * the one the session has. Never throws. `request` is the person's own words (a team command's
 * name and arguments, never its expanded file), `reply` the turn's last text.
 */
export async function improveTitle(host: TurnHost, request: string, reply: string): Promise<void> {
  let model: ModelProvider;
  try {
    model = host.deps.resolver.resolve(host.state.model, host.state.cwd);
    if (model.titles === false) return;
    model.check?.();
  } catch {
    return; // no key, a model gone from the catalog: the first title stays
  }
  const signal = AbortSignal.timeout(TITLE_WAIT_MS);
  const said = request.replace(/<context\b[^>]*>[\s\S]*?<\/context>/g, '').trim() || request; // what the person typed, not an embedded file
  const ask = `The person's request:\n${said.slice(0, PROMPT_CHARS)}` + (reply ? `\n\nThe start of the agent's answer:\n${reply.slice(0, REPLY_CHARS)}` : '');
  let text = '';
  let usage: Usage | undefined;
  try {
    for await (const part of model.stream({
      system: TITLE_SYSTEM,
      messages: [{ role: 'user', text: ask }],
      tools: [],
      signal,
      callIndex: host.state.modelCalls - host.state.modelCallBase,
      reasoning: 'minimal',
      maxOutputTokens: TITLE_OUTPUT_TOKENS,
      purpose: 'title',
    })) {
      if (part.type === 'text') text += part.text;
      else if (part.type === 'usage') usage = part.usage;
      else if (part.type === 'restart') text = '';
    }
  } catch (err) {
    host.deps.logger.debug({ sessionId: host.id, err: errorText(err) }, 'title call failed; the title from the first request stays');
    text = '';
  }
  if (usage) bill(host, model, usage);
  const title = titleFromReply(text);
  if (title && title !== host.state.title) host.emit({ type: 'session_info', data: { title } });
}

/** A side call's cost_update: the running totals grow, the conversation's size and a scripted file's position do not. */
function bill(host: TurnHost, model: ModelProvider, add: Usage): void {
  const u = host.state.usage;
  host.emit({
    type: 'cost_update',
    data: {
      input: u.input + add.input,
      output: u.output + add.output,
      cache: u.cache + add.cache,
      reasoning: u.reasoning + add.reasoning,
      totalUsd: host.state.costUsd + usdOf(add, model.pricing),
      side: true,
      ...(model.contextWindow ? { contextWindow: model.contextWindow } : {}),
    },
  });
}
