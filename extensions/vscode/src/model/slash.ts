import type { SlashCommand } from './chat-model.js';

// A typed `/name` that is not one of the agent's commands is answered here: sent, it would reach
// the model as a prompt (a billed turn about a typo). "/usr/bin is slow" is not a command.

const COMMAND = /^\/([A-Za-z][\w:-]*)(?:\s|$)/;

/** The local answer to an unknown command, or undefined when the text may go to the agent. */
export function unknownCommand(text: string, commands: readonly SlashCommand[]): string | undefined {
  const m = COMMAND.exec(text.trim());
  if (!m || commands.length === 0) return undefined;
  const name = m[1]!;
  if (commands.some((c) => c.name === name)) return undefined;
  const known = commands.map((c) => `/${c.name}`).join(', ');
  return `/${name} is not a command here, so nothing was sent. Commands: ${known}. Type / to pick one.`;
}

/** The commands offered while `text` is a bare `/na` being typed. */
export function matchingCommands(text: string, commands: readonly SlashCommand[]): SlashCommand[] {
  const m = /^\/([\w:-]*)$/.exec(text);
  if (!m) return [];
  const typed = m[1]!.toLowerCase();
  return commands.filter((c) => c.name.toLowerCase().startsWith(typed));
}
