// Recognises, from a confined command's stderr, that the sandbox stopped it. Only a hint
// for the `sandbox_violation` event: the OS is what enforces, and a miss costs nothing.
import { isAbsolute, resolve } from 'node:path';
import type { SandboxMode } from '../../protocol/index.js';

export interface Violation {
  path?: string;
  kind: 'write' | 'network';
}

const ROFS = /Read-only file system|\bEROFS\b/;

// Quotes around a path: ASCII, or the ‘…’ that coreutils and git use under UTF-8 locales.
const O = `['‘"]`;
const C = `['’"]`;
const P = `([^'‘’"\\n]+)`;

// Path extractors for the common shapes of an EROFS message, most specific first.
const WRITE_PATTERNS: RegExp[] = [
  // node: "EROFS: read-only file system, open '/x'"
  new RegExp(`EROFS: read-only file system, \\w+ ${O}${P}${C}`),
  // python: "[Errno 30] Read-only file system: '/x'"
  new RegExp(`Read-only file system: ${O}${P}${C}`),
  // mv across mounts: "inter-device move failed: 'f' to '/x'; unable to remove target: ..."
  new RegExp(`inter-device move failed: ${O}[^'‘’"\\n]*${C} to ${O}${P}${C}`),
  // the quoted path right before the reason: touch/cp/mkdir/ln/rm/dd/mv, git clone
  new RegExp(`${O}${P}${C}: Read-only file system`),
  // git: "Unable to create '/x/.git/index.lock': Read-only file system"
  new RegExp(`Unable to create ${O}${P}${C}`),
  // git: "could not lock config file .git/config: Read-only file system"
  /could not lock config file (.+?): Read-only file system/,
  // sed -i: "couldn't open temporary file ./sedXYZ: Read-only file system"
  /couldn't open temporary file (.+?): Read-only file system/,
  // bash/tee style: "bash: line 1: /x: Read-only file system", "tee: /x: Read-only ..."
  /^(?:[^:\n]+: )?(?:line \d+: )?(?:[^:\n]+: )?([^:\n]+): Read-only file system/,
];

const NETWORK = [
  /Could not resolve host/i, // curl, git
  /Could not resolve hostname/i, // ssh
  /Couldn't connect to server/i, // curl
  /Failed to connect to/i, // curl, git over http
  /\b(ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|ECONNREFUSED)\b/, // node, npm
  /Network is unreachable/i,
  /Temporary failure in name resolution/i, // glibc resolver (python, wget, ssh)
  /unable to resolve host address/i, // wget
  /Name or service not known/i,
  /getaddrinfo/i,
];

function writeViolation(line: string, workspace: string): Violation {
  for (const re of WRITE_PATTERNS) {
    const m = re.exec(line);
    const raw = m?.[1]?.trim();
    if (raw) {
      // Relative paths are relative to where the command started, normally the workspace.
      return { kind: 'write', path: isAbsolute(raw) ? raw : resolve(workspace, raw) };
    }
  }
  return { kind: 'write' };
}

/** The first sign in `stderr` that the sandbox stopped a write or a connection, if any. */
export function detectViolation(stderr: string, mode: SandboxMode, workspace: string): Violation | undefined {
  // Unconfined: an EROFS or a DNS failure is the world's doing, not the sandbox's.
  if (mode === 'danger-full-access') return undefined;
  for (const line of stderr.split('\n')) {
    if (ROFS.test(line)) return writeViolation(line, workspace);
    if (NETWORK.some((re) => re.test(line))) return { kind: 'network' };
  }
  return undefined;
}
