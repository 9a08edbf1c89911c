import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { SessionEvent, ToolResult } from '../../protocol/index.js';
import { FileSessionStore } from '../../store/file-store.js';
import { sessionDir } from '../../store/paths.js';
import { createCore } from '../create-core.js';
import { closeAfterEach, ofType, scratch, spyOnModel } from '../test-kit.js';
import { KEPT_DIR_FILES, keepFullOutput } from './kept-output.js';
import { DEFAULT_TOOL_OUTPUT_CAP } from './output-cap.js';

// A result longer than the output cap: the model reads it cut, with a note naming the file that
// holds the whole of it, and pages through that file with read_file (the one part of ferret's
// state a tool may read, and only the session's own).

const { fresh, script } = scratch('ferret-kept-');
const keep = closeAfterEach();

/** A store that keeps no folder for its sessions on this machine (as the fleet's Redis store). */
class NoFolderStore extends FileSessionStore {
  override localFolder(): undefined {
    return undefined;
  }
}

type Call = { name: string; arguments: unknown };

function setup(opts: { store?: 'folder' | 'none' } = {}) {
  const home = fresh('home');
  const ws = fresh('ws');
  const core = keep(
    createCore({
      logger: pino({ level: 'silent' }),
      home,
      env: {},
      cwd: ws,
      sandbox: 'workspace-write',
      approval: 'auto',
      warm: false,
      ...(opts.store === 'none' ? { store: new NoFolderStore(home) } : {}),
    }),
  );
  const seen = spyOnModel(core);
  const responses: unknown[] = [];
  const model = script({ responses: [] });
  const path = model.slice('scripted:'.length);
  const session = core.manager.create({ model });
  const events: SessionEvent[] = [];
  session.subscribe((e) => {
    events.push(e);
    // A command that names ferret's state is asked about (a secret location, docs/security.md); the person allows it here,
    // to show the sandbox still hides the folder from it.
    if (e.type === 'permission_requested') queueMicrotask(() => session.respondPermission(e.data.requestId, 'allow', 'test'));
  });
  /** One turn whose model asks for `calls`, then ends; the script file grows by the turn's two responses. */
  const turn = async (calls: Call[]) => {
    responses.push({ chunks: ['calling'], toolCalls: calls }, { chunks: ['ok'] });
    writeFileSync(path, JSON.stringify({ responses }));
    const r = await session.startTurn('go').done;
    expect(r.stopReason).toBe('end_turn');
    const last = seen.at(-1)?.messages.at(-1);
    if (last?.role !== 'tool') throw new Error('the last model call did not end with tool results');
    return last.results;
  };
  return { core, home, ws, session, events, turn };
}

/** The file the note names. */
function keptPath(r: ToolResult): string {
  const m = /the whole output \(\d+ lines\) is kept in (\S+): page through it with read_file/.exec(r.output);
  if (!m) throw new Error(`no kept file named in: ${r.output.slice(-600)}`);
  return m[1]!;
}

describe('a result longer than the output cap', () => {
  it('a 2 MB command output reaches the model capped near 40 KiB, naming the file that holds the whole of it, which read_file pages through', async () => {
    const t = setup();
    const [r] = await t.turn([{ name: 'bash', arguments: { command: 'seq 1 300000' } }]);
    const bytes = Buffer.byteLength(r!.output);
    expect(bytes).toBeGreaterThan(DEFAULT_TOOL_OUTPUT_CAP);
    expect(bytes).toBeLessThan(DEFAULT_TOOL_OUTPUT_CAP + 1024); // the cap plus its note
    expect(r!.output.startsWith('1\n2\n3\n')).toBe(true);
    expect(r!.output).toMatch(/\[exit code 0\]$/); // the end is kept
    const full = Buffer.byteLength(Array.from({ length: 300000 }, (_, i) => `${i + 1}\n`).join('') + '\n[exit code 0]');
    expect(r!.output).toContain(`[output capped at ${DEFAULT_TOOL_OUTPUT_CAP} bytes: `);
    expect(r!.output).toContain(` of ${full} bytes omitted here; the whole output (300002 lines) is kept in `);
    const file = keptPath(r!);
    // In the session's own folder, beside its log.
    expect(file.startsWith(join(sessionDir(t.home, t.session.id), 'tool-output') + '/')).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(Buffer.byteLength(text)).toBe(full);
    expect(text.endsWith('299999\n300000\n\n[exit code 0]')).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The end event the clients see is the same capped text.
    expect(ofType(t.events, 'tool_call_end')[0]!.data).toMatchObject({ capReached: true, output: r!.output });

    const [page, other] = await t.turn([
      { name: 'read_file', arguments: { path: file, offset: 250000, limit: 3 } },
      { name: 'grep', arguments: { pattern: '^123456$', path: file } },
    ]);
    expect(page).toMatchObject({ status: 'completed' });
    expect(page!.output.split('\n').slice(0, 3)).toEqual(['250000', '250001', '250002']);
    // Only read_file reads there: the other tools still see ferret's state as off limits.
    expect(other).toMatchObject({ status: 'failed' });
    expect(other!.output).toContain("is ferret's own state");
  });

  it('the rest of the state stays hidden: another session’s kept output, the config, a write into the folder, a command', async () => {
    const a = setup();
    const [ra] = await a.turn([{ name: 'bash', arguments: { command: 'seq 1 100000' } }]);
    const fileA = keptPath(ra!);
    // A second session on the same server.
    const b = a.core.manager.create({ model: script({ responses: [{ chunks: ['x'], toolCalls: [
      { name: 'read_file', arguments: { path: fileA } },
      { name: 'read_file', arguments: { path: join(a.home, 'ferret', 'audit.jsonl') } },
    ] }, { chunks: ['ok'] }] }) });
    const ev: SessionEvent[] = [];
    b.subscribe((e) => ev.push(e));
    await b.startTurn('go').done;
    const ends = ofType(ev, 'tool_call_end').map((e) => e.data);
    expect(ends.map((e) => e.status)).toEqual(['failed', 'failed']);
    expect(ends[0]!.output).toContain("is ferret's own state");
    expect(ends[1]!.output).toContain("is ferret's own state");

    // The session itself may read its folder, never write it, and commands do not see it.
    const [w, sh, ok] = await a.turn([
      { name: 'write_file', arguments: { path: join(fileA, '..', 'mine.txt'), content: 'x' } },
      { name: 'bash', arguments: { command: `cat ${fileA}` } },
      { name: 'read_file', arguments: { path: fileA, offset: 99999 } },
    ]);
    expect(w).toMatchObject({ status: 'failed' });
    expect(w!.output).toContain("is ferret's own state");
    expect(existsSync(join(fileA, '..', 'mine.txt'))).toBe(false);
    expect(ofType(a.events, 'permission_requested')).toHaveLength(1);
    expect(sh!.status).toBe('failed');
    expect(sh!.output).toMatch(/No such file or directory/);
    expect(ok!.output.split('\n').slice(0, 2)).toEqual(['99999', '100000']);
  });

  it('a store with no folder here (the fleet): kept under CHIMERA_HOME/ferret/tool-output/<session>', async () => {
    const t = setup({ store: 'none' });
    const [r] = await t.turn([{ name: 'bash', arguments: { command: 'seq 1 100000' } }]);
    const file = keptPath(r!);
    expect(file.startsWith(join(t.home, 'ferret', 'tool-output', t.session.id) + '/')).toBe(true);
    const [page] = await t.turn([{ name: 'read_file', arguments: { path: file, offset: 5, limit: 1 } }]);
    expect(page!.output.split('\n')[0]).toBe('5');
  });

  it('a read_file result longer than the cap is not kept again: the note says to read a smaller range', async () => {
    const t = setup();
    writeFileSync(join(t.ws, 'long.txt'), 'x'.repeat(200) + '\n'.repeat(1) + 'y'.repeat(100_000));
    const [r] = await t.turn([{ name: 'read_file', arguments: { path: 'long.txt' } }]);
    expect(r!.output).toContain('omitted here; read the rest with read_file offset/limit (lines), a smaller range at a time');
    expect(r!.output).not.toContain('is kept in');
    expect(existsSync(join(sessionDir(t.home, t.session.id), 'tool-output'))).toBe(false);
  });
});

describe('keepFullOutput', () => {
  it('keeps at most 4 MiB of one result and says so', async () => {
    const dir = join(fresh('kept'), 'k');
    const k = await keepFullOutput(dir, 'big', 'x'.repeat(5 * 1024 * 1024));
    expect(k).toMatchObject({ bytes: 5 * 1024 * 1024, keptBytes: 4 * 1024 * 1024, lines: 1 });
    expect(statSync(k.path).size).toBe(4 * 1024 * 1024);
  });

  it('the folder holds a bounded number of files: the oldest go first', async () => {
    const dir = join(fresh('kept'), 'k');
    for (let i = 0; i < KEPT_DIR_FILES; i++) {
      const k = await keepFullOutput(dir, `f${i}`, `${i}\n`);
      utimesSync(k.path, 1000 + i, 1000 + i); // distinct ages, f0 the oldest
    }
    await keepFullOutput(dir, 'newest', 'n');
    const names = readdirSync(dir);
    expect(names).toHaveLength(KEPT_DIR_FILES);
    expect(names).toContain('newest.txt');
    expect(names).not.toContain('f0.txt');
    expect(names).toContain('f1.txt');
  });

  it('a name from a model cannot leave the folder', async () => {
    const dir = join(fresh('kept'), 'k');
    const k = await keepFullOutput(dir, '../../etc/x', 'a');
    expect(k.path).toBe(join(dir, '______etc_x.txt'));
  });
});
