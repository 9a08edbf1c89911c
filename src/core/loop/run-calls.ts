import type { ToolResult } from '../../protocol/index.js';
import { prepareToolCall, type PreparedCall, type ToolCallRun } from '../tool-runner.js';
import type { TurnHost } from '../turn-host.js';

/** How one call of a reply is prepared and finished: the tool runner's, or a test's. */
export type PrepareCall = (call: ToolCallRun['call']) => Promise<PreparedCall>;

/**
 * Runs the tool calls of one reply and returns their results in call order.
 *
 * The calls are judged one at a time, in order. A call that only reads and needs no question
 * (read_file, grep, glob, list_dir, a command the classifier judged read-only, an MCP tool that
 * declares readOnlyHint; each with an `allow` verdict) starts at once, beside the reads before it.
 * Any other call (it writes, or asks a person) is a barrier: it waits until every call started
 * before it has finished, then is asked about and run alone, and the calls after it wait for it.
 * So permission prompts never overlap, a write never races a read of the same reply, and a
 * reply's reads take as long as the slowest of them rather than their sum. Cancellation reaches
 * every running call through the shared signal; calls not started yet end "cancelled before it ran".
 */
export async function runCalls(host: TurnHost, run: Omit<ToolCallRun, 'call'>, calls: readonly ToolCallRun['call'][]): Promise<ToolResult[]> {
  return scheduleCalls(calls, (call) => prepareToolCall(host, { ...run, call }));
}

/** The schedule itself, apart from the tool runner (its tests drive it with fake calls). */
export async function scheduleCalls(calls: readonly ToolCallRun['call'][], prepare: PrepareCall): Promise<ToolResult[]> {
  const results: Promise<ToolResult>[] = [];
  let running: Promise<unknown>[] = [];
  for (const call of calls) {
    const prepared = await prepare(call);
    if (prepared.concurrent) {
      const result = prepared.finish();
      results.push(result);
      running.push(result.catch(() => undefined));
      continue;
    }
    await Promise.all(running);
    running = [];
    const result = prepared.finish();
    results.push(result);
    await result.catch(() => undefined);
  }
  return Promise.all(results);
}
