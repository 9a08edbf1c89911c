import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import { classifyFailure } from './failures.js';

// A prompt too long for the model, in each provider's own words, is told apart from any other
// rejected request: the loop compacts and tries again only for these.

const ctx = { modelId: 'm', baseURL: 'http://127.0.0.1:1/v1' };
const rejected = (statusCode: number, body: unknown) =>
  new APICallError({ message: 'Bad Request', url: 'http://127.0.0.1:1/v1/x', requestBodyValues: {}, statusCode, responseBody: JSON.stringify(body), isRetryable: false });

describe('context-length refusals', () => {
  it.each([
    ['OpenAI', 400, { error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", code: 'context_length_exceeded' } }],
    ['OpenAI Responses', 400, { error: { message: 'Your input exceeds the context window of this model.', code: 'context_length_exceeded' } }],
    ['Anthropic', 400, { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 215000 tokens > 200000 maximum' } }],
    ['llama.cpp', 400, { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error' } }],
    ['vLLM', 400, { object: 'error', message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens." }],
    ['a gateway', 413, { error: { message: 'Too many tokens in the request' } }],
  ])('%s', (_who, status, body) => {
    expect(classifyFailure(rejected(status, body), ctx)).toMatchObject({ retryable: false, overflow: true });
  });

  it('any other rejected request is not one', () => {
    expect(classifyFailure(rejected(400, { error: { message: 'Invalid value for tools[0].name' } }), ctx).overflow).toBeUndefined();
    expect(classifyFailure(rejected(404, { error: { message: 'model not found' } }), ctx).overflow).toBeUndefined();
  });
});
