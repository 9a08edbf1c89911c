import type { ReadTextFileResponse } from '@agentclientprotocol/sdk';
import type { FileAccess } from '../../../core/index.js';
import { EditorUnavailableError } from '../../../protocol/index.js';
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
 *
 * An editor that advertises file access and then never answers (agentgui) must not stall every
 * edit: after one missed deadline the seam gives up for the rest of this client's session, the
 * core reads and writes on disk (that request too), and `onMiss` tells the person once.
 */
export function clientFiles(ctx: DialectContext, sessionId: string, caps: FsCaps, onMiss: (method: string) => void): Partial<FileAccess> {
  let gaveUp = false;
  const call = async (method: string, params: unknown, signal: AbortSignal | undefined, waitForPerson = false): Promise<unknown> => {
    if (gaveUp) throw new EditorUnavailableError(`the editor missed a file request's deadline earlier; ferret uses the disk`);
    try {
      return await ask(ctx, method, params, signal, waitForPerson);
    } catch (err) {
      if (!(err instanceof MissedDeadline)) throw err;
      gaveUp = true;
      onMiss(method);
      throw new EditorUnavailableError(err.message);
    }
  };
  return {
    ...(caps.read
      ? {
          readText: async (path: string, signal?: AbortSignal) => {
            const r = (await call('fs/read_text_file', { sessionId, path }, signal)) as ReadTextFileResponse | null;
            if (typeof r?.content !== 'string') throw new Error(`the editor returned no content for ${path}`);
            return r.content;
          },
        }
      : {}),
    ...(caps.write
      ? {
          writeText: async (path: string, content: string, signal?: AbortSignal) => {
            await call('fs/write_text_file', { sessionId, path, content }, signal, caps.reviewsWrites === true);
          },
        }
      : {}),
  };
}

class MissedDeadline extends Error {}

/**
 * A request to the editor with a deadline: an editor that never answers must not hold the turn.
 * On expiry the request is withdrawn (`$/cancel_request`).
 */
async function ask(ctx: DialectContext, method: string, params: unknown, signal: AbortSignal | undefined, waitForPerson = false): Promise<unknown> {
  if (waitForPerson) return ctx.request(method, params, signal);
  const deadline = AbortSignal.timeout(ctx.clientTimeoutMs);
  try {
    return await ctx.request(method, params, signal ? AbortSignal.any([signal, deadline]) : deadline);
  } catch (err) {
    if (deadline.aborted && !signal?.aborted) throw new MissedDeadline(`the editor did not answer ${method} within ${seconds(ctx.clientTimeoutMs)} s (the request was withdrawn)`);
    throw err;
  }
}

export const seconds = (ms: number): number => Math.round(ms / 100) / 10;
