// How providers say a prompt does not fit: OpenAI's `context_length_exceeded`, vLLM's "maximum
// context length", Anthropic's "prompt is too long", llama.cpp's "exceeds the available context
// size", Gemini's "input token count exceeds"; a 413 "too many tokens" from gateways.
const OVERFLOW = /context_length_exceeded|maximum context length|context length (?:of|is)|prompt is too long|exceeds? the (?:available )?context|context window|input token count|too many (?:input )?tokens/i;

/** Whether a failure's words say the prompt was too long for the model. */
export function isOverflowText(text: string): boolean {
  return OVERFLOW.test(text);
}
