// Real confined runs against a fake home folder: its secret locations are empty inside the
// sandbox (a read in any shape finds nothing), and a Unix socket under it cannot be connected to,
// unless config.json says sandbox.unixSockets "allow".
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxMode } from '../../protocol/index.js';
import { confineCommand, probeBwrap } from './confine.js';
import { refreshHomeSockets } from './home-masks.js';
import { scratchRoot } from '../../../test/support/scratch.js';
import { createHostFacts, type HostFacts } from '../facts.js';

mkdirSync(scratchRoot(), { recursive: true });
const root = mkdtempSync(join(scratchRoot(), 'home-masks-'));
const home = join(root, 'home');
const ws = join(home, 'proj');
const sock = join(home, '.cache', 'agent', 'ctl.sock');
let server: Server;

beforeAll(async () => {
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(home, '.cache', 'agent'), { recursive: true });
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'FAKE-PRIVATE-KEY-1234\n');
  writeFileSync(join(home, '.netrc'), 'machine x login u password FAKE-NETRC-5678\n');
  server = createServer((c) => c.end('SOCKET-ANSWERED\n'));
  await new Promise<void>((done) => server.listen(sock, done));
  const probe = await probeBwrap(createHostFacts({ env: {} }));
  if (!probe.ok) throw new Error(`bubblewrap unavailable: ${probe.reason}`);
});
afterAll(() => {
  server.close();
  rmSync(root, { recursive: true, force: true });
});

async function run(host: HostFacts, mode: SandboxMode, command: string): Promise<string> {
  await refreshHomeSockets(host);
  const s = confineCommand({ host, mode, workspace: ws, command, env: { PATH: process.env.PATH, HOME: home } });
  const r = await execa(s.file, s.args, { env: s.env, extendEnv: false, reject: false, timeout: 15_000 });
  s.release();
  return `${r.stdout}\n${r.stderr}`;
}

const connect = `node -e "require('net').connect('${sock}').on('data',(d)=>process.stdout.write(String(d))).on('error',(e)=>console.log('ERR',e.code))"`;

describe.each(['read-only', 'workspace-write'] as const)('under %s', (mode) => {
  const host = createHostFacts({ env: {}, home });
  it('a secret folder is empty and a secret file reads empty, however named', async () => {
    for (const c of ['cat ~/.ssh/id_rsa', 'cat $HOME/.s?h/*', 'cd .. && cat .ssh/id_rsa', 'grep -r FAKE ~ 2>&1', 'cat ~/.netrc', 'ls -a ~/.ssh']) {
      const out = await run(host, mode, c);
      expect(out, c).not.toContain('FAKE-');
      expect(out, c).not.toContain('id_rsa\n');
    }
  });
  it('a Unix socket under the home folder cannot be connected to', async () => {
    const out = await run(host, mode, connect);
    expect(out).not.toContain('SOCKET-ANSWERED');
    expect(out).toContain('ERR');
  });
  it('unless config says unixSockets allow', async () => {
    const open = createHostFacts({ env: {}, home, unixSockets: 'allow' });
    expect(await run(open, mode, connect)).toContain('SOCKET-ANSWERED');
  });
});
