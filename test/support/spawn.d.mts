import type { ChildProcess, ChildProcessWithoutNullStreams, StdioOptions } from 'node:child_process';

/** The repo root: every caller finds dist/, docs/ and fixtures from it, wherever it runs from. */
export declare const REPO: string;
/** The built CLI (`npm run build`) that every client spawns. */
export declare const CHIMERA: string;

/** Registers a child so it is SIGKILLed if the run ends first, and records its exit for `exited`. */
export declare function track<C extends ChildProcess>(child: C): C;
/** Resolves with a tracked child's exit code (null when a signal ended it), so callers never miss an exit that already happened. */
export declare function exited(child: ChildProcess): Promise<number | null>;

export interface SpawnOptions {
  /** Added to process.env (after the FERRET_LOG_LEVEL=warn default). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  stdio?: StdioOptions;
  /** Another build of the CLI (default: CHIMERA). */
  bin?: string;
  /** Run the server as this user and group (the test runs as root): e.g. a user who cannot make cgroups. */
  uid?: number;
  gid?: number;
}
/** Spawns `node CHIMERA ferret serve ...args` (FERRET_LOG_LEVEL=warn unless env says otherwise), tracked. */
export declare function spawnFerret(args: string[], opts?: SpawnOptions & { stdio?: ['pipe', 'pipe', 'pipe'] }): ChildProcessWithoutNullStreams;
export declare function spawnFerret(args: string[], opts: SpawnOptions): ChildProcess;

/** Sends `signal` (none when null), SIGKILLs after graceMs, and resolves with the exit code: a hung server fails a run instead of hanging it. */
export declare function stopChild(child: ChildProcess, signal?: NodeJS.Signals | null, graceMs?: number): Promise<number | null>;
/** SIGKILLs every tracked child still running: teardown for scripts, and what runs at process exit. */
export declare function killAll(): void;
/** Makes Ctrl-C and SIGTERM exit (code 130) through the exit-time cleanup, for scripts that own their process. */
export declare function exitOnSignals(): void;
