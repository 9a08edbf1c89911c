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
