import { z } from 'zod';
import { constants } from 'node:fs';
import { open, opendir, readlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import { defineTool, fail, ok } from './define.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
/** Entries listed at most; a larger folder is cut (unsorted beyond this). */
const MAX_ENTRIES = 5000;

export const listDirTool = defineTool({
  id: 'list_dir',
  description: 'List the entries of a directory (directories end with /).',
  schema: z.object({ path: z.string().min(1).default('.') }),
  kind: 'read',
  effect: 'read',
  pathArgs: ['path'],
  title: (a) => `List ${a.path}`,
  async run(a, ctx) {
    const dir = resolve(ctx.cwd, a.path);
    // The folder is opened itself (not a symlink put in its place since it was checked) and read
    // through its descriptor, so what is listed is what was checked.
    let fh;
    try {
      fh = await open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') return fail(`cannot list ${a.path}: it became a symlink after it was checked`);
      if (code === 'ENOTDIR') return fail(`cannot list ${a.path}: not a folder (use read_file)`);
      return fail(`cannot list ${a.path}: ${(e as Error).message}`);
    }
    try {
      const at = await readlink(`/proc/self/fd/${fh.fd}`).catch(() => undefined);
      if (at !== undefined && at !== dir) return fail(`cannot list ${a.path}: it changed while ferret was listing it (it now leads to ${at})`);
      const names: string[] = [];
      let more = false;
      const d = await opendir(at !== undefined ? `/proc/self/fd/${fh.fd}` : dir, { bufferSize: 256 });
      for await (const e of d) {
        if (ctx.signal.aborted) break;
        if (names.length >= MAX_ENTRIES) {
          more = true;
          break;
        }
        names.push(e.isDirectory() ? `${e.name}/` : e.name);
      }
      names.sort();
      const tail = more ? `\n… more than ${MAX_ENTRIES} entries; narrow it with glob` : '';
      return ok(names.length ? names.join('\n') + tail : '(empty)');
    } catch (e) {
      return fail(`cannot list ${a.path}: ${(e as Error).message}`);
    } finally {
      await fh.close();
    }
  },
});
