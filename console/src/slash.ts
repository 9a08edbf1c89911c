// The console's rule for a typed `/name` that is no command here: answered on the page, never sent
// (sent, it would reach the model as a billed prompt).
import type { SlashCommandItem } from './types.js';

/**
 * The page's answer to a typed `/name` that is no command here (undefined: send it). A first word
 * with a second slash ("/usr/bin is slow") is a path, not a command.
 */
export function unknownCommand(text: string, commands: readonly SlashCommandItem[]): string | undefined {
  const m = /^\/([A-Za-z][\w:-]*)(?:\s|$)/.exec(text.trim());
  if (!m || commands.length === 0) return undefined;
  if (commands.some((c) => c.name === m[1])) return undefined;
  return `/${m[1]} is not a command here, so nothing was sent. Type / to see the commands.`;
}
