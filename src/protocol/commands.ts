// The slash commands every client can offer: core commands, typed as a message's text
// (`/status`), shown by ACP v1 editors as the `/` menu.

export interface SlashCommand {
  name: string;
  description: string;
  /** What the argument is, for a client's input hint; absent = takes none. */
  hint?: string;
  /** Where it comes from: ferret itself, the workspace's command files, or the person's ($CHIMERA_HOME). */
  source?: 'builtin' | 'workspace' | 'user';
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: 'compact', description: 'Summarise the conversation so far to free the context window' },
  { name: 'init', description: 'Have the agent write an AGENTS.md that describes this workspace' },
  { name: 'status', description: 'Show the model, mode, sandbox, approval, context used and cost' },
  { name: 'approval', description: 'Switch the approval preset', hint: 'suggest | auto | full-auto' },
  { name: 'mode', description: 'Switch the agent mode', hint: 'code | plan' },
  { name: 'model', description: 'Switch the model (no argument: list the models you can pick)', hint: 'a model id' },
  { name: 'reasoning', description: 'Set how hard a reasoning model thinks (no argument: show the current level)', hint: 'minimal | low | medium | high' },
  { name: 'undo', description: "Undo the last turn: its files back as they were, and the model no longer sees it (`force` overwrites files changed since)", hint: '[code | conversation | both] [force]' },
  { name: 'redo', description: 'Put back what the last /undo or /rewind took', hint: '[force]' },
  { name: 'rewind', description: 'Go back to before turn N (no number: list the turns): files, conversation or both', hint: 'N [code | conversation | both] [force]' },
];

/** `/name rest` when name is one of ours; anything else is a message for the model. */
export function parseSlashCommand(text: string): { name: string; arg: string } | undefined {
  const m = /^\/([a-z]+)(?:[ \t]+([^\n]*))?\s*$/.exec(text.trim());
  if (!m || !SLASH_COMMANDS.some((c) => c.name === m[1])) return undefined;
  return { name: m[1]!, arg: (m[2] ?? '').trim() };
}

/**
 * The command a text names when it reads as one (`/word`, `/word argument`, one line), ours or
 * not: an unknown one is answered locally and never sent to the model as a billed prompt.
 * A path that opens a message (`/usr/lib is full`) has a second slash and is a message.
 */
export function commandWord(text: string): string | undefined {
  const m = /^\/([A-Za-z][\w-]*)(?:[ \t]+[^\n]*)?$/.exec(text.trim());
  return m?.[1];
}
