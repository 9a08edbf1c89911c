import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');
const SCRIPT = join(REPO, 'scripts/check-dockerfile.mjs');
const DOCKERFILE = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'ferret-dockerfile-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function check(args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: REPO, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The real Dockerfile with one edit, written to a temp file and checked against the repo as context. */
function checkBroken(name: string, from: string | RegExp, to: string): { code: number | null; err: string } {
  const text = DOCKERFILE.replace(from, to);
  expect(text, `edit ${name} must change the Dockerfile`).not.toBe(DOCKERFILE);
  const p = join(tmp, name);
  writeFileSync(p, text);
  return check(['--context', REPO, p]);
}

describe('scripts/check-dockerfile.mjs', () => {
  it('passes on the real Dockerfile', () => {
    const r = check([]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/OK .*stages: build, runtime/);
  });

  it('pins what the image must be', () => {
    expect(DOCKERFILE).toMatch(/^FROM node:20-bookworm-slim AS build$/m);
    expect(DOCKERFILE).toMatch(/^FROM node:20-bookworm-slim AS runtime$/m);
    expect(DOCKERFILE).toMatch(/npm prune --omit=dev/);
    expect(DOCKERFILE).toMatch(/apt-get install[^\n]*bubblewrap/);
    expect(DOCKERFILE).toMatch(/^USER ferret$/m);
    expect(DOCKERFILE).toMatch(/CHIMERA_HOME=\/data/);
    expect(DOCKERFILE).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(DOCKERFILE).toMatch(/^EXPOSE 5173$/m);
    expect(DOCKERFILE).toMatch(/FERRET_SERVER_TOKEN/);
    expect(DOCKERFILE).toMatch(/seccomp=unconfined/);
    expect(DOCKERFILE).toMatch(/^HEALTHCHECK [\s\S]*\/health/m);
    expect(DOCKERFILE).toContain('CMD ["node", "dist/cli/main.js", "ferret", "serve", "--http", "--no-stdio", "--host", "0.0.0.0", "--port", "5173"]');
  });

  it('fails, naming the line, on an unknown instruction', () => {
    const r = checkBroken('unknown', /^RUN npm ci/m, 'RUNN npm ci');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/unknown:\d+: unknown instruction "RUNN"/);
  });

  it('fails when a COPY source does not exist', () => {
    const r = checkBroken('missing-src', /^COPY src \.\/src$/m, 'COPY source ./src');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/COPY source source does not exist in the build context/);
  });

  it('fails when a COPY source is excluded by .dockerignore', () => {
    const r = checkBroken('ignored-src', /^COPY src \.\/src$/m, 'COPY src test ./');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/COPY source test is excluded by \.dockerignore/);
  });

  it('fails when the CMD script is not produced by the build', () => {
    const r = checkBroken('bad-cmd', '"dist/cli/main.js"', '"dist/cli/nope.js"');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/CMD script dist\/cli\/nope\.js is not produced by the build: .*not an entry the bundle emits \(main\.js\)/);
  });

  it('fails on an unnamed stage, an unknown --from and a dangling continuation', () => {
    expect(checkBroken('unnamed', /^FROM node:20-bookworm-slim AS runtime$/m, 'FROM node:20-bookworm-slim').err).toMatch(/has no name/);
    expect(checkBroken('bad-from', '--from=build /app/dist', '--from=bulid /app/dist').err).toMatch(/--from=bulid names no earlier stage/);
    const dangling = checkBroken('dangling', /\n*$/, '\nRUN echo \\\n');
    expect(dangling.code).toBe(1);
    expect(dangling.err).toMatch(/continues past the end of the file/);
  });
});
