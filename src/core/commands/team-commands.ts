// Slash commands a team keeps in its repository (and a person in $CHIMERA_HOME): Markdown files
// whose body is a prompt. `.ferret/commands/review.md` is `/review`; `.ferret/commands/git/pr.md`
// is `/git:pr`; `.claude/commands/` is read too, so a team's Claude Code commands work as they are.
// A command file is data: its text becomes the user's message with the arguments put in, and
// nothing in it runs (no shell, no file inclusion). Read fresh when asked: a few small folders.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { SLASH_COMMANDS, type SlashCommand } from '../../protocol/index.js';
import { readFdTextSync } from '../../sandbox/index.js';
import { readFrontMatter } from '../front-matter.js';

export interface TeamCommand extends SlashCommand {
  /** The prompt template: `$ARGUMENTS` is what follows the command, `$1`…`$9` its words. */
  template: string;
  /** Where it was read from (shown in docs and listings). */
  file: string;
  /** The workspace's folders, or the person's ($CHIMERA_HOME). */
  source: 'workspace' | 'user';
}

/** A command file (or folder) that was left out, and why: said once to the person (skipped-notices.ts). */
export interface SkippedCommand {
  file: string;
  reason: string;
}

export interface CommandScan {
  commands: TeamCommand[];
  skipped: SkippedCommand[];
}

/** A command file larger than this is skipped. */
const MAX_BYTES = 64 * 1024;
/** At most this many commands from one folder, and folders one level deep. */
const MAX_PER_ROOT = 200;
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

interface Root {
  dir: string;
  /** The folder the commands folder must really be inside (a symlinked `.ferret` may not lead out). */
  within: string;
  source: TeamCommand['source'];
}

function roots(cwd: string, home: string): Root[] {
  return [
    { dir: join(cwd, '.ferret', 'commands'), within: cwd, source: 'workspace' },
    { dir: join(cwd, '.claude', 'commands'), within: cwd, source: 'workspace' },
    { dir: join(home, 'ferret', 'commands'), within: home, source: 'user' },
  ];
}

/** The folders read, first wins on a name clash: the workspace's own, then the person's. */
export function commandRoots(cwd: string, home: string): string[] {
  return roots(cwd, home).map((r) => r.dir);
}

/** Every team command for a workspace (built-in names are left out: a built-in always wins). */
export function teamCommands(cwd: string, home: string): TeamCommand[] {
  return scanTeamCommands(cwd, home).commands;
}

/**
 * The team commands of a workspace, and the files left out with the reason. A name that is a
 * built-in's in any letter case (`Compact.md`) is refused: `/Compact` beside `/compact` in a menu
 * would run the file where the person meant ferret's own command. Names are one per letter case
 * too (the first folder's wins), so a menu never shows two look-alikes.
 */
export function scanTeamCommands(cwd: string, home: string): CommandScan {
  const byName = new Map<string, TeamCommand>();
  const skipped: SkippedCommand[] = [];
  const builtin = new Map(SLASH_COMMANDS.map((c) => [c.name.toLowerCase(), c.name]));
  for (const root of roots(cwd, home)) {
    for (const c of readRoot(root, skipped)) {
      const key = c.name.toLowerCase();
      const clash = builtin.get(key);
      const first = byName.get(key);
      if (clash !== undefined) skipped.push({ file: c.file, reason: `/${c.name} is ferret's built-in /${clash}, which always wins: rename the file` });
      else if (first && first.name !== c.name) skipped.push({ file: c.file, reason: `/${c.name} differs from /${first.name} (${first.file}) only in letter case: rename one` });
      else if (!first) byName.set(key, c);
      // The same name in a later folder is the documented override: the workspace's wins, silently.
    }
  }
  return { commands: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), skipped };
}

const inside = (root: string, p: string) => {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

function readRoot(root: Root, skipped: SkippedCommand[]): TeamCommand[] {
  let realRoot: string;
  try {
    const st = lstatSync(root.dir, { throwIfNoEntry: false });
    if (st === undefined) return [];
    if (!st.isDirectory()) {
      skipped.push({ file: root.dir, reason: st.isSymbolicLink() ? 'the commands folder is a symlink, which is not followed' : 'not a folder' });
      return [];
    }
    realRoot = realpathSync(root.dir);
    if (!inside(realpathSync(root.within), realRoot)) {
      skipped.push({ file: root.dir, reason: `leads out of ${root.within} (to ${realRoot}) through a symlink, so it is not read` });
      return [];
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') skipped.push({ file: root.dir, reason: `cannot be read: ${(err as Error).message}` });
    return [];
  }
  const out: TeamCommand[] = [];
  let full = false;
  const visit = (dir: string, prefix: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      skipped.push({ file: dir, reason: `cannot be read: ${(err as Error).message}` });
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (prefix) skipped.push({ file: p, reason: 'command folders are one level deep; this one is not read' });
        else if (!NAME.test(e.name)) skipped.push({ file: p, reason: 'not a command name (letters, digits, _ and -, at most 64)' });
        else visit(p, `${e.name}:`);
        continue;
      }
      if (e.isSymbolicLink() && !e.name.endsWith('.md') && isDirectory(p)) {
        skipped.push({ file: p, reason: 'a symlinked folder, which is not followed (copy the files instead)' });
        continue;
      }
      if (!e.name.endsWith('.md')) continue; // a README.txt or a picture beside the commands is not one
      if (out.length >= MAX_PER_ROOT) {
        if (!full) skipped.push({ file: dir, reason: `more than ${MAX_PER_ROOT} command files: the rest are not read` });
        full = true;
        return;
      }
      // Plain files only: a symlink could point anywhere (a secret, a device).
      if (e.isSymbolicLink()) {
        skipped.push({ file: p, reason: 'a symlink, which is not followed (copy the file instead)' });
        continue;
      }
      const base = e.name.slice(0, -3);
      if (!NAME.test(base)) {
        skipped.push({ file: p, reason: 'not a command name (letters, digits, _ and -, at most 64, before .md)' });
        continue;
      }
      const read = readCommandFile(p, realRoot);
      if (typeof read === 'string') out.push(parseCommand(`${prefix}${base}`, read, p, root.source));
      else skipped.push({ file: p, reason: read.reason });
    }
  };
  visit(realRoot, '');
  return out;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A command file's text, opened once and judged on the open descriptor: O_NOFOLLOW (a file
 * swapped for a symlink after the folder was listed fails here instead of being read through),
 * non-blocking (a FIFO never stalls), a regular file of at most MAX_BYTES, and really inside the
 * commands folder (/proc/self/fd says where the descriptor is).
 */
export function readCommandFile(file: string, realRoot: string): string | { reason: string } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { reason: code === 'ELOOP' ? 'a symlink, which is not followed (copy the file instead)' : `cannot be read: ${(err as Error).message}` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { reason: 'not a regular file' };
    if (st.size > MAX_BYTES) return { reason: `${st.size} bytes, more than the ${MAX_BYTES} bytes a command file may have` };
    let at: string;
    try {
      at = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      at = realpathSync(file); // no /proc (not Linux): the name is the best witness left
    }
    if (!inside(realRoot, at)) return { reason: `leads out of the commands folder (to ${at}), so it is not read` };
    return readFdTextSync(fd, st.size);
  } catch (err) {
    return { reason: `cannot be read: ${(err as Error).message}` };
  } finally {
    closeSync(fd);
  }
}

/** A command file's description, argument hint and template (front matter, else the first line as the description). */
export function parseCommand(name: string, text: string, file: string, source: TeamCommand['source'] = 'workspace'): TeamCommand {
  const { meta, body, firstLine } = readFrontMatter(text);
  const description = (meta['description'] || firstLine || `/${name}`).slice(0, 200);
  const hint = meta['argument-hint'] || meta['hint'];
  return { name, description, ...(hint ? { hint: hint.slice(0, 100) } : {}), template: body.trim(), file, source };
}

/**
 * The prompt a command expands to: `$ARGUMENTS` and `$1`…`$9` filled in (in one pass, so a `$1`
 * typed in the arguments stays text), or the arguments appended when the template names none.
 */
export function expandCommand(c: TeamCommand, args: string): string {
  const words = args.split(/\s+/).filter(Boolean);
  let uses = false;
  const filled = c.template.replace(/\$(ARGUMENTS|[1-9])/g, (_m, key: string) => {
    uses = true;
    return key === 'ARGUMENTS' ? args : (words[Number(key) - 1] ?? '');
  });
  return uses || !args ? filled : `${filled}\n\n${args}`;
}

/** `/name args` when name is one of `commands`. */
export function matchTeamCommand(text: string, commands: readonly TeamCommand[]): { command: TeamCommand; args: string } | undefined {
  const m = /^\/([a-z0-9][a-z0-9_-]*(?::[a-z0-9][a-z0-9_-]*)?)(?:[ \t]+([\s\S]*))?$/i.exec(text.trim());
  if (!m) return undefined;
  const command = commands.find((c) => c.name === m[1]);
  return command ? { command, args: (m[2] ?? '').trim() } : undefined;
}

/** `/name args` when name is a team command of this workspace. */
export function findTeamCommand(text: string, cwd: string, home: string): { command: TeamCommand; args: string } | undefined {
  return matchTeamCommand(text, teamCommands(cwd, home));
}
