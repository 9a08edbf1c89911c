import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHIMERA, REPO } from '../support/spawn.mjs';

const TASKS = readdirSync(join(REPO, 'scripts/evals/tasks')).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));

describe('the CI evals harness (scripts/evals/run.mjs)', () => {
  it('runs every scripted task green against the built binary', () => {
    expect(TASKS.length).toBeGreaterThanOrEqual(3);
    const r = spawnSync(process.execPath, [join(REPO, 'scripts/evals/run.mjs'), '--bin', CHIMERA], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).toBe('');
    expect(r.status, r.stdout).toBe(0);
    for (const name of TASKS) expect(r.stdout).toMatch(new RegExp(`^\\| ${name} +\\| pass +\\| +\\d+\\.\\d{6} \\| +\\d+ ms \\|$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^\\| total +\\| ${TASKS.length}/${TASKS.length} pass `, 'm'));
    expect(r.stdout).not.toMatch(/FAIL/);
  }, 60_000);
});
