// @-mentions: a file (or folder) the person pointed at in their editor. The model gets its
// content with the message, judged exactly as a read_file call of that path (a folder as a
// list_dir call) would be: the sandbox's path check, then the permission rules and the approval
// preset (a team's `deny read_file(.env)` holds for a mention too), and read through the turn's
// file seam, so an editor's unsaved buffer is what it sees. One the rules refuse, or that would
// need a person's approval, is named with the reason, never silently dropped and never read.
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorText } from '../../protocol/index.js';
import { checkRealPath, inSecretLocation, realPathOf } from '../../sandbox/index.js';
import type { Mention } from '../api.js';
import { decideCall } from '../tool-call/decide-call.js';
import { placePaths, realPathsOf } from '../tool-call/place-paths.js';
import { factsFor } from '../tool-call/roots.js';
import type { TurnHost } from '../turn-host.js';

/** At most this many mentions are read per message, and this many characters of each file. */
const MAX_MENTIONS = 20;
const MAX_CHARS = 100_000;
const MAX_ENTRIES = 200;

/** The context blocks to append to the person's text (empty when no mention names a file). */
export async function mentionsText(host: TurnHost, mentions: readonly Mention[], origin: string | undefined): Promise<string> {
  const blocks: string[] = [];
  for (const m of mentions.slice(0, MAX_MENTIONS)) {
    const block = await readMention(host, m, origin);
    if (block) blocks.push(block);
  }
  return blocks.length ? `\n\n${blocks.join('\n\n')}` : '';
}

async function readMention(host: TurnHost, m: Mention, origin: string | undefined): Promise<string | undefined> {
  const cwd = host.state.cwd;
  const path = pathOf(m.uri, cwd);
  if (!path) return undefined; // not a file (a web link): the text already holds it
  const real = realPathOf(path);
  const shown = isInsideOrSame(cwd, real) ? relative(cwd, real) || '.' : real;
  const block = (body: string, kind = 'file') => `<context ${kind}="${shown}">\n${body}\n</context>`;
  const verdict = checkRealPath({ facts: factsFor(host, real), real, write: false, mode: host.state.sandbox });
  if (!verdict.ok) return block(`(not read: ${verdict.reason})`);
  // A mention cannot be asked about: a secret location (~/.ssh…) is not inlined unless danger-full-access + full-auto.
  const unasked = host.state.sandbox === 'danger-full-access' && host.state.approval === 'full-auto';
  if (!unasked && inSecretLocation(host.deps.sandbox, real)) return block(`(not read: ${real} is where credentials are kept; ask the agent to read it with read_file, which asks first)`);
  try {
    const st = await stat(real);
    const refused = await judged(host, st.isDirectory() ? 'list_dir' : 'read_file', real);
    if (refused) return block(`(not read: ${refused})`, st.isDirectory() ? 'folder' : 'file');
    if (st.isDirectory()) {
      const entries = (await readdir(real, { withFileTypes: true })).map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
      const more = entries.length > MAX_ENTRIES ? `\n… ${entries.length - MAX_ENTRIES} more entries` : '';
      return block(entries.slice(0, MAX_ENTRIES).join('\n') + more, 'folder');
    }
    const text = await host.filesFor(origin).readText(real);
    if (text.includes('\0')) return block('(a binary file: not shown; ask for it with a tool if needed)');
    host.readLedger.saw(real, text);
    return block(text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}\n… (cut at ${MAX_CHARS} characters: read the rest with read_file)` : text);
  } catch (err) {
    return block(`(not read: ${errorText(err)})`);
  }
}

/**
 * What the tool runner would say of `tool` called on `real` (placed by the sandbox, then judged by
 * the rules and the preset): undefined when it would run without asking, else why not.
 */
async function judged(host: TurnHost, id: 'read_file' | 'list_dir', real: string): Promise<string | undefined> {
  const tool = host.tools().get(id);
  if (!tool) return `${id} is not available in this session`;
  const args = { path: real };
  const placed = placePaths(tool, args, realPathsOf(tool, args, host.state.cwd), (r) => factsFor(host, r), host.state.sandbox);
  if (!placed.ok) return placed.reason;
  const { verdict } = await decideCall(host, tool, placed.args, placed.reals);
  if (verdict.action === 'deny') return verdict.reason;
  if (verdict.action === 'ask') return `${id} of it would need a person's approval (${verdict.reason}); call ${id} if it is needed`;
  return undefined;
}

/** A `file://` URI or a plain path (relative to the workspace); undefined for any other scheme. */
function pathOf(uri: string, cwd: string): string | undefined {
  if (uri.startsWith('file:')) {
    try {
      return fileURLToPath(uri);
    } catch {
      return undefined;
    }
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(uri)) return undefined;
  return isAbsolute(uri) ? uri : resolve(cwd, uri);
}

function isInsideOrSame(root: string, p: string): boolean {
  const r = relative(root, p);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
}
