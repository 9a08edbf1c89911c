import * as vscode from 'vscode';
import type { ServerSettings } from './server-settings.js';

export type { ServerSettings } from './server-settings.js';

/** chimera.command / chimera.args / chimera.env, read when a server starts. */
export function serverSettings(): ServerSettings {
  const c = vscode.workspace.getConfiguration('chimera');
  const env = c.get<Record<string, unknown>>('env', {});
  return {
    command: c.get<string>('command', 'chimera').trim() || 'chimera',
    args: c.get<string[]>('args', ['ferret', 'serve']).map(String),
    env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])),
  };
}

/** The folder the server runs in: the first workspace folder (as Zed uses the first worktree). */
export function workspaceCwd(): string | undefined {
  const f = vscode.workspace.workspaceFolders?.[0];
  return f?.uri.scheme === 'file' ? f.uri.fsPath : undefined;
}
