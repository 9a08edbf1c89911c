import type { Step } from './fake-server.js';

// OpenAI Responses API SSE events, the subset a text + function-call reply uses.
const ev = (type: string, data: Record<string, unknown>): Step => ({ event: type, data: { type, ...data } });
const resp = { id: 'resp_fake', object: 'response', created_at: 1700000000, model: 'gpt-5', status: 'in_progress', output: [] };

export const created: Step = ev('response.created', { response: resp });
export const messageAdded = (i: number): Step => ev('response.output_item.added', { output_index: i, item: { type: 'message', id: `msg_${i}`, status: 'in_progress', role: 'assistant', content: [] } });
export const textDelta = (i: number, delta: string): Step => ev('response.output_text.delta', { item_id: `msg_${i}`, output_index: i, content_index: 0, delta, logprobs: [] });
export const messageDone = (i: number, text: string): Step => ev('response.output_item.done', { output_index: i, item: { type: 'message', id: `msg_${i}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] } });
export const callAdded = (i: number, callId: string, name: string): Step => ev('response.output_item.added', { output_index: i, item: { type: 'function_call', id: `fc_${i}`, call_id: callId, name, arguments: '', status: 'in_progress' } });
export const callArgs = (i: number, delta: string): Step => ev('response.function_call_arguments.delta', { item_id: `fc_${i}`, output_index: i, delta });
export const callDone = (i: number, callId: string, name: string, args: string): Step => ev('response.output_item.done', { output_index: i, item: { type: 'function_call', id: `fc_${i}`, call_id: callId, name, arguments: args, status: 'completed' } });

export function completed(u: { input: number; cached: number; output: number; reasoning: number }): Step {
  return ev('response.completed', {
    response: { ...resp, status: 'completed', usage: { input_tokens: u.input, input_tokens_details: { cached_tokens: u.cached }, output_tokens: u.output, output_tokens_details: { reasoning_tokens: u.reasoning }, total_tokens: u.input + u.output } },
  });
}

// A reasoning item as a reasoning model streams it with `include: ["reasoning.encrypted_content"]`
// and `store: false`: added (no content yet), its summary text in deltas, done with the encrypted item.
export const reasoningAdded = (i: number, id: string): Step => ev('response.output_item.added', { output_index: i, item: { type: 'reasoning', id, summary: [], encrypted_content: null } });
export const summaryPartAdded = (i: number, id: string, s = 0): Step => ev('response.reasoning_summary_part.added', { item_id: id, output_index: i, summary_index: s, part: { type: 'summary_text', text: '' } });
export const summaryDelta = (i: number, id: string, delta: string, s = 0): Step => ev('response.reasoning_summary_text.delta', { item_id: id, output_index: i, summary_index: s, delta });
export const summaryPartDone = (i: number, id: string, text: string, s = 0): Step => ev('response.reasoning_summary_part.done', { item_id: id, output_index: i, summary_index: s, part: { type: 'summary_text', text } });
export const reasoningDone = (i: number, id: string, summary: string, encrypted: string): Step =>
  ev('response.output_item.done', { output_index: i, item: { type: 'reasoning', id, summary: [{ type: 'summary_text', text: summary }], encrypted_content: encrypted } });

/** The whole reasoning item: added, one summary part streamed in `deltas`, done with `encrypted`. */
export function reasoningItem(i: number, id: string, deltas: string[], encrypted: string): Step[] {
  const text = deltas.join('');
  return [reasoningAdded(i, id), summaryPartAdded(i, id), ...deltas.map((d) => summaryDelta(i, id, d)), summaryPartDone(i, id, text), reasoningDone(i, id, text, encrypted)];
}

/** A whole reply that makes one tool call (`call_1`) with `args`. */
export function oneCallReply(name: string, args: unknown): { steps: Step[] } {
  const a = JSON.stringify(args);
  return { steps: [created, callAdded(0, 'call_1', name), callArgs(0, a), callDone(0, 'call_1', name, a), completed({ input: 10, cached: 0, output: 5, reasoning: 0 })] };
}

/** A whole reply of plain text. */
export function textReply(text: string): { steps: Step[] } {
  return { steps: [created, messageAdded(0), textDelta(0, text), messageDone(0, text), completed({ input: 10, cached: 0, output: 1, reasoning: 0 })] };
}
