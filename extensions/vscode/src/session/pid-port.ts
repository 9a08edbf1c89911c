import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

// Whether the process server.json names is the one listening on the port it names. The token
// proves the port is our server; this proves the pid is that same server, so a window never
// signals a ferret process the system gave the recorded pid to (another workspace's server).
// The server may be the recorded process or one in its process group (a wrapper script that
// does not exec: the detached spawn made the recorded pid the group leader).

/** Whether `pid`, or a process of the group it leads, listens on TCP `port`; false when that cannot be told. */
export async function listensOn(pid: number, port: number): Promise<boolean> {
  if (process.platform === 'linux') return procListens(pid, port);
  if (process.platform === 'win32') return true; // no cheap way; the token check stands alone there
  return lsofListens(pid, port);
}

/** Linux: the listening socket's inode (/proc/net/tcp, tcp6) among the process's open files. */
function procListens(pid: number, port: number): boolean {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue; // 0A: LISTEN
      if (parseInt(f[1]!.split(':').pop() ?? '', 16) === port) inodes.add(`socket:[${f[9]}]`);
    }
  }
  if (inodes.size === 0) return false;
  const holds = (p: number) => fdLinks(p).some((l) => inodes.has(l));
  return holds(pid) || groupOf(pid).some((p) => p !== pid && holds(p));
}

function fdLinks(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/${pid}/fd/${fd}`)];
      } catch {
        return [];
      }
    });
  } catch {
    return []; // gone, or another user's
  }
}

/** The processes whose process group is `pgid` (field 5 of /proc/PID/stat, read after the command name's closing parenthesis). */
function groupOf(pgid: number): number[] {
  const out: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return out;
  }
  for (const n of names) {
    try {
      const stat = readFileSync(`/proc/${n}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[2]) === pgid) out.push(Number(n));
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

/** macOS and the BSDs: lsof, asked for a listening TCP socket on the port held by the process group. */
function lsofListens(pid: number, port: number): Promise<boolean> {
  return new Promise((done) => {
    execFile('lsof', ['-nP', '-a', `-g${pid}`, `-iTCP:${port}`, '-sTCP:LISTEN', '-t'], { timeout: 5000 }, (err, out) => done(!err && out.trim().length > 0));
  });
}
