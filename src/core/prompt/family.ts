// A few lines per model family, for habits the families are known to differ on: GPT/Codex models
// tend to stop early and edit through the shell, Claude models tend to do more than asked, and
// small local models stumble on tool-call syntax. Chosen by the session's model id, never by probing.

export type ModelFamily = 'gpt' | 'claude' | 'other';

/** The family of a model id as ferret spells them (`openai/gpt-5-codex`, `anthropic/claude-sonnet-4-5`, `local/coder`). */
export function modelFamily(modelId: string): ModelFamily {
  const id = modelId.toLowerCase();
  if (id.startsWith('scripted:')) return 'other';
  const name = id.slice(id.lastIndexOf('/') + 1);
  if (/claude/.test(name) || id.startsWith('anthropic/')) return 'claude';
  if (/(^|[^a-z])(gpt|codex)|^o\d/.test(name) || id.startsWith('openai/')) return 'gpt';
  return 'other';
}

const FRAGMENT: Record<ModelFamily, string> = {
  gpt: `# Notes for this model
- Finish the task within this turn. Do not stop to ask whether you should continue, and do not end with an offer to do something you could simply do now.
- When unsure what a file holds or how the project is laid out, look with a tool instead of assuming.
- Change files with apply_patch (or the edit tools you are offered), not with shell redirection, sed -i or heredocs through bash.`,
  claude: `# Notes for this model
- Do what was asked and no more: no extra files (notes, summaries, READMEs), no speculative features or refactors, no defensive code for cases that cannot happen.
- If a test fails for a reason outside the task, report it instead of changing the test.
- Keep the final message to a few plain sentences or a short list; headings are rarely needed.`,
  other: `# Notes for this model
- Call tools with well-formed JSON arguments, using exactly the parameter names given in each tool's schema.
- Take one step at a time and read each result before the next. When a call fails, read the error and fix the arguments; do not repeat a call that failed the same way.
- Paths are relative to the workspace unless they are absolute.`,
};

export function familyFragment(modelId: string): string {
  return FRAGMENT[modelFamily(modelId)];
}
