import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHIMERA, REPO } from '../support/spawn.mjs';
import { tempEnv, writeScript, type TempEnv } from '../support/temp.mjs';

// The CLI's words, flags and --help, as a person at a terminal (or a script) meets them.

let env: TempEnv | undefined;
afterEach(() => {
  env?.cleanup();
  env = undefined;
});

function chimera(args: string[], extraEnv: Record<string, string> = {}) {
  env ??= tempEnv();
  const r = spawnSync(process.execPath, [CHIMERA, ...args], {
    cwd: env.ws,
    env: { ...process.env, CHIMERA_HOME: env.home, FERRET_LOG_LEVEL: 'warn', ...extraEnv },
    encoding: 'utf8',
    timeout: 30_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const SERVE_FLAGS = ['--cwd', '--model', '--sandbox', '--approval', '--allowed-tools', '--http', '--port', '--host', '--ide-schema', '--no-stdio', '--permission-timeout', '--client-timeout', '--acp-legacy', '--store', '--bridge', '--idle-exit'];

describe('chimera flags and help', () => {
  it('--help describes every command and every flag, on stdout, exit 0', () => {
    const top = chimera(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/Usage: chimera \[options\] \[command\]/);
    expect(top.stdout).toMatch(/ferret/);
    const serve = chimera(['ferret', 'serve', '--help']);
    expect(serve.code).toBe(0);
    expect(serve.stderr).toBe('');
    for (const flag of SERVE_FLAGS) expect(serve.stdout).toContain(`  ${flag}`);
    expect(serve.stdout).toMatch(/--sandbox <mode>\s+sandbox mode: read-only \| workspace-write \|\s+danger-full-access/);
    expect(serve.stdout).toMatch(/--port <n>\s+HTTP port; 0 picks a free one \(default:\s+"5173"\)/);
    expect(serve.stdout).toMatch(/FERRET_SERVER_TOKEN/);
    const exec = chimera(['help', 'ferret', 'exec']);
    expect(exec.code).toBe(0);
    for (const flag of ['--cwd', '--model', '--sandbox', '--approval', '--allowed-tools', '--json', '--resume']) expect(exec.stdout).toContain(`  ${flag}`);
    expect(exec.stdout).toMatch(/Usage: chimera ferret exec \[options\] \[prompt\]/);
    expect(chimera(['ferret', 'help', 'serve']).stdout).toBe(serve.stdout);
    expect(chimera(['ferret', '-h']).stdout).toMatch(/serve \[options\][\s\S]*exec \[options\] \[prompt\]/);
  });

  it('-V prints the version of the package', () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(chimera(['-V'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
    expect(chimera(['--version']).stdout).toBe(`${pkg.version}\n`);
    expect(chimera(['ferret', 'serve', '--version'])).toMatchObject({ code: 0, stdout: `${pkg.version}\n` });
  });

  it('a wrong flag, a missing value or a stray argument exits 2 with one line naming it; stdout stays empty', () => {
    const cases: [string[], RegExp][] = [
      [['ferret', 'serve', '--bogus'], /^chimera ferret serve: Unknown option '--bogus' \(see chimera ferret serve --help\)\n$/],
      [['ferret', 'serve', '--port'], /^chimera ferret serve: --port needs a value/],
      [['ferret', 'serve', '--http', '--port', '-1'], /--port: "-1" is not a port; expected an integer from 0 to 65535/],
      [['ferret', 'serve', '--port=99999'], /--port: "99999" is not a port/],
      [['ferret', 'serve', 'extra'], /unexpected argument "extra"/],
      [['ferret', 'serve', '--sandbox', 'yolo'], /--sandbox: unknown mode "yolo"; expected one of read-only, workspace-write, danger-full-access/],
      [['ferret', 'exec', '--json=yes', 'hi'], /--json/],
    ];
    for (const [args, message] of cases) {
      const r = chimera(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
  });

  it('an unknown command exits 1 naming it, with the usage', () => {
    const r = chimera(['nope']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^chimera: unknown command 'nope'\n\nUsage: chimera/);
    expect(chimera(['ferret', 'serv']).stderr).toMatch(/unknown command 'ferret serv'/);
    expect(chimera([]).code).toBe(1);
    const level = chimera(['ferret', 'serve'], { FERRET_LOG_LEVEL: 'verbose' });
    expect(level.code).toBe(1);
    expect(level.stderr).toBe('chimera: FERRET_LOG_LEVEL: unknown level "verbose"; expected one of trace, debug, info, warn, error, fatal, silent\n');
  });

  it('after --, a --help is the prompt, not a flag', () => {
    env = tempEnv();
    const model = writeScript(env.ws, 'echo.json', { responses: [{ chunks: ['ran'] }] });
    const r = chimera(['ferret', 'exec', '--cwd', env.ws, '--model', `scripted:${model}`, '--', '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('ran\n');
  });
});
