import { z } from 'zod';
import { defineTool } from './define.js';
import { editInPlace, previewInPlace } from './edit/edit-in-place.js';

export const editFileTool = defineTool({
  id: 'edit_file',
  description:
    'Replace text in a file. `old` must occur exactly once unless replace_all is true. Copy `old` from what read_file showed (without the line numbers); a difference only in indentation or trailing spaces is tolerated when exactly one place fits.',
  schema: z.object({
    path: z.string().min(1),
    old: z.string().min(1).describe('exact text to find'),
    new: z.string().describe('replacement text'),
    replace_all: z.boolean().optional(),
  }),
  kind: 'edit',
  effect: 'write',
  pathArgs: ['path'],
  title: (a) => `Edit ${a.path}`,
  preview: (a, ctx) => previewInPlace(a.path, [{ old: a.old, new: a.new, all: a.replace_all === true }], ctx),
  run: (a, ctx) =>
    editInPlace('edit_file', a.path, [{ old: a.old, new: a.new, all: a.replace_all === true }], ctx, {
      label: () => `edit_file ${a.path}`,
      failed: (r) => r.error.replace('give more surrounding lines to pick one, or replace every one', 'give more context or set replace_all'),
      done: (r) => `Edited ${a.path} (${r.replaced} replacement${r.replaced > 1 ? 's' : ''})`,
    }),
});
