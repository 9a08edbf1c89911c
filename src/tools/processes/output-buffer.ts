/**
 * A background process's unread output, bounded: when more arrives than `cap` characters before
 * anyone reads it, the oldest is dropped and counted, so a read says what it missed.
 */
export class OutputBuffer {
  private chunks: string[] = [];
  private size = 0;
  private droppedSinceRead = 0;

  constructor(private readonly cap: number) {}

  push(text: string): void {
    if (!text) return;
    this.chunks.push(text);
    this.size += text.length;
    while (this.size > this.cap) {
      const over = this.size - this.cap;
      const first = this.chunks[0]!;
      if (first.length <= over) {
        this.chunks.shift();
        this.size -= first.length;
        this.droppedSinceRead += first.length;
      } else {
        this.chunks[0] = first.slice(over);
        this.size -= over;
        this.droppedSinceRead += over;
      }
    }
  }

  /** Up to `max` characters of the oldest unread output, and how much was dropped before it. */
  take(max: number): { text: string; dropped: number; more: boolean } {
    const all = this.chunks.join('');
    const text = all.slice(0, max);
    const rest = all.slice(text.length);
    this.chunks = rest ? [rest] : [];
    this.size = rest.length;
    const dropped = this.droppedSinceRead;
    this.droppedSinceRead = 0;
    return { text, dropped, more: rest.length > 0 };
  }
}
