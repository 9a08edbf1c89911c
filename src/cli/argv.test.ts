import { describe, expect, it } from 'vitest';
import { FlagError } from './agent-options.js';
import { commandHelp, parseCommand, type CommandSpec } from './argv.js';

const SPEC: CommandSpec = {
  path: ['ferret', 'demo'],
  description: 'A demo command.',
  argument: { name: 'prompt', description: 'what to do' },
  flags: [
    { name: 'port', value: 'n', description: 'a port', default: '5173' },
    { name: 'allowed-tools', value: 'list', description: 'tools' },
    { name: 'http', description: 'serve HTTP' },
    { name: 'no-stdio', description: 'no stdio' },
  ],
};

describe('parseCommand', () => {
  it('fills defaults, camelCases names, and turns --no-x into x: false', () => {
    expect(parseCommand(SPEC, [])).toEqual({ values: { port: '5173', http: false, stdio: true }, argument: undefined });
    expect(parseCommand(SPEC, ['--port=0', '--allowed-tools', 'bash,grep', '--http', '--no-stdio', 'go'])).toEqual({
      values: { port: '0', allowedTools: 'bash,grep', http: true, stdio: false },
      argument: 'go',
    });
  });

  it("takes the word after a flag as its value even when it starts with a dash, as commander did", () => {
    expect(parseCommand(SPEC, ['--port', '-1', '--allowed-tools', '--http']).values).toMatchObject({ port: '-1', allowedTools: '--http', http: false });
  });

  it('takes what follows -- as the argument, even when it looks like a flag', () => {
    expect(parseCommand(SPEC, ['--', '--http']).argument).toBe('--http');
  });

  it('names the flag or argument that is wrong', () => {
    expect(() => parseCommand(SPEC, ['--nope'])).toThrow(new FlagError("Unknown option '--nope' (see chimera ferret demo --help)"));
    expect(() => parseCommand(SPEC, ['--port'])).toThrow(new FlagError('--port needs a value (see chimera ferret demo --help)'));
    expect(() => parseCommand(SPEC, ['--allowed-tools', '--'])).toThrow(/--allowed-tools needs a value/);
    expect(() => parseCommand(SPEC, ['a', 'b'])).toThrow(/unexpected argument "b"/);
    expect(() => parseCommand({ ...SPEC, argument: undefined }, ['a'])).toThrow(/unexpected argument "a"/);
  });
});

describe('commandHelp', () => {
  it('lists usage, the argument and every flag with its placeholder and default, wrapped at 80 columns', () => {
    const text = commandHelp({ ...SPEC, flags: [...SPEC.flags, { name: 'long', value: 'x', description: 'word '.repeat(40).trim() }] });
    expect(text).toMatch(/^Usage: chimera ferret demo \[options\] \[prompt\]\n\nA demo command\.\n\nArguments:\n {2}prompt {2}what to do\n\nOptions:\n/);
    expect(text).toMatch(/ {2}--port <n> +a port \(default: "5173"\)/);
    expect(text).toMatch(/ {2}--no-stdio +no stdio/);
    expect(text).toMatch(/ {2}-h, --help +show this help/);
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });
});
