// Every limit a shell command runs under, in one place (docs/security.md "Limits" has the same
// table, with how each is enforced). bash.ts and confine/ read them from here.

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const COMMAND_LIMITS = {
  /**
   * Processes and threads one command may have at once (a pids cgroup where ferret can make one,
   * RLIMIT_NPROC inside the sandbox's own user namespace otherwise). Enough for `make -j8`, a
   * test runner's workers or a JVM's threads; a fork bomb stops here, with `fork: Resource
   * temporarily unavailable`.
   */
  pidsMax: 1024,
  /**
   * The CPU weight of all of a server's commands together, against the server's own process:
   * cgroup v1 `cpu.shares` (the server's threads weigh 1024 each) and v2 `cpu.weight` (default 100).
   * A fork bomb or a `make -j` that wants every core leaves the server's event loop its share.
   */
  cpuShares: 64,
  cpuWeight: 6,
  /** The largest file a confined command may write (RLIMIT_FSIZE: a write beyond gets EFBIG, the writer SIGXFSZ). */
  fileSizeBytes: 4 * GiB,
  /** Output kept per call (stdout and stderr together); the rest is drained and dropped. */
  outputKeptChars: 4 * MiB,
  /** Output streamed to the clients as progress per call; the result carries the rest. */
  progressChars: 256 * 1024,
  /** A call's run time when the model names none; then the process group (or cgroup) is killed. */
  defaultTimeoutMs: 120_000,
  /** The longest run time a call may ask for. */
  maxTimeoutMs: 600_000,
  /** Longer command texts are not parsed on the event loop (asked for, as opaque). */
  judgeMaxChars: 16 * 1024,
  /** Deeper bracket nesting is not parsed either (asked for, as opaque). */
  judgeMaxDepth: 256,
} as const;

/** Background processes (bash `background: true`): per session, enforced by tools/processes/. */
export const BACKGROUND_LIMITS = {
  /** Processes running at once in one session; one more is refused until one ends. */
  perSession: 8,
  /** How long one may run; then its process group and cgroup are killed (`process_exited` reason `lifetime`). */
  lifetimeMs: 60 * 60_000,
  /** Unread output kept per process; older unread output is dropped first, and the next read says how much. */
  bufferChars: 1024 * 1024,
  /** Output one process_output call returns at most; the rest waits for the next call. */
  readChars: 64 * 1024,
  /** Output of one process written to the session log (process_output events); after that only its end. */
  loggedChars: 1024 * 1024,
  /** How often buffered output becomes a process_output event (a chatty server is a few events a second, not one per line). */
  flushMs: 250,
} as const;
