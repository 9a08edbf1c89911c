import type { ReadTextFileResponse } from '@agentclientprotocol/sdk';
import type { FileAccess } from '../../../core/index.js';
import type { DialectContext } from '../dialect.js';

export interface FsCaps {
  read: boolean;
  write: boolean;
  /**
   * The client holds a write until a person accepts or rejects it (`_meta["ferret.dev"].reviewsWrites`,
   * the VS Code extension): the turn waits for that answer with no deadline, so the next step sees
   * the file the person agreed to; Stop still withdraws the request.
   */
  reviewsWrites?: boolean;
}

/**
 * File access through the editor (`fs/read_text_file`, `fs/write_text_file`), so tools see
 * unsaved buffers and edits land in the editor's review UI. Only what the client advertised is
 * given; the core serves the rest from disk.
 */
export function clientFiles(ctx: DialectContext, sessionId: string, caps: FsCaps): Partial<FileAccess> {
  return {
    ...(caps.read
      ? {
          readText: async (path: string, signal?: AbortSignal) => {
            const r = (await ask(ctx, 'fs/read_text_file', { sessionId, path }, signal)) as ReadTextFileResponse | null;
            if (typeof r?.content !== 'string') throw new Error(`the editor returned no content for ${path}`);
            return r.content;
          },
        }
      : {}),
    ...(caps.write
      ? {
          writeText: async (path: string, content: string, signal?: AbortSignal) => {
            await ask(ctx, 'fs/write_text_file', { sessionId, path, content }, signal, caps.reviewsWrites === true);
          },
        }
      : {}),
  };
}

/**
 * A request to the editor with a deadline: an editor that never answers must not hold the turn.
 * On expiry the request is withdrawn (`$/cancel_request`) and the tool call fails saying why.
 */
async function ask(ctx: DialectContext, method: string, params: unknown, signal: AbortSignal | undefined, waitForPerson = false): Promise<unknown> {
  if (waitForPerson) return ctx.request(method, params, signal);
  const deadline = AbortSignal.timeout(ctx.clientTimeoutMs);
  try {
    return await ctx.request(method, params, signal ? AbortSignal.any([signal, deadline]) : deadline);
  } catch (err) {
    if (deadline.aborted && !signal?.aborted) {
      throw new Error(`the editor did not answer ${method} within ${Math.round(ctx.clientTimeoutMs / 100) / 10} s (the request was withdrawn)`);
    }
    throw err;
  }
}
