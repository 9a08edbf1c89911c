import { z } from 'zod';
import { defineTool } from './define.js';
import { editInPlace, previewInPlace } from './edit/edit-in-place.js';

/** Several replacements in one file, in order, written once: all of them or none. */
export const multiEditTool = defineTool({
  id: 'multi_edit',
  description:
    'Make several replacements in one file in one call. Edits apply in order, each to the text the one before it left; if any edit fails, the file is left unchanged. ' +
    'Each old_string must occur exactly once unless replace_all is true.',
  schema: z.object({
    path: z.string().min(1).describe('file path, relative to the workspace or absolute'),
    edits: z
      .array(
        z.object({
          old_string: z.string().min(1).describe('exact text to find'),
          new_string: z.string().describe('replacement text'),
          replace_all: z.boolean().optional(),
        }),
      )
      .min(1)
      .max(100),
  }),
  kind: 'edit',
  effect: 'write',
  pathArgs: ['path'],
  title: (a) => `Edit ${a.path} (${a.edits.length} change${a.edits.length === 1 ? '' : 's'})`,
  preview: (a, ctx) => previewInPlace(a.path, a.edits.map((e) => ({ old: e.old_string, new: e.new_string, all: e.replace_all === true })), ctx),
  run: (a, ctx) => {
    const edits = a.edits.map((e) => ({ old: e.old_string, new: e.new_string, all: e.replace_all === true }));
    const n = edits.length;
    return editInPlace('multi_edit', a.path, edits, ctx, {
      label: (i) => `multi_edit: edit ${i + 1} of ${n}`,
      failed: (r) => `${r.error}. Nothing was changed.`,
      done: (r) => `Edited ${a.path}: ${n} edit${n === 1 ? '' : 's'}, ${r.replaced} replacement${r.replaced === 1 ? '' : 's'}`,
    });
  },
});
