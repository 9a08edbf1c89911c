// The CLI's commands and flags as data: argv → values, and the --help text. Node's own
// util.parseArgs does the parsing. commander did this before and cost an editor's every spawn
// ~8 ms before `initialize` (its module and the node:child_process it loads for git-style
// subcommands, which chimera has none of).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { FlagError } from './agent-options.js';

export interface FlagSpec {
  /** The long name without dashes: `allowed-tools`; `no-stdio` is a boolean that sets `stdio` false. */
  name: string;
  /** The value's placeholder (`dir` → `--cwd <dir>`); absent: a boolean switch. */
  value?: string;
  description: string;
  default?: string;
}

export interface CommandSpec {
  /** The words that name it: `['ferret', 'serve']`. */
  path: string[];
  description: string;
  /** An optional positional argument: `prompt` → `[prompt]`. */
  argument?: { name: string; description: string };
  flags: FlagSpec[];
  /** Said after the flags (environment, examples). */
  after?: string;
}

export interface ParsedCommand {
  /** Flag values by camelCase name (`allowedTools`), defaults filled in; `--no-stdio` → `stdio: false`. */
  values: Record<string, string | boolean>;
  argument: string | undefined;
}

/**
 * `--port -1` → `--port=-1`: the word after a flag that takes a value is that value, even when it
 * starts with a dash (parseArgs would call it ambiguous; the flag's own check then names what is
 * wrong with it, as `--port: "-1" is not a port`).
 */
function joinValues(spec: CommandSpec, argv: string[]): string[] {
  const takesValue = new Set(spec.flags.filter((f) => f.value).map((f) => `--${f.name}`));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (takesValue.has(a) && next !== undefined && next !== '--') {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** argv after the command's words → its values; a FlagError names what is wrong. */
export function parseCommand(spec: CommandSpec, argv: string[]): ParsedCommand {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const f of spec.flags) options[f.name] = f.value ? { type: 'string' } : { type: 'boolean' };
  let parsed;
  try {
    parsed = parseArgs({ args: joinValues(spec, argv), options, strict: true, allowPositionals: true });
  } catch (err) {
    const see = `(see ${['chimera', ...spec.path].join(' ')} --help)`;
    const e = err as Error & { code?: string };
    const flag = /'(--[\w-]+)/.exec(e.message)?.[1];
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) throw new FlagError(`${flag} needs a value ${see}`);
    // Node's message is one sentence plus advice on `--`; the sentence is what a person needs.
    const first = (e.message.split(/\.\s/)[0] ?? '').replace(/\.$/, '');
    throw new FlagError(`${first} ${see}`);
  }
  const max = spec.argument ? 1 : 0;
  if (parsed.positionals.length > max) {
    throw new FlagError(`unexpected argument "${parsed.positionals[max]}" (see ${['chimera', ...spec.path].join(' ')} --help)`);
  }
  const values: Record<string, string | boolean> = {};
  for (const f of spec.flags) {
    const v = parsed.values[f.name] as string | boolean | undefined;
    if (f.name.startsWith('no-')) values[camel(f.name.slice(3))] = v !== true;
    else if (v !== undefined) values[camel(f.name)] = v;
    else if (f.default !== undefined) values[camel(f.name)] = f.default;
    else if (!f.value) values[camel(f.name)] = false;
  }
  return { values, argument: parsed.positionals[0] };
}

const WIDTH = 80;

/** Words of `text` in lines of at most `width` columns; the text's own line breaks are kept. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const para of text.split('\n')) {
    let line = '';
    for (const word of para.split(' ')) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines;
}

/** Rows of `term  description`, the descriptions in one column and wrapped. */
function table(rows: [string, string][]): string {
  const col = Math.max(...rows.map(([t]) => t.length)) + 2;
  return rows
    .map(([term, desc]) => {
      const [head = '', ...rest] = wrap(desc, Math.max(30, WIDTH - 2 - col));
      return [`  ${term.padEnd(col)}${head}`, ...rest.map((l) => `  ${' '.repeat(col)}${l}`)].join('\n');
    })
    .join('\n');
}

/** A command's --help: usage, what it does, its flags (with defaults), and what it says after. */
export function commandHelp(spec: CommandSpec): string {
  const arg = spec.argument ? ` [${spec.argument.name}]` : '';
  const flags: [string, string][] = spec.flags.map((f) => [
    `--${f.name}${f.value ? ` <${f.value}>` : ''}`,
    f.description + (f.default !== undefined ? ` (default: "${f.default}")` : ''),
  ]);
  flags.push(['-h, --help', 'show this help']);
  const parts = [`Usage: ${['chimera', ...spec.path].join(' ')} [options]${arg}`, wrap(spec.description, WIDTH).join('\n')];
  if (spec.argument) parts.push(`Arguments:\n${table([[spec.argument.name, spec.argument.description]])}`);
  parts.push(`Options:\n${table(flags)}`);
  return parts.join('\n\n') + '\n' + (spec.after ? `${spec.after}\n` : '');
}

/** The --help of a word that only groups commands (`chimera`, `chimera ferret`). */
export function groupHelp(path: string[], description: string, commands: { usage: string; description: string }[], extra: [string, string][] = []): string {
  const words = ['chimera', ...path].join(' ');
  return [
    `Usage: ${words} [options] [command]`,
    wrap(description, WIDTH).join('\n'),
    `Options:\n${table([...extra, ['-h, --help', 'show this help']])}`,
    `Commands:\n${table(commands.map((c) => [c.usage, c.description]))}`,
  ].join('\n\n') + '\n';
}
