import { z } from 'zod';
import { relative, resolve } from 'node:path';
import { isInside, sizeText } from '../protocol/index.js';
import { defineTool, fail, ok } from './define.js';
import { readImage } from './node-files.js';

const MAX_LINES = 2000;

export const readFileTool = defineTool({
  id: 'read_file',
  description: 'Read a text file (lines are numbered from 1; use offset/limit for large files), or look at an image (PNG, JPEG, GIF, WebP).',
  schema: z.object({
    path: z.string().min(1).describe('file path, relative to the workspace or absolute'),
    offset: z.number().int().min(1).optional().describe('first line to read (1-based)'),
    limit: z.number().int().min(1).optional().describe('how many lines'),
  }),
  kind: 'read',
  effect: 'read',
  pathArgs: ['path'],
  title: (a) => `Read ${a.path}`,
  keepCutOutput: false,
  readsKeptOutput: true,
  readMore: 'read the rest with read_file offset/limit (lines), a smaller range at a time; a single huge line cannot be paged by lines: read parts of it with bash, e.g. `cut -c1-2000`',
  async run(a, ctx) {
    const abs = resolve(ctx.cwd, a.path);
    // A picture is known by its first bytes, not its name; it goes to the model as an image.
    const pic = await readImage(abs, ctx.signal);
    if (pic && 'tooLarge' in pic) return fail(pic.tooLarge);
    const shown = isInside(ctx.cwd, abs) ? relative(ctx.cwd, abs) : abs; // the sandbox handed us the real path
    if (pic) return { status: 'completed', output: `[image ${shown}: ${pic.image.mimeType}, ${sizeText(pic.bytes)}; handed to the model as an image]`, images: [pic.image] };
    let text: string;
    try {
      text = await ctx.files.readText(abs, ctx.signal);
    } catch (e) {
      return fail(`cannot read ${a.path}: ${(e as Error).message}`);
    }
    ctx.ledger?.saw(abs, text);
    const from = (a.offset ?? 1) - 1;
    const count = Math.min(a.limit ?? MAX_LINES, MAX_LINES);
    const { slice, total } = await pickLines(text, from, count);
    const more = from + count < total ? `\n… ${total - from - count} more lines (use offset)` : '';
    return ok(slice.join('\n') + more);
  },
});

/**
 * Lines [from, from+count) of text and how many lines it has (as `split('\n')` counts them),
 * without splitting all of a large file at once: the scan yields to the event loop as it goes.
 */
async function pickLines(text: string, from: number, count: number): Promise<{ slice: string[]; total: number }> {
  const slice: string[] = [];
  let line = 0;
  let pos = 0;
  let since = performance.now();
  for (;;) {
    const nl = text.indexOf('\n', pos);
    if (line >= from && line < from + count) slice.push(text.slice(pos, nl < 0 ? text.length : nl));
    line++;
    if (nl < 0) break;
    pos = nl + 1;
    if ((line & 0x3fff) === 0 && performance.now() - since > 8) {
      await new Promise((r) => setImmediate(r));
      since = performance.now();
    }
  }
  return { slice, total: line };
}
