// Slash commands a team keeps in its repository (and a person in $CHIMERA_HOME): Markdown files
// whose body is a prompt. `.ferret/commands/review.md` is `/review`; `.ferret/commands/git/pr.md`
// is `/git:pr`; `.claude/commands/` is read too, so a team's Claude Code commands work as they are.
// A command file is data: its text becomes the user's message with the arguments put in, and
// nothing in it runs (no shell, no file inclusion). Read fresh when asked: a few small folders.
import { lstatSync, readdirSync, readFileSync, realpathSync, type Dirent } from 'node:fs';
import { join, relative } from 'node:path';
import { SLASH_COMMANDS, type SlashCommand } from '../../protocol/index.js';

export interface TeamCommand extends SlashCommand {
  /** The prompt template: `$ARGUMENTS` is what follows the command, `$1`…`$9` its words. */
  template: string;
  /** Where it was read from (shown in docs and listings). */
  file: string;
}

/** A command file larger than this is skipped. */
const MAX_BYTES = 64 * 1024;
/** At most this many commands from one folder, and folders one level deep. */
const MAX_PER_ROOT = 200;
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

/** The folders read, first wins on a name clash: the workspace's own, then the person's. */
export function commandRoots(cwd: string, home: string): string[] {
  return [join(cwd, '.ferret', 'commands'), join(cwd, '.claude', 'commands'), join(home, 'ferret', 'commands')];
}

/** Every team command for a workspace (built-in names are left out: a built-in always wins). */
export function teamCommands(cwd: string, home: string): TeamCommand[] {
  const byName = new Map<string, TeamCommand>();
  const builtin = new Set(SLASH_COMMANDS.map((c) => c.name));
  for (const root of commandRoots(cwd, home)) {
    for (const c of readRoot(root)) if (!byName.has(c.name) && !builtin.has(c.name)) byName.set(c.name, c);
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function readRoot(root: string): TeamCommand[] {
  let realRoot: string;
  try {
    if (!lstatSync(root).isDirectory()) return []; // a symlinked commands folder is not followed
    realRoot = realpathSync(root);
  } catch {
    return [];
  }
  const out: TeamCommand[] = [];
  const visit = (dir: string, prefix: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= MAX_PER_ROOT) return;
      const p = join(dir, e.name);
      if (e.isDirectory() && !prefix && NAME.test(e.name)) visit(p, `${e.name}:`);
      // Plain files only: a symlink could point anywhere (a secret, a device).
      if (!e.isFile() || !e.name.endsWith('.md')) continue;
      const base = e.name.slice(0, -3);
      if (!NAME.test(base)) continue;
      const c = readCommand(p, `${prefix}${base}`, realRoot);
      if (c) out.push(c);
    }
  };
  visit(realRoot, '');
  return out;
}

function readCommand(file: string, name: string, root: string): TeamCommand | undefined {
  try {
    const st = lstatSync(file);
    if (!st.isFile() || st.size > MAX_BYTES || relative(root, realpathSync(file)).startsWith('..')) return undefined;
    return parseCommand(name, readFileSync(file, 'utf8'), file);
  } catch {
    return undefined;
  }
}

/** A command file's description, argument hint and template (front matter, else the first line as the description). */
export function parseCommand(name: string, text: string, file: string): TeamCommand {
  let body = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const meta: Record<string, string> = {};
  const fm = /^---\n([\s\S]*?)\n---\n?/.exec(body);
  if (fm) {
    for (const line of fm[1]!.split('\n')) {
      const m = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
      if (m) meta[m[1]!.toLowerCase()] = m[2]!.trim().replace(/^(['"])(.*)\1$/, '$2');
    }
    body = body.slice(fm[0].length);
  }
  const firstLine = body.split('\n').find((l) => l.trim() !== '')?.trim().replace(/^#+\s*/, '') ?? '';
  const description = (meta['description'] || firstLine || `/${name}`).slice(0, 200);
  const hint = meta['argument-hint'] || meta['hint'];
  return { name, description, ...(hint ? { hint: hint.slice(0, 100) } : {}), template: body.trim(), file };
}

/** The prompt a command expands to: `$ARGUMENTS` and `$1`…`$9` filled in, or the arguments appended when the template names none. */
export function expandCommand(c: TeamCommand, args: string): string {
  const words = args.split(/\s+/).filter(Boolean);
  const uses = /\$ARGUMENTS|\$[1-9]/.test(c.template);
  const filled = c.template.replace(/\$ARGUMENTS/g, () => args).replace(/\$([1-9])/g, (_m, d: string) => words[Number(d) - 1] ?? '');
  return uses || !args ? filled : `${filled}\n\n${args}`;
}

/** `/name args` when name is a team command of this workspace. */
export function findTeamCommand(text: string, cwd: string, home: string): { command: TeamCommand; args: string } | undefined {
  const m = /^\/([a-z0-9][a-z0-9_-]*(?::[a-z0-9][a-z0-9_-]*)?)(?:[ \t]+([\s\S]*))?$/i.exec(text.trim());
  if (!m) return undefined;
  const command = teamCommands(cwd, home).find((c) => c.name === m[1]);
  return command ? { command, args: (m[2] ?? '').trim() } : undefined;
}
