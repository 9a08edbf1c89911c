// Errors from the server, as a person should see them: what happened, and the one button that
// helps (the setting to change, or the log to read).

export type ErrorAction = { label: 'Open Settings'; setting: string } | { label: 'Show Log' };

export interface ShownError {
  text: string;
  actions: ErrorAction[];
}

const SETTINGS_ARGS: ErrorAction = { label: 'Open Settings', setting: 'chimera.args' };
const SETTINGS_ENV: ErrorAction = { label: 'Open Settings', setting: 'chimera.env' };
const SETTINGS_COMMAND: ErrorAction = { label: 'Open Settings', setting: 'chimera.command' };
const LOG: ErrorAction = { label: 'Show Log' };

/** ACP's "authentication required": ferret sends it when a provider's API key is missing. */
const AUTH_REQUIRED = -32000;

/** A failed prompt (JSON-RPC error from `session/prompt`: its message, and its code when known). */
export function promptError(message: string, code?: unknown): ShownError {
  if (/no model is configured|unknown model/i.test(message)) {
    return { text: `Chimera has no model to use. ${message} Add --model to chimera.args or FERRET_MODEL to chimera.env.`, actions: [SETTINGS_ARGS, LOG] };
  }
  if (code === AUTH_REQUIRED || /no api key|api[_ ]key|401|unauthori[sz]ed/i.test(message)) {
    return { text: `Chimera's model provider refused the key: ${message} Set the key in chimera.env.`, actions: [SETTINGS_ENV, LOG] };
  }
  return { text: `Chimera: ${message}`, actions: [LOG] };
}

/** The server could not be started at all (spawn failed). */
export function spawnError(command: string, err: NodeJS.ErrnoException): ShownError {
  if (err.code === 'ENOENT') {
    return {
      text: `Chimera could not start "${command}": the program was not found${command.includes('/') ? '' : ' on PATH'}. Set chimera.command to the full path of chimera (…/dist/cli/main.js in a checkout), or run "npm link" in the ferret checkout so "chimera" is on PATH, then start the session again.`,
      actions: [SETTINGS_COMMAND],
    };
  }
  if (err.code === 'EACCES') return { text: `Chimera could not start "${command}": permission denied.`, actions: [SETTINGS_COMMAND] };
  return { text: `Chimera could not start "${command}": ${err.message}`, actions: [SETTINGS_COMMAND, LOG] };
}

/** The server process ended while the window still used it. `lastLine`: its last stderr line. */
export function exitError(code: number | null, signal: string | null, lastLine: string | undefined): ShownError {
  const how = signal ? `was killed (${signal})` : `exited with code ${code}`;
  const tail = lastLine ? ` Last output: ${lastLine}` : '';
  return { text: `The Chimera server ${how}.${tail}`, actions: [LOG, SETTINGS_ARGS] };
}

/** `initialize` failed or the process is not an ACP v1 agent. */
export function handshakeError(message: string): ShownError {
  return { text: `Chimera's server did not start an ACP session: ${message} Check chimera.command and chimera.args.`, actions: [SETTINGS_ARGS, LOG] };
}
