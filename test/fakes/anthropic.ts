import type { Step } from './fake-server.js';

// Anthropic Messages SSE events exactly as api.anthropic.com sends them.
const ev = (event: string, data: Record<string, unknown>): Step => ({ event, data: { type: event, ...data } });

export function messageStart(u: { input: number; cacheRead?: number; cacheWrite?: number }): Step {
  return ev('message_start', {
    message: {
      id: 'msg_fake', type: 'message', role: 'assistant', model: 'claude-fake', content: [],
      stop_reason: null, stop_sequence: null,
      usage: { input_tokens: u.input, cache_creation_input_tokens: u.cacheWrite ?? 0, cache_read_input_tokens: u.cacheRead ?? 0, output_tokens: 1 },
    },
  });
}

export const textStart = (index: number): Step => ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
export const textDelta = (index: number, text: string): Step => ev('content_block_delta', { index, delta: { type: 'text_delta', text } });
export const thinkingStart = (index: number): Step => ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '' } });
export const thinkingDelta = (index: number, thinking: string): Step => ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } });
/** The signature that closes a thinking block (the API checks it when the block is sent back). */
export const signatureDelta = (index: number, signature: string): Step => ev('content_block_delta', { index, delta: { type: 'signature_delta', signature } });
export const redactedThinking = (index: number, data: string): Step => ev('content_block_start', { index, content_block: { type: 'redacted_thinking', data } });
export const blockStop = (index: number): Step => ev('content_block_stop', { index });

export function toolStart(index: number, id: string, name: string): Step {
  return ev('content_block_start', { index, content_block: { type: 'tool_use', id, name, input: {} } });
}

export const toolArgs = (index: number, partial: string): Step => ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } });

export function messageDelta(stop: 'end_turn' | 'tool_use' | 'max_tokens', output: number): Step {
  return ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: output } });
}

export const messageStop: Step = ev('message_stop', {});
/** A failure after the stream started (Anthropic's docs: an overloaded_error here is what a 529 is before it). */
export const errorEvent = (type: string, message: string): Step => ev('error', { error: { type, message } });
export const ping: Step = ev('ping', {});
