// What a confined command must not see of the home folder, whatever the classifier made of it:
// - the secret locations (paths/secret-paths.ts): an empty read-only tmpfs over each folder,
//   /dev/null over each file, so `cat ~/.ssh/id_rsa` finds nothing even in a shape no check saw;
// - Unix sockets under the home folder (an agent, an editor's or a container engine's control
//   socket under ~/.cache, ~/.docker/run, ~/.colima …): the root is bound read-only, but connect()
//   on a socket only needs the socket file, so a read-only bind does not stop it (measured). Each
//   socket found gets /dev/null bound over it (connect then fails with ECONNREFUSED). Found by a
//   bounded walk of the home folder, run off the spawn path and kept for a few seconds; config.json
//   `sandbox.unixSockets: "allow"` turns this off.
import { lstatSync } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { isInside } from '../../protocol/index.js';
import type { HostFacts, WorkspaceFacts } from '../facts.js';
import { secretLocations } from '../paths/secret-paths.js';

export interface HomeMasks {
  /** Folders covered by an empty read-only tmpfs. */
  folders: string[];
  /** Files and sockets covered by /dev/null. */
  files: string[];
}

/** How long a walk's list of sockets is used before the next command walks again. */
const SOCKETS_MS = 5000;
/** The walk's bounds: folders read, and depth below the home folder. */
const MAX_FOLDERS = 4000;
const MAX_DEPTH = 6;
const SKIP = new Set(['node_modules', '.git', '.npm', '.cargo', '.rustup', '.m2', '.gradle', 'go', '.nvm', '.pyenv']);

/** The masks for one command in this workspace (a mask holding the workspace is left out: it would hide it). */
export function homeMasks(facts: WorkspaceFacts): HomeMasks {
  const ws = facts.workspace;
  const out: HomeMasks = { folders: [], files: [] };
  for (const p of secretLocations(facts.host)) {
    if (isInside(p, ws)) continue;
    const st = lstatOrNull(p);
    if (st?.isDirectory()) out.folders.push(p);
    else if (st && (st.isFile() || st.isSocket())) out.files.push(p);
  }
  for (const s of facts.host.homeSockets?.list ?? []) {
    // Looked at again now: a socket gone since the walk would make bwrap fail to mount over it.
    if (out.folders.some((f) => isInside(f, s)) || isInside(ws, s)) continue;
    if (lstatOrNull(s)?.isSocket()) out.files.push(s);
  }
  return out;
}

/** Refreshes the list of sockets under the home folder when it is older than a few seconds; awaited before a confined spawn. */
export function refreshHomeSockets(host: HostFacts): Promise<void> {
  if (host.unixSockets === 'allow') return Promise.resolve();
  const now = performance.now();
  const cur = host.homeSockets;
  if (cur && now - cur.at < SOCKETS_MS) return cur.ready;
  const ready = findSockets(host.home).then((list) => {
    host.homeSockets = { at: performance.now(), list, ready: Promise.resolve() };
  }, () => {});
  host.homeSockets = { at: now, list: cur?.list ?? [], ready };
  return ready;
}

async function findSockets(home: string): Promise<string[]> {
  const found: string[] = [];
  let budget = MAX_FOLDERS;
  let level = [home];
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0 && budget > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      if (budget-- <= 0) break;
      try {
        for await (const e of await opendir(dir)) {
          const p = join(dir, e.name);
          if (e.isSocket()) found.push(p);
          else if (e.isDirectory() && !SKIP.has(e.name)) next.push(p);
        }
      } catch {
        // unreadable or gone: skipped (a socket below a folder this user cannot list is not found)
      }
    }
    level = next;
  }
  return found;
}

function lstatOrNull(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}
