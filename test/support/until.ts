// Polling for something a test waits on from outside (a stream's frames, a server's answers).

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves with `f()`'s first truthy value, asking every 50 ms; fails naming `what` after `ms`. */
export async function until<T>(what: string, f: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
