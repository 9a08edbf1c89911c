import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DialectContext } from '../dialect.js';

// Editor terminals for a client that advertised `clientCapabilities.terminal` (docs/tools.md,
// "Editor terminals"). The command still runs in ferret, confined and approved as always; the
// editor's terminal runs only a viewer, `tail -f` of a file private to this server that ferret
// fills with the command's output as it streams. The editor is never handed the command line:
// handing it over would run the agent's command unconfined, outside bubblewrap and the approval.

/** How long the viewer has to show the last output before it is released (tail reads on inotify). */
const SETTLE_MS = 300;
/** Output the editor's terminal keeps (its scroll-back): the call's own result holds the rest. */
const OUTPUT_LIMIT = 1024 * 1024;

interface Mirror {
  file: string;
  terminalId?: string;
  ended: boolean;
}

export class TerminalMirror {
  private readonly mirrors = new Map<string, Mirror>();
  /** bash calls announced, not running yet: a terminal is made only for a call that runs (not a denied one). */
  private readonly announced = new Set<string>();
  private dir: string | undefined;

  constructor(
    private readonly ctx: DialectContext,
    private readonly sessionId: string,
    /** The terminal is ready: the call's content becomes it (a tool_call_update). */
    private readonly shown: (callId: string, terminalId: string) => void,
    private readonly warn: (msg: string, err: unknown) => void,
  ) {}

  /** The client's terminal showing this call, once made. */
  terminalOf(callId: string): string | undefined {
    return this.mirrors.get(callId)?.terminalId;
  }

  announce(callId: string, tool: string, args: unknown): void {
    // A background process outlives its call: its output is read with process_output, not shown here.
    const background = typeof args === 'object' && args !== null && (args as { background?: unknown }).background === true;
    if (tool === 'bash' && !background) this.announced.add(callId);
  }

  /** The call runs: its file, and the viewer in the client's terminal. */
  running(callId: string): void {
    if (!this.announced.delete(callId)) return;
    let file: string;
    try {
      this.dir ??= mkdtempSync(join(tmpdir(), 'ferret-term-')); // 0700: this user's alone
      file = join(this.dir, `${callId.replace(/[^A-Za-z0-9_-]/g, '_')}.out`);
      writeFileSync(file, '', { mode: 0o600 });
    } catch (err) {
      this.warn('could not make the terminal mirror file; the call shows its output as text', err);
      return;
    }
    const m: Mirror = { file, ended: false };
    this.mirrors.set(callId, m);
    const params = { sessionId: this.sessionId, command: 'tail', args: ['-n', '+1', '-f', file], outputByteLimit: OUTPUT_LIMIT };
    this.ctx.request('terminal/create', params).then(
      (r) => {
        const id = (r as { terminalId?: unknown } | null)?.terminalId;
        if (typeof id !== 'string') throw new Error('terminal/create answered without a terminalId');
        m.terminalId = id;
        this.shown(callId, id);
        if (m.ended) this.release(callId, m);
      },
      (err: unknown) => {
        this.warn('the client did not make a terminal; the call shows its output as text', err);
        this.mirrors.delete(callId);
        this.remove(m);
      },
    );
  }

  write(callId: string, text: string): void {
    const m = this.mirrors.get(callId);
    if (!m || m.ended) return;
    try {
      appendFileSync(m.file, text);
    } catch {
      /* the file went away: the call's result still has the output */
    }
  }

  /** The call ended: the viewer gets a moment to show the last output, then is released. */
  end(callId: string): void {
    this.announced.delete(callId);
    const m = this.mirrors.get(callId);
    if (!m || m.ended) return;
    m.ended = true;
    if (m.terminalId !== undefined) this.release(callId, m);
  }

  /** The client detached: every viewer is released now. */
  close(): void {
    for (const [callId, m] of this.mirrors) {
      m.ended = true;
      if (m.terminalId !== undefined) void this.ctx.request('terminal/release', { sessionId: this.sessionId, terminalId: m.terminalId }).catch(() => {});
      this.mirrors.delete(callId);
    }
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  private release(callId: string, m: Mirror): void {
    setTimeout(() => {
      // release ends the viewer; the client keeps showing what it printed (ACP: terminals embedded in a call).
      void this.ctx
        .request('terminal/release', { sessionId: this.sessionId, terminalId: m.terminalId })
        .catch((err: unknown) => this.warn('terminal/release failed', err))
        .finally(() => {
          this.mirrors.delete(callId);
          this.remove(m);
        });
    }, SETTLE_MS).unref();
  }

  private remove(m: Mirror): void {
    rmSync(m.file, { force: true });
  }
}
