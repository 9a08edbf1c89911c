import type { Step } from './fake-server.js';

// Chat-completions SSE chunks exactly as api.openai.com (and vLLM, llama.cpp, Ollama) send them.
const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1700000000, model: 'fake-model' };

export function chatDelta(delta: Record<string, unknown>, finish: string | null = null): Step {
  return { data: { ...base, choices: [{ index: 0, delta, finish_reason: finish }] } };
}

export const chatText = (text: string): Step => chatDelta({ content: text });
export const chatReasoning = (text: string): Step => chatDelta({ reasoning_content: text });

/** The first delta of a tool call carries id and name; later ones only argument fragments. */
export function chatToolStart(index: number, id: string, name: string, args = ''): Step {
  return chatDelta({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: args } }] });
}

export function chatToolArgs(index: number, fragment: string): Step {
  return chatDelta({ tool_calls: [{ index, function: { arguments: fragment } }] });
}

export const chatFinish = (reason: 'stop' | 'tool_calls' | 'length' | 'content_filter'): Step => chatDelta({}, reason);

/** The usage chunk of `stream_options.include_usage`: empty choices, then `[DONE]`. */
export function chatUsage(u: { prompt: number; completion: number; cached?: number; reasoning?: number }): Step {
  return {
    data: {
      ...base,
      choices: [],
      usage: {
        prompt_tokens: u.prompt,
        completion_tokens: u.completion,
        total_tokens: u.prompt + u.completion,
        prompt_tokens_details: { cached_tokens: u.cached ?? 0 },
        completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
      },
    },
  };
}

export const chatDone: Step = { data: '[DONE]' };
