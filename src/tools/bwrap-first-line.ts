// bwrap's own first line on stderr (a setup failure, before the command ran) is held back until
// it is known whether the command runs again (bash.ts: another process's `.git` placeholder
// moved under bwrap's mount). bwrap writes "bwrap: " and its message in two writes, which can
// reach us as two chunks, so the line is gathered up to its newline.
const PREFIX = 'bwrap: ';
/** A line longer than this is not bwrap's: let it through. */
const MAX_LINE = 8192;

export class BwrapFirstLine {
  private held: string | undefined;
  private holding = false;
  private seen = false;

  /** Takes the chunk when it is (part of) bwrap's first line; false: pass it on as output. */
  take(stream: 'stdout' | 'stderr', chunk: string): boolean {
    const starts = !this.seen && stream === 'stderr' && (chunk.startsWith(PREFIX) || PREFIX.startsWith(chunk));
    this.seen = true;
    if (!(stream === 'stderr' && (this.holding || starts))) return false;
    this.held = (this.held ?? '') + chunk;
    this.holding = !this.held.includes('\n') && this.held.length < MAX_LINE;
    return true;
  }

  /** What was held back (once), to be passed on as output. */
  release(): string | undefined {
    const line = this.held;
    this.held = undefined;
    this.holding = false;
    return line;
  }

  /** The held text, without releasing it. */
  get line(): string | undefined {
    return this.held;
  }
}
