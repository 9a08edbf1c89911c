import { describe, expect, it } from 'vitest';
import { OutputBuffer } from './output-buffer.js';
import { ProcessTable, type BackgroundChild, type ProcessSink } from './process-table.js';

// The table's rules with a stand-in child (the real one, confined, is in test/e2e/background-processes).

function fakeChild() {
  let out: ((stream: 'stdout' | 'stderr', text: string) => void) | undefined;
  let finish!: (r: { exitCode: number | null; signal?: string }) => void;
  const written: string[] = [];
  let killed = 0;
  const child: BackgroundChild = {
    onOutput: (fn) => (out = fn),
    write: (t) => written.push(t),
    kill: () => {
      killed++;
      finish({ exitCode: null, signal: 'SIGKILL' });
    },
    done: new Promise((r) => (finish = r)),
  };
  return { child, emit: (s: 'stdout' | 'stderr', t: string) => out?.(s, t), exit: (code: number) => finish({ exitCode: code }), written, killed: () => killed };
}

function recorder() {
  const events: string[] = [];
  const sink: ProcessSink = {
    started: (p) => events.push(`started ${p.processId}`),
    output: (id, stream, text) => events.push(`output ${id} ${stream} ${text}`),
    exited: (p) => events.push(`exited ${p.processId} ${p.reason} ${p.exitCode}`),
  };
  return { events, sink };
}

describe('ProcessTable', () => {
  it('reads new output once, passes input, records an exit on its own', async () => {
    const { events, sink } = recorder();
    const t = new ProcessTable(sink);
    const c = fakeChild();
    const p = t.add(c.child, 'serve', 'call_1');
    c.emit('stdout', 'one\n');
    c.emit('stderr', 'two\n');
    expect(t.read(p.id)!.text).toBe('one\ntwo\n');
    expect(t.read(p.id)!.text).toBe('');
    expect(t.write(p.id, 'hi\n')).toBe(true);
    expect(c.written).toEqual(['hi\n']);
    c.exit(3);
    await t.settled();
    expect(t.get(p.id)).toMatchObject({ running: false, exitCode: 3, reason: 'exited' });
    expect(t.write(p.id, 'late')).toBe(false);
    expect(events).toEqual(['started proc_1', 'output proc_1 stdout one\n', 'output proc_1 stderr two\n', 'exited proc_1 exited 3']);
  });

  it('refuses one more past the count, stops one at its lifetime, and ends the rest with the session', async () => {
    const { events, sink } = recorder();
    const t = new ProcessTable(sink, { perSession: 2, lifetimeMs: 50 });
    const a = fakeChild();
    t.add(a.child, 'a');
    const b = fakeChild();
    t.add(b.child, 'b');
    expect(t.refusal()).toMatch(/already runs 2 background processes/);
    await new Promise((r) => setTimeout(r, 120));
    expect(t.get('proc_1')).toMatchObject({ running: false, reason: 'lifetime' });
    expect(t.refusal()).toBeUndefined();
    const c = fakeChild();
    const t2 = new ProcessTable(sink);
    t2.add(c.child, 'c');
    t2.closeAll();
    expect(c.killed()).toBe(1);
    expect(t2.refusal()).toBe('the session is closing');
    expect(events.filter((e) => e.startsWith('exited'))).toEqual(['exited proc_1 lifetime null', 'exited proc_2 lifetime null', 'exited proc_1 session_end null']);
  });
});

describe('OutputBuffer', () => {
  it('drops the oldest unread output past its cap and says how much', () => {
    const b = new OutputBuffer(10);
    b.push('0123456789');
    b.push('abcde');
    expect(b.take(100)).toEqual({ text: '56789abcde', dropped: 5, more: false });
    b.push('xyz');
    expect(b.take(2)).toEqual({ text: 'xy', dropped: 0, more: true });
    expect(b.take(2)).toEqual({ text: 'z', dropped: 0, more: false });
  });
});
