import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');

// The image itself is built and run by CI's image job; this only keeps the Dockerfile's CMD
// pointing at a file the build really produces.
describe('Dockerfile', () => {
  it("its CMD runs an entry file that `npm run build` produces", () => {
    const cmd = /^CMD\s+(\[.*\])\s*$/m.exec(readFileSync(join(REPO, 'Dockerfile'), 'utf8'));
    expect(cmd, 'a JSON-form CMD').not.toBeNull();
    const argv = JSON.parse(cmd![1]!) as string[];
    expect(argv[0]).toBe('node');
    expect(existsSync(join(REPO, argv[1]!)), `${argv[1]} is built`).toBe(true);
  });
});
