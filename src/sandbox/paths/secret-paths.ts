// Well-known places outside ferret's state where a user's credentials live: SSH and GPG keys,
// cloud and cluster logins, registry tokens, keychains, browser profiles. A read of one sends a
// secret to the model provider, a third party: file tools and commands ask (or are refused),
// except under danger-full-access + full-auto, and confined commands do not see them at all.
// One list, used by the file tools' guard, the command reach check and bubblewrap's masks.
import { isAbsolute, join } from 'node:path';
import { isInside } from '../../protocol/index.js';
import type { HostFacts } from '../facts.js';
import { realPathOf } from './real-path.js';

/**
 * The state folders of VS Code and its kin, where extensions keep what they store: tokens of their
 * own (Chimera's server.json holds its detached server's token), other extensions' logins. Only the
 * two storage folders of each `User` folder: settings, keybindings and snippets stay readable.
 * Linux and macOS defaults; a `--user-data-dir` elsewhere is not known here.
 */
function editorState(): string[] {
  return editorUsers(['.config', 'Library/Application Support']).flatMap(storageOf);
}

/** VS Code and the forks that keep the same layout. */
const EDITOR_APPS = ['Code', 'Code - Insiders', 'Code - OSS', 'VSCodium', 'VSCodium - Insiders', 'Cursor', 'Windsurf', 'Positron', 'Trae', 'Kiro'];

/** The `User` folders of every editor above under each config root, plus the ones with layouts of their own. */
function editorUsers(configRoots: readonly string[]): string[] {
  return [
    ...configRoots.flatMap((root) => EDITOR_APPS.map((app) => `${root}/${app}/User`)),
    '.local/share/code-server/User', // code-server, Linux and macOS alike
    // The remote servers (SSH, WSL, containers) of VS Code and its forks.
    ...['.vscode-server', '.vscode-server-insiders', '.vscodium-server', '.cursor-server', '.windsurf-server', '.positron-server'].map((d) => `${d}/data/User`),
    // Flatpak builds keep their config under ~/.var/app/<id>/config.
    ...[
      ['com.visualstudio.code', 'Code'],
      ['com.vscodium.codium', 'VSCodium'],
      ['com.visualstudio.code-oss', 'Code - OSS'],
    ].map(([id, app]) => `.var/app/${id}/config/${app}/User`),
  ];
}

const storageOf = (user: string): string[] => [`${user}/workspaceStorage`, `${user}/globalStorage`];

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
  // An XDG_CONFIG_HOME elsewhere holds the editors' state too (absolute, not under the home).
  if (host.xdgConfigHome && isAbsolute(host.xdgConfigHome)) {
    for (const rel of editorUsers(['.']).filter((u) => u.startsWith('./')).flatMap(storageOf)) {
      const p = join(host.xdgConfigHome, rel);
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
