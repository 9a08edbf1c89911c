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
      ? async (path) => {
          const r = (await ctx.request('fs/read_text_file', { sessionId, path })) as ReadTextFileResponse | null;
          if (typeof r?.content !== 'string') throw new Error(`the editor returned no content for ${path}`);
          return r.content;
        }
      : (path) => base.readText(path),
    writeText: caps.write
      ? async (path, content) => {
          await ctx.request('fs/write_text_file', { sessionId, path, content });
        }
      : (path, content) => base.writeText(path, content),
  };
}
