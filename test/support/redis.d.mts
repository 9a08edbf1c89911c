export interface StartRedisOptions {
  /** Default: a free port on 127.0.0.1. */
  port?: number;
  /**
   * The append-only file's fsync policy. Default 'everysec': written before every reply (a kill -9 of
   * Redis loses nothing acknowledged), fsynced once a second (an OS crash loses up to ~1 s, as the
   * JSONL store). 'always' fsyncs before every reply (~2 ms a write on this machine).
   */
  appendfsync?: 'always' | 'everysec' | 'no';
  /** false: neither an append-only file nor RDB snapshots (data is gone on restart). Default true. */
  persistence?: boolean;
  /** More redis-server arguments, e.g. ['--maxmemory', '64mb']. */
  args?: string[];
}

export interface RedisServer {
  readonly port: number;
  /** redis://127.0.0.1:PORT/0 */
  readonly url: string;
  /** Its data folder (removed at exit, or by close()). */
  readonly dir: string;
  readonly pid: number | undefined;
  readonly running: boolean;
  /** What the server printed last (warnings and errors). */
  readonly output: string;
  /** SIGTERM: a clean shutdown. */
  stop(): Promise<void>;
  /** SIGKILL: a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same port and folder (stopping it first if it runs). */
  restart(): Promise<void>;
  /** Kills it and removes its folder. */
  close(): Promise<void>;
}

/** A TCP port nothing listens on now (the kernel's pick on 127.0.0.1). */
export declare function freePort(): Promise<number>;
/** One PING over a raw socket: '+PONG', the server's error line, or undefined when nothing answers. */
export declare function ping(port: number, timeoutMs?: number): Promise<string | undefined>;
/** Starts a real redis-server on loopback with its own temp folder; resolves once it answers PING. */
export declare function startRedis(opts?: StartRedisOptions): Promise<RedisServer>;

/** The fleet secret (FERRET_FLEET_SECRET) the servers of a test fleet share. */
export declare const FLEET_SECRET: string;
