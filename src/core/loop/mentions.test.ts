import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../protocol/index.js';
import { createCore } from '../create-core.js';
import { closeAfterEach, scratch, spyOnModel } from '../test-kit.js';

// An @-mention is judged exactly as a read_file call of its path (a folder as list_dir): the
// sandbox, then the team's rules and the approval preset. What a rule denies never reaches the model.

describe('@-mentions under the permission rules', () => {
  const { fresh, script } = scratch('ferret-mentions-');
  const keep = closeAfterEach();

  async function prompt(files: Record<string, string>, mentions: string[], opts: { rules?: Record<string, string[]>; approval?: 'auto' | 'full-auto' | 'suggest' } = {}) {
    const ws = fresh('ws');
    for (const [p, c] of Object.entries(files)) {
      mkdirSync(join(ws, p, '..'), { recursive: true });
      writeFileSync(join(ws, p), c);
    }
    const config = ConfigSchema.parse({ rules: opts.rules ?? {} });
    const core = keep(createCore({ logger: pino({ level: 'silent' }), home: fresh('home'), env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' }, cwd: ws, sandbox: 'workspace-write', approval: opts.approval ?? 'auto', config }));
    const seen = spyOnModel(core);
    const session = core.manager.create({ model: script({ responses: [{ chunks: ['ok'] }] }) });
    await session.startTurn('look', { mentions: mentions.map((m) => ({ uri: pathToFileURL(join(ws, m)).href })) }).done;
    return JSON.stringify(seen[0]!.messages);
  }

  it('a file a deny rule keeps from read_file is not read, and the model is told why', async () => {
    const sent = await prompt({ '.env': 'API_KEY=hunter2\n', 'src/a.ts': 'export const a = 1;\n' }, ['.env', 'src/a.ts'], { rules: { deny: ['read_file(.env)'] } });
    expect(sent).not.toContain('hunter2');
    expect(sent).toMatch(/<context file=\\".env\\">\\n\(not read: [^)]*\)/);
    expect(sent).toContain('export const a = 1;');
  });

  it('a pattern rule holds too, and a folder is judged as list_dir', async () => {
    const sent = await prompt({ 'secrets/prod.key': 'BEGIN KEY\n', 'secrets/other.txt': 'x\n' }, ['secrets/prod.key', 'secrets'], { rules: { deny: ['read_file(secrets/**)', 'list_dir(secrets)'] } });
    expect(sent).not.toContain('BEGIN KEY');
    expect(sent).not.toContain('other.txt');
    expect(sent).toMatch(/<context file=\\"secrets\/prod.key\\">\\n\(not read: /);
    expect(sent).toMatch(/<context folder=\\"secrets\\">\\n\(not read: /);
  });

  it('a rule that asks before read_file keeps the mention unread (nobody was asked)', async () => {
    const sent = await prompt({ 'notes.md': 'private notes\n' }, ['notes.md'], { rules: { ask: ['read_file(notes.md)'] } });
    expect(sent).not.toContain('private notes');
    expect(sent).toMatch(/\(not read: read_file of it would need a person's approval/);
  });
});
