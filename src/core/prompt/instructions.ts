// Project instructions: the person's own file under CHIMERA_HOME, then AGENTS.md (or a configured
// fallback such as CLAUDE.md) in each folder from the repository's top down to the workspace, then
// (as context messages, see context-notes.ts) in folders below it that the agent's tools touched.
import { dirname, join, relative, sep } from 'node:path';
import { isInside } from '../../protocol/index.js';
import { inStateBlock, readFileHeadSync, realPathOf, type HostFacts } from '../../sandbox/index.js';

/** Read in a folder that has no AGENTS.md, in order, when config.json names none (`instructionFiles`). */
export const DEFAULT_INSTRUCTION_FILES: readonly string[] = ['CLAUDE.md', 'GEMINI.md'];

/** Characters kept of one file; the rest is left for the model to read with read_file. */
export const MAX_FILE_CHARS = 32_000;
/** Characters of instructions in all: the system prompt's files and the messages in the conversation. */
export const MAX_TOTAL_CHARS = 64_000;
/** Bytes read of a file: enough for MAX_FILE_CHARS characters of any UTF-8. */
const READ_BYTES = 4 * MAX_FILE_CHARS;

export interface InstructionFile {
  /** How the prompt names it: workspace-relative (`AGENTS.md`, `pkg/CLAUDE.md`, `../AGENTS.md`) or `$CHIMERA_HOME/ferret/AGENTS.md`. */
  label: string;
  /** The folder it applies to. */
  dir: string;
  /** Its text, at most MAX_FILE_CHARS characters. */
  text: string;
  /** Characters left out (0: whole). */
  cut: number;
}

/** AGENTS.md first, then the fallbacks: the first one a folder has wins. */
export function instructionNames(fallbacks: readonly string[] | undefined): string[] {
  return ['AGENTS.md', ...(fallbacks ?? DEFAULT_INSTRUCTION_FILES).filter((n) => n !== 'AGENTS.md')];
}

/** Folders from the workspace down to each touched file's folder, the workspace first, each once. */
export function agentsDirs(cwd: string, touched: Iterable<string>): string[] {
  const dirs = [cwd];
  for (const file of touched) {
    const rel = relative(cwd, dirname(file));
    if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) continue;
    let cur = cwd;
    for (const part of rel.split(sep)) {
      cur = join(cur, part);
      if (!dirs.includes(cur)) dirs.push(cur);
    }
  }
  return dirs;
}

/** Folders from `top` (the repository's top folder, or the workspace itself) down to the workspace, top first. */
export function chainDown(top: string, workspace: string): string[] {
  const dirs: string[] = [];
  for (let d = workspace; ; d = dirname(d)) {
    dirs.unshift(d);
    if (d === top || dirname(d) === d || !isInside(top, d)) break;
  }
  return dirs;
}

/**
 * Reads instruction files the way the workspace allows. Every file is opened non-blocking (a FIFO
 * is skipped) and judged by the real path of the opened descriptor: in and below the workspace a
 * link is followed only to a file in the workspace outside ferret's state (the workspace is the
 * model's to write: `ln -s ~/.chimera/ferret/config.json AGENTS.md` must not put the API keys in
 * the prompt); above the workspace no link is followed at all.
 */
export class InstructionReader {
  private readonly ws: string;
  private readonly allowedInside: (real: string) => boolean;
  private readonly notState: (real: string) => boolean;

  constructor(
    private readonly cwd: string,
    sandbox: HostFacts,
    private readonly names: readonly string[],
  ) {
    this.ws = realPathOf(cwd); // the descriptor's path is a real one
    const facts = sandbox.workspace(this.ws);
    this.notState = (real) => inStateBlock(facts, real) === undefined;
    this.allowedInside = (real) => isInside(this.ws, real) && this.notState(real);
  }

  /** The first instruction file `dir` has (a folder named by the session's cwd, or below it). */
  inFolder(dir: string): InstructionFile | undefined {
    return this.first(dir, this.allowedInside, (file) => relative(this.cwd, file));
  }

  /** The first instruction file of a folder above the workspace (its own file, no link followed). */
  above(dir: string): InstructionFile | undefined {
    const real = realPathOf(dir);
    return this.first(real, (r, file) => r === file && this.notState(r), (file) => relative(this.ws, file));
  }

  /** The person's own file under CHIMERA_HOME: ferret's state, which ferret itself may read. */
  userLevel(home: string): InstructionFile | undefined {
    return this.first(join(home, 'ferret'), () => true, (file) => `$CHIMERA_HOME/ferret/${file.slice(file.lastIndexOf(sep) + 1)}`);
  }

  /** The person's file, then the folders from the repository's top (at most) down to the workspace. */
  forSystemPrompt(home: string, repoTop: string | undefined): InstructionFile[] {
    const out: InstructionFile[] = [];
    const user = this.userLevel(home);
    if (user) out.push(user);
    const top = repoTop !== undefined && isInside(repoTop, this.ws) ? repoTop : this.ws;
    for (const d of chainDown(top, this.ws)) {
      const f = d === this.ws ? this.inFolder(this.cwd) : this.above(d);
      if (f) out.push(f);
    }
    return out;
  }

  private first(dir: string, allowed: (real: string, file: string) => boolean, label: (file: string) => string): InstructionFile | undefined {
    for (const name of this.names) {
      const file = join(dir, name);
      const raw = readFileHeadSync(file, READ_BYTES, (real) => allowed(real, file));
      if (raw === undefined) continue;
      const text = raw.slice(0, MAX_FILE_CHARS);
      return { label: label(file), dir, text, cut: raw.length - text.length };
    }
    return undefined;
  }
}

/** A file's text as the model gets it, cut to `room` characters (the budget left) with a line saying so. */
export function fitted(f: InstructionFile, room: number): { text: string; used: number } {
  const text = f.text.slice(0, Math.max(0, room));
  const left = f.cut + f.text.length - text.length;
  const note = left > 0 ? `\n[${left === f.cut ? '' : 'the instruction budget is used up: '}${left} more characters were left out; read ${f.label} for the rest]` : '';
  return { text: text + note, used: text.length };
}

/** The project instructions section of the system prompt, within the total budget. */
export function renderInstructions(files: readonly InstructionFile[]): { text: string; used: number } {
  if (files.length === 0) return { text: '', used: 0 };
  let used = 0;
  const parts = [
    '# Project instructions\n' +
      "The person's own instructions and the project's instruction files, broadest first. Each applies to work in its folder and below; where two disagree, the later (nearer) one wins. " +
      'Files in folders further down that you work in are sent to you as context messages when you get there.',
  ];
  for (const f of files) {
    const { text, used: u } = fitted(f, MAX_TOTAL_CHARS - used);
    used += u;
    parts.push(`## ${f.label}\n${text}`);
  }
  return { text: parts.join('\n\n'), used };
}
