import type { ReadTextFileResponse } from '@agentclientprotocol/sdk';
import type { FileAccess } from '../../../core/index.js';
import type { DialectContext } from '../dialect.js';

export interface FsCaps {
  read: boolean;
  write: boolean;
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
            const r = (await ctx.request('fs/read_text_file', { sessionId, path }, signal)) as ReadTextFileResponse | null;
            if (typeof r?.content !== 'string') throw new Error(`the editor returned no content for ${path}`);
            return r.content;
          },
        }
      : {}),
    ...(caps.write
      ? {
          writeText: async (path: string, content: string, signal?: AbortSignal) => {
            await ctx.request('fs/write_text_file', { sessionId, path, content }, signal);
          },
        }
      : {}),
  };
}
