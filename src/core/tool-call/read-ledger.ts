// What the agent last saw of each file in this session (read, written or edited), so that an edit
// of a file that changed since (a command, the person, a formatter) is refused and the model reads
// it again instead of writing over a change it never saw. Kept in memory, per session: after a
// restart nothing is remembered and the first edit of a file goes ahead on its own text match.
import type { ReadLedger } from '../../tools/define.js';
import { MAX_EDIT_CHARS } from '../../tools/node-files.js';
import { lazyRequire } from '../../util/lazy-require.js';

const nodeCrypto = lazyRequire<typeof import('node:crypto')>('node:crypto');

/** At most this many files are remembered; the oldest are forgotten first. */
const MAX_FILES = 2000;

export class SessionReadLedger implements ReadLedger {
  private readonly seen = new Map<string, string>();

  saw(path: string, content: string): void {
    this.seen.delete(path);
    // The edit tools refuse a file this large anyway: no hash of megabytes on every read of it.
    if (content.length > MAX_EDIT_CHARS) return;
    this.seen.set(path, digest(content));
    if (this.seen.size > MAX_FILES) this.seen.delete(this.seen.keys().next().value!);
  }

  forget(path: string): void {
    this.seen.delete(path);
  }

  stale(path: string, content: string): boolean {
    const had = this.seen.get(path);
    return had !== undefined && had !== digest(content);
  }
}

function digest(content: string): string {
  return nodeCrypto().createHash('sha256').update(content).digest('base64');
}
