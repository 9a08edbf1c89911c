// Well-known places outside ferret's state where a user's credentials live: SSH and GPG keys,
// cloud and cluster logins, registry tokens, keychains, browser profiles. A read of one sends a
// secret to the model provider, a third party: file tools and commands ask (or are refused),
// except under danger-full-access + full-auto, and confined commands do not see them at all.
// One list, used by the file tools' guard, the command reach check and bubblewrap's masks.
import { join } from 'node:path';
import { isInside } from '../../protocol/index.js';
import type { HostFacts } from '../facts.js';
import { realPathOf } from './real-path.js';

/**
 * Home-relative secret locations, folders and files alike. Kept to places that hold credentials
 * and nothing a build needs to read (`~/.config` as a whole is not here: tools read their settings there).
 */
export const SECRET_HOME_PATHS: readonly string[] = [
  '.ssh', '.gnupg', '.aws', '.azure', '.config/gcloud', '.kube', '.docker/config.json', '.netrc', '.npmrc',
  '.pypirc', '.git-credentials', '.config/git/credentials', '.config/gh', '.config/hub', '.password-store',
  '.vault-token', '.terraform.d/credentials.tfrc.json', '.cargo/credentials', '.cargo/credentials.toml',
  '.gem/credentials', '.m2/settings-security.xml', '.pgpass', '.my.cnf', '.config/op', '.local/share/keyrings',
  'Library/Keychains', '.mozilla', '.config/google-chrome', '.config/chromium', '.config/BraveSoftware',
  '.config/microsoft-edge', '.config/vivaldi', '.config/opera', 'snap/firefox', 'snap/chromium',
  'Library/Application Support/Google/Chrome', 'Library/Application Support/Firefox', 'Library/Cookies',
  ...editorState(),
];

/**
 * The state folders of VS Code and its kin, where extensions keep what they store: tokens of their
 * own (Chimera's server.json holds its detached server's token), other extensions' logins. Only the
 * two storage folders of each `User` folder: settings, keybindings and snippets stay readable.
 * Linux and macOS defaults; a `--user-data-dir` elsewhere is not known here.
 */
function editorState(): string[] {
  const users = [
    ...['Code', 'Code - Insiders', 'VSCodium', 'Cursor'].flatMap((app) => [`.config/${app}/User`, `Library/Application Support/${app}/User`]),
    '.local/share/code-server/User', // code-server, Linux and macOS alike
    '.vscode-server/data/User', '.vscode-server-insiders/data/User', // VS Code's remote server (SSH, WSL, containers)
  ];
  return users.flatMap((u) => [`${u}/workspaceStorage`, `${u}/globalStorage`]);
}

/** Every secret location of this host as absolute paths, both as named and as real paths (a symlinked `~/.ssh`). */
export function secretLocations(host: HostFacts): readonly string[] {
  if (host.secretLocations) return host.secretLocations;
  const out = new Set<string>();
  const homes = new Set([host.home, realPathOf(host.home)]);
  for (const h of homes) {
    for (const rel of SECRET_HOME_PATHS) {
      const p = join(h, rel);
      out.add(p);
      out.add(realPathOf(p));
    }
  }
  // ferret's own state (CHIMERA_HOME) is not listed: file tools refuse it on its own terms, with
  // the one exception of a session's kept output (state-roots.ts); the command check adds it.
  host.secretLocations = Object.freeze([...out]);
  return host.secretLocations;
}

/** The secret location a real path lies in, if any. */
export function inSecretLocation(host: HostFacts, real: string): string | undefined {
  return secretLocations(host).find((s) => isInside(s, real));
}

/** A secret location inside `real` (a folder a recursive read would walk into), if any. */
export function holdsSecretLocation(host: HostFacts, real: string): string | undefined {
  return secretLocations(host).find((s) => isInside(real, s));
}
