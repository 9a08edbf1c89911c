// The team command a turn's message runs, read when the turn starts (the files may have changed
// since the last one), and the files left out told to the session once.
import type { TurnHost } from '../turn-host.js';
import { logSkipped, skippedText, untoldSkipped } from './skipped-notices.js';
import { matchTeamCommand, scanTeamCommands, type TeamCommand } from './team-commands.js';

/** `text`'s team command and its arguments, or undefined (a built-in's text: pass `undefined`). */
export function teamCommandOfTurn(session: TurnHost, text: string | undefined): { command: TeamCommand; args: string } | undefined {
  const scan = scanTeamCommands(session.state.cwd, session.deps.home);
  logSkipped(session.deps.logger, scan.skipped);
  for (const s of untoldSkipped(session, scan.skipped)) session.emit({ type: 'notice', data: { level: 'warning', text: skippedText(s) } });
  return text === undefined ? undefined : matchTeamCommand(text, scan.commands);
}
