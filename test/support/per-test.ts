// Per-test lifecycle for vitest files: a fresh CHIMERA_HOME + workspace, and every client closed after.
import { afterEach, beforeEach } from 'vitest';
import { FerretClient, startHttp } from './ferret-client.mjs';
import { tempEnv } from './temp.mjs';

/** This test's temp CHIMERA_HOME and workspace (the same object throughout; its fields are replaced before each test). */
export interface TestEnv {
  home: string;
  ws: string;
}

interface Closable {
  close(): Promise<unknown>;
}

export interface EachTest<C> {
  readonly env: TestEnv;
  /** Starts a client in this test's env; it is checked and closed after the test. */
  readonly start: (args: string[], extra?: NodeJS.ProcessEnv) => C;
  /** Takes a client made some other way, so it is closed after the test too (not checked). */
  readonly adopt: <T extends Closable>(c: T) => T;
}

/** Registers beforeEach/afterEach so each test gets its own env, and every client it started is checked (when `check` is given), closed, and the env removed. */
export function eachTest<C extends Closable>(open: (env: TestEnv, args: string[], extra: NodeJS.ProcessEnv) => C, check?: (c: C) => void): EachTest<C> {
  const env: TestEnv = { home: '', ws: '' };
  const started: C[] = [];
  const adopted: Closable[] = [];
  let cleanup = () => {};
  beforeEach(() => {
    const e = tempEnv();
    env.home = e.home;
    env.ws = e.ws;
    cleanup = e.cleanup;
  });
  afterEach(async () => {
    const mine = started.splice(0);
    const all = [...mine, ...adopted.splice(0)];
    try {
      if (check) for (const c of mine) check(c);
    } finally {
      await Promise.all(all.map((c) => c.close()));
      cleanup();
    }
  });
  const start = (args: string[], extra: NodeJS.ProcessEnv = {}): C => {
    const c = open(env, args, extra);
    started.push(c);
    return c;
  };
  const adopt = <T extends Closable>(c: T): T => {
    adopted.push(c);
    return c;
  };
  return { env, start, adopt };
}

/** eachTest for ferret-dialect clients started with --cwd in the test's workspace, plus startHttp in the same env. */
export function ferretPerTest(): EachTest<FerretClient> & { readonly startHttp: (args: string[], extra?: NodeJS.ProcessEnv) => Promise<{ proc: FerretClient; url: string }> } {
  const t = eachTest((env, args, extra) => new FerretClient(['--cwd', env.ws, ...args], { CHIMERA_HOME: env.home, ...extra }));
  return {
    ...t,
    startHttp: async (args, extra = {}) => {
      const r = await startHttp(['--cwd', t.env.ws, ...args], { CHIMERA_HOME: t.env.home, ...extra });
      t.adopt(r.proc);
      return r;
    },
  };
}
