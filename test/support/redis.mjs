// A real redis-server for tests and benchmarks (fleet mode's store): the Debian package
// (scripts/setup/redis.sh), started on a free loopback port with its own temporary folder, and
// killed at exit like every child of spawn.mjs. No mock of Redis anywhere. Plain Node ESM
// (node:* only); types in redis.d.mts.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { exited, stopChild, track } from './spawn.mjs';
import { removeDir, tempDir } from './temp.mjs';

const BIN = process.env['FERRET_REDIS_SERVER'] || 'redis-server';
const READY_MS = 10_000;

/** A TCP port nothing listens on now (the kernel's pick on 127.0.0.1). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** One PING over a raw socket: '+PONG', or the server's error line ('-LOADING …'), or undefined when nothing answers. */
export function ping(port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const sock = connect({ host: '127.0.0.1', port });
    let got = '';
    const done = (v) => {
      clearTimeout(t);
      sock.destroy();
      resolve(v);
    };
    const t = setTimeout(() => done(undefined), timeoutMs);
    sock.once('error', () => done(undefined));
    sock.once('connect', () => sock.write('*1\r\n$4\r\nPING\r\n'));
    sock.on('data', (d) => {
      got += d.toString('latin1');
      const nl = got.indexOf('\r\n');
      if (nl >= 0) done(got.slice(0, nl));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts redis-server on 127.0.0.1 (a free port unless `port`), data in a temp folder removed at
 * exit. Persistence: an append-only file, written before every reply and fsynced once a second
 * by default (`appendfsync: 'everysec'`): a kill -9 of Redis loses no acknowledged write, an OS
 * crash up to a second of them, as the JSONL store (which never fsyncs). `'always'` fsyncs before
 * every reply (an OS crash loses nothing either; ~2 ms a write here), `persistence: false` keeps
 * neither an AOF nor RDB. Resolves once it answers PING.
 */
export async function startRedis({ port, appendfsync = 'everysec', persistence = true, args = [] } = {}) {
  const dir = tempDir('redis');
  const fixedPort = port !== undefined;
  let child;
  let output = '';
  let removed = false;

  const argv = (p) => [
    '--port', String(p),
    '--bind', '127.0.0.1',
    '--dir', dir,
    '--save', '',
    '--appendonly', persistence ? 'yes' : 'no',
    ...(persistence ? ['--appendfsync', appendfsync] : []),
    '--daemonize', 'no',
    '--protected-mode', 'yes',
    '--logfile', '',
    '--loglevel', 'warning',
    ...args,
  ];

  async function launch(p) {
    output = '';
    child = track(spawn(BIN, argv(p), { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }));
    const keep = (d) => {
      output = (output + d.toString()).slice(-8192);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const me = child;
    const deadline = Date.now() + READY_MS;
    for (;;) {
      if (me.exitCode !== null || me.signalCode !== null) return false;
      const answer = await ping(p, 500);
      if (answer === '+PONG') return true;
      if (Date.now() > deadline) {
        await stopChild(me, 'SIGKILL');
        throw new Error(`redis-server on port ${p} did not answer PING within ${READY_MS} ms (last answer ${answer}):\n${output}`);
      }
      await sleep(answer === undefined ? 20 : 50);
    }
  }

  /** Starts on `p`; a port taken meanwhile is tried again (a fixed port: a few times over ~2 s; else another free one). */
  async function start(p, fixed) {
    for (let attempt = 0; attempt < 20; attempt++) {
      if (await launch(p)) return p;
      await exited(child);
      if (!/address already in use/i.test(output)) {
        throw new Error(`redis-server (${BIN}) exited at start (code ${child.exitCode}, ${child.signalCode ?? 'no signal'}):\n${output}\nIs it installed? bash scripts/setup/redis.sh`);
      }
      if (fixed) await sleep(100);
      else p = await freePort();
    }
    throw new Error(`redis-server: port ${p} stayed in use:\n${output}`);
  }

  const first = await start(port ?? (await freePort()), fixedPort);
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  const server = {
    port: first,
    url: `redis://127.0.0.1:${first}/0`,
    dir,
    get pid() {
      return running() ? child.pid : undefined;
    },
    get running() {
      return running();
    },
    /** What the server printed last (warnings and errors). */
    get output() {
      return output;
    },
    /** SIGTERM: Redis shuts down cleanly (the append-only file is complete). */
    async stop() {
      if (running()) await stopChild(child, 'SIGTERM', 5000);
    },
    /** SIGKILL: a crash of Redis (not of the OS): the append-only file keeps every acknowledged write. */
    async kill() {
      if (running()) await stopChild(child, 'SIGKILL', 5000);
    },
    /** Starts it again on the same port and folder (stopping it first if it runs): the data comes back from the append-only file. */
    async restart() {
      await server.stop();
      await start(first, true);
    },
    /** Stops it and removes its folder. */
    async close() {
      await server.kill();
      if (!removed) removeDir(dir);
      removed = true;
    },
  };
  return server;
}

/** The fleet secret (FERRET_FLEET_SECRET) the servers of a test fleet share. */
export const FLEET_SECRET = 'e2e-fleet-secret-0123456789abcdef0123456789';
