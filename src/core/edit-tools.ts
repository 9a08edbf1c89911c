// Which edit tools a model is offered, decided here and nowhere else. GPT-5 and codex models are
// trained on apply_patch and do their best work with it; other families are at home with
// exact-text replacement. Offering one set per family keeps a model from mixing two ways to edit
// (and the prompt from describing both). config.json's `editTools` overrides the choice.
import { modelFamily } from './prompt/family.js';

export type EditToolChoice = 'auto' | 'apply_patch' | 'replace' | 'all';

const PATCH = ['apply_patch'];
const REPLACE = ['edit_file', 'multi_edit', 'write_file'];

/** The built-in tools a session on `modelId` is not offered (it may still call them: a call by name runs). */
export function hiddenEditTools(modelId: string, choice: EditToolChoice = 'auto'): ReadonlySet<string> {
  if (choice === 'all') return new Set();
  if (choice === 'apply_patch') return new Set(REPLACE);
  if (choice === 'replace') return new Set(PATCH);
  // A scripted model (tests, demos) is offered everything, so a script can call any tool.
  if (modelId.toLowerCase().startsWith('scripted:')) return new Set();
  return new Set(modelFamily(modelId) === 'gpt' ? REPLACE : PATCH);
}
