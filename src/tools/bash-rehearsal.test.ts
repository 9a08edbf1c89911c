import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createHostFacts } from '../sandbox/index.js';
import { rehearseBash } from './bash-rehearsal.js';

const scratch = () => readdirSync(tmpdir()).filter((n) => n.startsWith('ferret-warm-'));

describe('rehearseBash (the warm-up run of `true`)', () => {
  it.each(['workspace-write', 'read-only', 'danger-full-access'] as const)('runs `true` under %s and leaves no scratch folder behind', async (mode) => {
    const before = new Set(scratch());
    await rehearseBash(mode, createHostFacts({ env: {} }));
    expect(scratch().filter((n) => !before.has(n))).toEqual([]);
  });
});
