// The server's initial environment block (what /proc/<pid>/environ shows) keeps every variable it
// was started with, FERRET_SERVER_TOKEN and API keys included, even after process.env drops them:
// an unconfined command (danger-full-access) could read them through /proc/$PPID/environ. At start
// the secret-looking ones are moved to the heap (process.env still has them) and their bytes in
// the block are overwritten, in place, through /proc/self/mem: no re-exec, no start-up cost.
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';

const SECRET_NAME = [
  /TOKEN/, /SECRET/, /PASSW(OR)?D/, /PASSPHRASE/, /CREDENTIAL/, /COOKIE/, /API_?KEY/, /(^|_)KEYS?$/, /(^|_)PAT$/,
  /(ACCESS|PRIVATE|SIGNING|ENCRYPTION|MASTER|SESSION)_?KEY/, /(^|_)PASS$/, /(^|_)AUTH($|_|ORIZATION)/, /^AWS_/,
  /(^|_)DSN$/, /DATABASE_URL/, /CONNECTION_STRING/, /WEBHOOK/,
];
/** A URL with user:password@ (or :password@) leaks a password whatever its name. */
const SECRET_VALUE = /:\/\/[^/\s@]*:[^/\s@]+@/;

/** Whether a variable looks like it carries a credential (best effort: commands get an allowlist anyway). */
export function looksSecret(name: string, value: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_NAME.some((re) => re.test(upper)) || SECRET_VALUE.test(value);
}

// Once per process, whatever the number of servers in it: there is one initial environment block.
let done: { scrubbed: string[]; error?: string } | undefined;
// The process's own environment object, handed over once by whoever owns the process (the CLI,
// through createCore's `liveEnviron`): the scrub must rewrite that object, never a copy.
let liveEnviron: NodeJS.ProcessEnv | undefined;

/** Names the process's own environment (process.env) as the one the scrub rewrites; the first call wins. */
export function adoptLiveEnviron(env: NodeJS.ProcessEnv): void {
  liveEnviron ??= env;
}

/**
 * Overwrites the values of secret-looking variables in this process's initial environment
 * block, once. It works on the environment `adoptLiveEnviron` was given (process.env, not a
 * copy): each value is set again there so that it leaves the block before the block is
 * overwritten. An in-process core nobody handed one to scrubs nothing (and tries again later). Returns
 * the names scrubbed, or why it could not (no /proc, a kernel that refuses writes to
 * /proc/self/mem): then the residue is what docs/security.md describes.
 */
export function scrubInitialEnviron(): { scrubbed: string[]; error?: string } {
  if (done) return done;
  const live = liveEnviron;
  if (!live) return { scrubbed: [], error: 'no process environment was handed over (createCore liveEnviron)' };
  const names = new Set<string>();
  for (const [name, value] of Object.entries(live)) {
    if (value === undefined || !looksSecret(name, value)) continue;
    names.add(name);
    // setenv copies to the heap: the environment keeps the value, nothing points into the block any more.
    delete live[name];
    live[name] = value;
  }
  if (names.size === 0) return (done = { scrubbed: [] });
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 of proc(5)
    const start = Number(fields[50 - 3]);
    const end = Number(fields[51 - 3]);
    if (!Number.isSafeInteger(start) || !(end > start) || end - start > 16 * 1024 * 1024) throw new Error('no environment bounds in /proc/self/stat');
    const fd = openSync('/proc/self/mem', 'r+');
    try {
      const buf = Buffer.alloc(end - start);
      readSync(fd, buf, 0, buf.length, start);
      const scrubbed: string[] = [];
      for (let off = 0; off < buf.length; ) {
        let stop = buf.indexOf(0, off);
        if (stop < 0) stop = buf.length;
        const eq = buf.indexOf(0x3d, off);
        if (eq > off && eq < stop) {
          const name = buf.toString('utf8', off, eq);
          if (names.has(name) && stop > eq + 1) {
            buf.fill(0x2a, eq + 1, stop); // '*'
            writeSync(fd, buf, eq + 1, stop - eq - 1, start + eq + 1);
            scrubbed.push(name);
          }
        }
        off = stop + 1;
      }
      return (done = { scrubbed });
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    return (done = { scrubbed: [], error: err instanceof Error ? err.message : String(err) });
  }
}
