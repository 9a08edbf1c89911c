// Named subagents a team keeps in its repository: `.ferret/agents/NAME.md` (and Claude Code's
// `.claude/agents/`, and a person's `$CHIMERA_HOME/ferret/agents/`). Front matter says what the
// agent is for (`description`), which tools it gets (`tools`) and which model runs it (`model`);
// the body is its system prompt. Like team commands, a file is data: nothing in it runs.
import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { readCommandFile } from '../commands/team-commands.js';
import { readFrontMatter } from '../front-matter.js';

export interface AgentDefinition {
  name: string;
  description: string;
  /** Tool ids the agent asks for; undefined: the default read-only set. */
  tools?: string[];
  /** A model id; undefined (or `inherit`): the parent session's model. */
  model?: string;
  /** Its system prompt (the file's body). */
  prompt: string;
  /** `max_steps`: model calls it may make (within the default's bounds). */
  maxSteps?: number;
  /** `timeout_seconds`: how long it may run. */
  timeoutSeconds?: number;
  file: string;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
/** At most this many agents from one folder: the task tool's description lists them all. */
const MAX_PER_ROOT = 50;

/** Claude Code's tool names, so its agent files work unchanged. */
const CLAUDE_TOOLS: Record<string, string> = {
  read: 'read_file',
  grep: 'grep',
  glob: 'glob',
  ls: 'list_dir',
  bash: 'bash',
  edit: 'edit_file',
  multiedit: 'multi_edit',
  write: 'write_file',
};

function roots(cwd: string, home: string): { dir: string; within: string }[] {
  return [
    { dir: join(cwd, '.ferret', 'agents'), within: cwd },
    { dir: join(cwd, '.claude', 'agents'), within: cwd },
    { dir: join(home, 'ferret', 'agents'), within: home },
  ];
}

const inside = (root: string, p: string) => {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** The agents of a workspace, first folder wins on a name; files that cannot be read are left out. */
export function scanAgents(cwd: string, home: string): AgentDefinition[] {
  const byName = new Map<string, AgentDefinition>();
  for (const root of roots(cwd, home)) {
    for (const a of readRoot(root.dir, root.within)) if (!byName.has(a.name.toLowerCase())) byName.set(a.name.toLowerCase(), a);
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function readRoot(dir: string, within: string): AgentDefinition[] {
  let real: string;
  try {
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st?.isDirectory()) return []; // absent, a file, or a symlink (not followed)
    real = realpathSync(dir);
    if (!inside(realpathSync(within), real)) return [];
  } catch {
    return [];
  }
  const out: AgentDefinition[] = [];
  let names: string[];
  try {
    names = readdirSync(real).filter((n) => n.endsWith('.md')).sort();
  } catch {
    return [];
  }
  for (const n of names.slice(0, MAX_PER_ROOT)) {
    const text = readCommandFile(join(real, n), real);
    if (typeof text !== 'string') continue;
    const a = parseAgent(n.slice(0, -3), text, join(real, n));
    if (a) out.push(a);
  }
  return out;
}

/** An agent file's front matter and body; undefined when its name is not one. */
export function parseAgent(base: string, text: string, file: string): AgentDefinition | undefined {
  const { meta, body, firstLine } = readFrontMatter(text);
  const name = meta['name'] || base;
  if (!NAME.test(name)) return undefined;
  const description = (meta['description'] || firstLine || name).replace(/\s+/g, ' ').slice(0, 300);
  const tools = meta['tools']
    ?.replace(/^\[|\]$/g, '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((t) => CLAUDE_TOOLS[t.toLowerCase()] ?? t);
  const model = meta['model'] && meta['model'] !== 'inherit' ? meta['model'] : undefined;
  const steps = positive(meta['max_steps']);
  const seconds = positive(meta['timeout_seconds']);
  return {
    name,
    description,
    ...(tools?.length ? { tools } : {}),
    ...(model ? { model } : {}),
    prompt: body.trim(),
    file,
    ...(steps !== undefined ? { maxSteps: steps } : {}),
    ...(seconds !== undefined ? { timeoutSeconds: seconds } : {}),
  };
}

function positive(text: string | undefined): number | undefined {
  const n = text === undefined ? NaN : Number(text);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
