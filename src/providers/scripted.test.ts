import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScriptedFile } from './scripted.js';

const dir = mkdtempSync(join(tmpdir(), 'ferret-scripted-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadScriptedFile', () => {
  it('parses a file once while it is unchanged, and reads it again when it is rewritten (even to the same size)', () => {
    const f = join(dir, 'm.json');
    writeFileSync(f, JSON.stringify({ responses: [{ chunks: ['aa'] }] }));
    const first = loadScriptedFile(f);
    expect(loadScriptedFile(f)).toBe(first); // the same parsed object: not read again
    writeFileSync(f, JSON.stringify({ responses: [{ chunks: ['bb'] }] }));
    const second = loadScriptedFile(f);
    expect(second.responses[0]).toMatchObject({ chunks: ['bb'] });
    writeFileSync(f, '{"responses": 3}');
    expect(() => loadScriptedFile(f)).toThrow(/field responses/);
  });
});
