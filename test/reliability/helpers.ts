export async function waitUntil(pred: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Keeps real provider keys out of the server so no fuzzed model id can reach the network. */
export const NO_PROVIDER_KEYS: NodeJS.ProcessEnv = {
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: '',
  OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
};
