import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/spawn.mjs';
import { removeDir, tempDir } from '../support/temp.mjs';

// The typed client as a bot's author gets it: `npm pack` of clients/typescript, installed into a
// scratch project (its one dependency from npm's cache, as after `npm ci`), type-checked by tsc.

const PKG = join(REPO, 'clients/typescript');
const TSC = join(REPO, 'node_modules/typescript/bin/tsc');

const run = (cmd: string, args: string[], cwd: string) => spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 120_000 });

const GOOD = `import { createFerretClient, FerretHttpError } from '@ferret/client';
const ferret = createFerretClient({ baseUrl: 'http://127.0.0.1:9', token: 't' });
export async function follow(): Promise<number | undefined> {
  const { sessionId } = await ferret.createSession({});
  for await (const f of ferret.events(sessionId)) {
    if (f.event === 'loop_event' && f.data.kind === 'turn_end') return f.data.duration_ms;
  }
  return undefined;
}
export const isHttpError = (e: unknown): boolean => e instanceof FerretHttpError;
`;
// A field the summary does not have: the package's types must refuse it.
const BAD = GOOD.replace('f.data.duration_ms', 'f.data.durationSeconds');

describe('the typed client as a package', () => {
  it('npm pack yields a package a scratch project installs and type-checks against (and a wrong field fails)', () => {
    const dir = tempDir('client-pack');
    try {
      const packed = run('npm', ['pack', '--pack-destination', dir], PKG);
      expect(packed.status, packed.stderr).toBe(0);
      const tgz = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
      const app = join(dir, 'app');
      run('mkdir', ['-p', app], dir);
      writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', type: 'module', private: true }));
      const installed = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, tgz)], app);
      expect(installed.status, installed.stderr).toBe(0);
      const tsc = (file: string) => run(process.execPath, [TSC, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', 'false', file], app);
      writeFileSync(join(app, 'good.mts'), GOOD);
      const good = tsc('good.mts');
      expect(good.status, good.stdout + good.stderr).toBe(0);
      writeFileSync(join(app, 'bad.mts'), BAD);
      const bad = tsc('bad.mts');
      expect(bad.status).not.toBe(0);
      expect(bad.stdout).toContain('durationSeconds');
    } finally {
      removeDir(dir);
    }
  }, 180_000);
});
