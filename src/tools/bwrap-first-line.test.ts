import { describe, expect, it } from 'vitest';
import { BwrapFirstLine } from './bwrap-first-line.js';

describe("bwrap's first line is held back whole", () => {
  it('gathers "bwrap: " and its message when they come as two chunks, and lets what follows the line through', () => {
    const f = new BwrapFirstLine();
    expect(f.take('stderr', 'bwrap: ')).toBe(true);
    expect(f.take('stderr', "Can't mount tmpfs on /newroot/ws/.git: No such file or directory\n")).toBe(true);
    expect(f.line).toBe("bwrap: Can't mount tmpfs on /newroot/ws/.git: No such file or directory\n");
    expect(f.take('stderr', 'later\n')).toBe(false);
    expect(f.release()).toMatch(/^bwrap: Can't mount/);
    expect(f.line).toBeUndefined();
  });

  it('holds a one-chunk line, and even a prefix split before the colon', () => {
    const one = new BwrapFirstLine();
    expect(one.take('stderr', 'bwrap: execvp: No such file\n')).toBe(true);
    const split = new BwrapFirstLine();
    expect(split.take('stderr', 'bwr')).toBe(true);
    expect(split.take('stderr', 'ap: x/.git: gone\n')).toBe(true);
    expect(split.line).toBe('bwrap: x/.git: gone\n');
  });

  it("holds nothing of the command's own output", () => {
    const f = new BwrapFirstLine();
    expect(f.take('stdout', 'bwrap: from stdout\n')).toBe(false);
    expect(f.take('stderr', 'bwrap: after output\n')).toBe(false);
    const g = new BwrapFirstLine();
    expect(g.take('stderr', 'error: no such file\n')).toBe(false);
    expect(g.take('stderr', 'bwrap: \n')).toBe(false);
    expect(g.release()).toBeUndefined();
  });
});
