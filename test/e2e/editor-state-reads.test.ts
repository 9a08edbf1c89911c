// Editors' state folders are secret locations, end to end through the built CLI: the VS Code
// extension keeps its detached server's token in server.json under the editor's workspaceStorage,
// and other extensions keep logins in globalStorage. A fake HOME holds both; under workspace-write
// a command (even one the person allowed), read_file and a grep over the home folder never show
// them to the model (a recording fake provider), and `exec` (nobody to ask) prints neither.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeServer } from '../fakes/fake-server.js';
import * as R from '../fakes/openai-responses.js';
import type { FerretClient, Json } from '../support/ferret-client.mjs';
import { answeredTurn } from '../support/answered-turn.js';
import { ferretPerTest } from '../support/per-test.js';
import { CHIMERA } from '../support/spawn.mjs';
import { tempDir, writeScript } from '../support/temp.mjs';

const TOKEN = 'e2e-detached-token-5a1f09c3';
const LOGIN = 'e2e-other-extension-login-77d2';
const SERVER_JSON = '.local/share/code-server/User/workspaceStorage/abc123/ferret.chimera/server.json';

/** A home folder with code-server's copy of server.json and another extension's login in VS Code's globalStorage. */
function plantHome(home: string): void {
  mkdirSync(join(home, SERVER_JSON, '..'), { recursive: true });
  writeFileSync(join(home, SERVER_JSON), JSON.stringify({ pid: 1, url: 'http://127.0.0.1:1', token: TOKEN }), { mode: 0o600 });
  mkdirSync(join(home, '.config/Code/User/globalStorage/some.extension'), { recursive: true });
  writeFileSync(join(home, '.config/Code/User/globalStorage/some.extension/state.json'), JSON.stringify({ login: LOGIN }));
  // What stays readable beside them: the editor's settings.
  writeFileSync(join(home, '.config/Code/User/settings.json'), '{"editor.fontSize": 15}');
}

describe('editor state folders (server.json, extension logins), end to end', () => {
  const { env, start } = ferretPerTest();
  let fake: FakeServer;
  let home = '';
  beforeEach(async () => {
    fake = await new FakeServer().start();
    // The home folder inside the workspace (a person who opened their home folder): file tools
    // may then read there, so only the secret locations keep them out.
    home = join(env.ws, 'me');
    plantHome(home);
    mkdirSync(join(env.home, 'ferret'), { recursive: true });
    writeFileSync(join(env.home, 'ferret', 'config.json'), JSON.stringify({ providers: { openai: { type: 'openai', baseURL: `${fake.url}/v1` } } }));
  });
  afterEach(async () => {
    await fake.close();
  });

  const toolCall = (name: string, args: Json) => R.oneCallReply(name, args);
  const done = R.textReply('ok');
  const sent = () => JSON.stringify(fake.requests.map((r) => r.body));
  const ends = (srv: FerretClient, id: string) => srv.updates(id).filter((u) => u['kind'] === 'tool_call_end').map((u) => u['result'] as Json);

  async function turn(call: [string, Json], answer?: 'allow' | 'deny'): Promise<{ srv: FerretClient; sid: string; asked: Json | undefined }> {
    fake.reply(toolCall(...call), done);
    const srv = start(['--model', 'openai/gpt-5', '--sandbox', 'workspace-write', '--approval', 'auto'], { OPENAI_API_KEY: 'sk-test', HOME: home });
    return { srv, ...(await answeredTurn(srv, 'go', answer)) };
  }

  it('`cat` of server.json asks; even allowed, the sandbox shows neither token nor login, while settings.json stays readable', async () => {
    const command = 'cat ~/.local/share/code-server/User/workspaceStorage/*/ferret.chimera/server.json; grep -r e2e- ~; cat ~/.config/Code/User/globalStorage/*/state.json; cat ~/.config/Code/User/settings.json';
    const { srv, sid, asked } = await turn(['bash', { command }], 'allow');
    expect(JSON.stringify(asked)).toContain('credentials');
    expect(ends(srv, sid)).toHaveLength(1);
    expect(fake.requests.length).toBe(2);
    expect(sent()).toContain('editor.fontSize');
    expect(sent()).not.toContain(TOKEN);
    expect(sent()).not.toContain(LOGIN);
  });

  it('read_file of server.json asks; refused, the token never reaches the provider', async () => {
    const { srv, sid, asked } = await turn(['read_file', { path: join(home, SERVER_JSON) }], 'deny');
    expect(asked).toMatchObject({ tool: 'read_file' });
    expect(ends(srv, sid).map((r) => r['status'])).toEqual(['denied']);
    expect(sent()).not.toContain(TOKEN);
  });

  it('grep over the workspace that holds the home folder walks past the editor state', async () => {
    const { srv, sid } = await turn(['grep', { pattern: 'e2e-', path: '.' }]);
    expect(ends(srv, sid).map((r) => r['status'])).toEqual(['completed']);
    expect(sent()).not.toContain(TOKEN);
    expect(sent()).not.toContain(LOGIN);
  });
});

describe('exec: commands that run without asking', () => {
  it('cannot read the extension\'s server.json under CHIMERA_HOME nor editor state of forks and Flatpak builds, even with paths the classifier cannot see', () => {
    // Everything inside the workspace, so nothing is hidden merely for being in the sandbox's private /tmp.
    const ws = tempDir('ws');
    const home = join(ws, 'me');
    const chimeraHome = join(home, '.chimera');
    const files = [
      '.chimera/ferret/vscode/0123456789abcdef01234567/server.json',
      '.var/app/com.visualstudio.code/config/Code/User/workspaceStorage/x/state.json',
      '.config/Code - OSS/User/globalStorage/x/state.json',
      '.cursor-server/data/User/globalStorage/x/state.json',
      'xdg/Windsurf/User/globalStorage/x/state.json',
    ];
    for (const f of files) {
      mkdirSync(join(home, f, '..'), { recursive: true });
      writeFileSync(join(home, f), JSON.stringify({ token: TOKEN }), { mode: 0o600 });
    }
    writeFileSync(join(home, 'plain.txt'), 'readable-marker\n');
    // Each path only as base64, decoded by the command itself: nothing for the classifier to ask about.
    const b64 = (p: string) => Buffer.from(join(home, p)).toString('base64');
    const command = [...files, 'plain.txt'].map((f) => `cat "$(printf %s ${b64(f)} | base64 -d)"`).join('; ');
    const model = writeScript(ws, 'cat.json', { responses: [{ toolCalls: [{ name: 'bash', arguments: { command } }] }, { chunks: ['read it'] }] });
    const r = spawnSync(process.execPath, [CHIMERA, 'ferret', 'exec', '--cwd', ws, '--json', '--sandbox', 'workspace-write', '--approval', 'full-auto', '--model', `scripted:${model}`, 'show me'], {
      env: { ...process.env, CHIMERA_HOME: chimeraHome, HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), FERRET_LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    // The command ran (the plain file was read), and none of the token copies came out.
    expect(r.stdout).toContain('readable-marker');
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });
});
