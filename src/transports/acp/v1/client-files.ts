import type { ReadTextFileResponse } from '@agentclientprotocol/sdk';
import type { FileAccess } from '../../../core/index.js';
import type { DialectContext } from '../dialect.js';

export interface FsCaps {
  read: boolean;
  write: boolean;
}

/**
 * File access through the editor (`fs/read_text_file`, `fs/write_text_file`), so tools see
 * unsaved buffers and edits land in the editor's review UI. Whatever the client did not
 * advertise falls back to `base` (ferret's own file system).
 */
export function clientFiles(ctx: DialectContext, sessionId: string, caps: FsCaps, base: FileAccess): FileAccess {
  return {
    readText: caps.read
      ? async (path, signal) => {
          const r = (await ctx.request('fs/read_text_file', { sessionId, path }, signal)) as ReadTextFileResponse | null;
          if (typeof r?.content !== 'string') throw new Error(`the editor returned no content for ${path}`);
          return r.content;
        }
      : (path, signal) => base.readText(path, signal),
    writeText: caps.write
      ? async (path, content, signal) => {
          await ctx.request('fs/write_text_file', { sessionId, path, content }, signal);
        }
      : (path, content, signal) => base.writeText(path, content, signal),
  };
}
