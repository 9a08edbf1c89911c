// Shared by the core's tests (not part of the product): the temp folders and scripted models a test
// file works in, cores closed after each test, a spy on what the model receives, events by type,
// and what a replay hands out.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import type { ModelRequest } from '../providers/provider.js';
import type { EventOf, EventType, SessionEvent } from '../protocol/index.js';
import type { Listener, Subscription } from './bus.js';
import type { CoreInternals as Core } from './create-core.js';

export interface Scratch {
  /** The test file's temp folder, removed after its last test. */
  root: string;
  /** A new empty folder in `root`, named after `name`. */
  fresh: (name: string) => string;
  /** Writes a scripted model file in `root` and returns its model id. */
  script: (file: Record<string, unknown>) => string;
}

/** A temp folder for this test file (`prefix` names it), removed after all its tests. */
export function scratch(prefix: string): Scratch {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  return {
    root,
    fresh: (name) => {
      const dir = join(root, `${name}-${n++}`);
      mkdirSync(dir);
      return dir;
    },
    script: (file) => {
      const path = join(root, `script-${n++}.json`);
      writeFileSync(path, JSON.stringify(file));
      return `scripted:${path}`;
    },
  };
}

/** Returns `keep`: each core it is handed is closed after the test that made it. */
export function closeAfterEach(): (core: Core) => Core {
  const cores: Core[] = [];
  afterEach(async () => {
    await Promise.all(cores.splice(0).map((c) => c.close()));
  });
  return (core) => {
    cores.push(core);
    return core;
  };
}

/** Every request the model receives (messages copied: the history array grows afterwards). */
export function spyOnModel(core: Core): ModelRequest[] {
  const seen: ModelRequest[] = [];
  const inner = core.manager.deps.resolver;
  core.manager.deps.resolver = {
    resolve(id, cwd) {
      const p = inner.resolve(id, cwd);
      return {
        id: p.id,
        pricing: p.pricing,
        contextWindow: p.contextWindow,
        ...(p.check ? { check: () => p.check?.() } : {}),
        ...(p.titles !== undefined ? { titles: p.titles } : {}),
        stream: (req) => {
          seen.push({ ...req, messages: [...req.messages] });
          return p.stream(req);
        },
      };
    },
  };
  return seen;
}

/** The events of one type, typed as such. */
export const ofType = <T extends EventType>(events: SessionEvent[], type: T): EventOf<T>[] =>
  events.filter((e): e is EventOf<T> => e.type === type);

/** The seqs a subscriber from `afterSeq` is handed up to the point where it has caught up (it then unsubscribes). */
export async function replayedSeqs(session: { subscribe(listener: Listener, afterSeq?: number): Subscription }, afterSeq: number): Promise<number[]> {
  const seen: number[] = [];
  const sub = session.subscribe((e) => seen.push(e.seq), afterSeq);
  await sub.caughtUp;
  sub();
  return seen;
}
