// Checks a running ferret container from outside, over its published HTTP port (build-and-check.sh
// starts the containers). No dependencies: Node's fetch and fs only.
//
//   node check.mjs session URL TOKEN HOST_WORKSPACE UID GID   # prints the new session id on stdout
//   node check.mjs survived URL TOKEN SESSION_ID
//
// `session`: /health answers without a token, a route without it is 401, and a scripted session in
// the bind-mounted /workspace writes a file (owned by UID:GID on the host) and runs a bash command
// that must have run inside bubblewrap (PID 1 of its PID namespace is bwrap, the workspace is
// writable, the network is loopback only). `survived`: a new container on the same /data volume
// lists that session and its turn. Each failure is one line on stderr and exit code 1.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [phase, url, token, ...rest] = process.argv.slice(2);
const auth = { authorization: `Bearer ${token}` };
const SCRIPT = '.ferret-image-check.json';
// The workspace as the server sees it (a run on the host, without a container, passes the host path).
const CWD = process.env.CHECK_CWD ?? '/workspace';

function fail(msg) {
  process.stderr.write(`check failed: ${msg}\n`);
  process.exit(1);
}

function ok(msg) {
  process.stderr.write(`  ok  ${msg}\n`);
}

async function call(method, path, { body, headers = auth, timeoutMs = 30_000 } = {}) {
  const res = await fetch(url + path, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  }).catch((err) => fail(`${method} ${path}: ${err.cause?.message ?? err.message}`));
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

function expectStatus(res, status, what) {
  if (res.status !== status) fail(`${what}: HTTP ${res.status}, expected ${status}: ${res.text.slice(0, 300)}`);
}

/** The session's whole SSE history (Last-Event-ID: 0) up to its first `result` frame. */
async function replay(id) {
  const res = await fetch(`${url}/session/${id}/events`, {
    headers: { ...auth, 'last-event-id': '0', accept: 'text/event-stream' },
    signal: AbortSignal.timeout(20_000),
  }).catch((err) => fail(`GET /session/${id}/events: ${err.message}`));
  if (res.status !== 200) fail(`GET /session/${id}/events: HTTP ${res.status}`);
  const events = [];
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body) {
    buf += decoder.decode(chunk, { stream: true });
    let cut;
    while ((cut = buf.indexOf('\n\n')) !== -1) {
      const frame = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = /^data: (.*)$/m.exec(frame)?.[1];
      if (event === undefined || data === undefined) continue;
      events.push({ event, data: JSON.parse(data) });
      if (event === 'result') {
        await res.body.cancel().catch(() => {});
        return events;
      }
    }
  }
  fail('the event stream ended before the turn\'s result frame');
}

async function sessionPhase([hostWorkspace, uid, gid]) {
  const health = await call('GET', '/health', { headers: {} });
  expectStatus(health, 200, 'GET /health');
  if (health.json?.ok !== true) fail(`GET /health: ${health.text}`);
  ok(`GET /health: ${health.text}`);

  const anon = await call('GET', '/session', { headers: {} });
  expectStatus(anon, 401, 'GET /session without a token');
  if (anon.json?.error?.code !== 'unauthorized') fail(`GET /session without a token: ${anon.text}`);
  const wrong = await call('GET', '/session', { headers: { authorization: `Bearer ${token}x` } });
  expectStatus(wrong, 401, 'GET /session with a wrong token');
  ok('401 unauthorized without the token and with a wrong one');

  const created = await call('POST', '/session', {
    body: { cwd: CWD, model: `scripted:${SCRIPT}`, approval: 'full-auto' },
  });
  expectStatus(created, 201, 'POST /session');
  const id = created.json.sessionId;
  if (created.json.sandbox !== 'workspace-write') fail(`POST /session: sandbox ${created.json.sandbox}, expected workspace-write`);
  ok(`POST /session: ${id} in ${CWD}, sandbox ${created.json.sandbox}`);

  const turn = await call('POST', `/session/${id}/message`, { body: { text: 'write hello.txt, then look around the sandbox' }, timeoutMs: 60_000 });
  expectStatus(turn, 200, 'POST /session/:id/message');
  if (turn.json.stopReason !== 'end_turn') fail(`the turn stopped with ${turn.json.stopReason}: ${turn.text}`);
  ok(`turn ended (${turn.json.stopReason}): ${JSON.stringify(turn.json.message.text)}`);

  const events = await replay(id);
  const ends = events.filter((e) => e.event === 'loop_event' && e.data.kind === 'tool_call_end');
  const starts = new Map(events.filter((e) => e.event === 'loop_event' && e.data.kind === 'tool_call_start').map((e) => [e.data.id, e.data.tool]));
  // Two bash calls: the look around (completed) and `touch /data/probe` (refused); they may end in either order.
  const byTool = (tool) => ends.find((e) => starts.get(e.data.id) === tool && (tool !== 'bash' || e.data.result.status !== 'denied'))?.data.result;
  for (const tool of ['write_file', 'bash']) {
    const result = byTool(tool);
    if (result === undefined) fail(`no ${tool} call ended; events: ${events.map((e) => e.data.kind ?? e.event).join(' ')}`);
    if (result.status !== 'completed') fail(`${tool}: ${result.status}: ${String(result.output).slice(0, 400)}`);
  }
  const bash = byTool('bash');
  if (bash.exitCode !== 0) fail(`bash exited ${bash.exitCode}: ${String(bash.output).slice(0, 400)}`);
  // A command that names /data (CHIMERA_HOME: ferret's state, a secret location) is refused before it runs.
  const probes = ends.filter((e) => starts.get(e.data.id) === 'bash' && e.data.result !== bash).map((e) => e.data.result);
  if (probes.length !== 1 || probes[0].status !== 'denied') fail(`touch /data/probe was not refused: ${JSON.stringify(probes)}`);
  ok(`write_file and bash completed; bash said ${JSON.stringify(String(bash.output).trim())}`);

  const hello = join(hostWorkspace, 'hello.txt');
  const st = statSync(hello, { throwIfNoEntry: false });
  if (st === undefined) fail(`${hello} was not written`);
  if (readFileSync(hello, 'utf8') !== 'hello from a container\n') fail(`${hello}: unexpected content`);
  if (String(st.uid) !== uid || String(st.gid) !== gid) fail(`${hello} is owned by ${st.uid}:${st.gid}, expected ${uid}:${gid}`);
  ok(`the host's workspace has hello.txt, owned by ${uid}:${gid}`);

  const report = readFileSync(join(hostWorkspace, 'sandbox.txt'), 'utf8');
  const field = (name) => new RegExp(`^${name}=(.*)$`, 'm').exec(report)?.[1];
  if (field('pid1') !== 'bwrap') fail(`bash did not run under bubblewrap: PID 1 of its namespace is ${field('pid1')}`);
  if (field('uid') !== uid) fail(`bash ran as uid ${field('uid')}, expected ${uid}`);
  if (field('net') !== 'lo') fail(`bash saw network interfaces ${field('net')}, expected only lo`);
  const sst = statSync(join(hostWorkspace, 'sandbox.txt'));
  if (String(sst.uid) !== uid) fail(`sandbox.txt is owned by ${sst.uid}, expected ${uid}`);
  ok('bash ran inside bubblewrap (PID 1 bwrap, own uid, loopback only) and wrote into /workspace; a command naming /data was refused before it ran');
  process.stdout.write(`${id}\n`);
}

async function survivedPhase([id]) {
  const health = await call('GET', '/health', { headers: {} });
  expectStatus(health, 200, 'GET /health (second container)');
  const list = await call('GET', '/session');
  expectStatus(list, 200, 'GET /session');
  const found = list.json.sessions.find((s) => s.sessionId === id);
  if (found === undefined) fail(`GET /session in a new container does not list ${id}: ${list.text.slice(0, 300)}`);
  const one = await call('GET', `/session/${id}`);
  expectStatus(one, 200, `GET /session/${id}`);
  if (!(one.json.turns >= 1)) fail(`GET /session/${id}: turns ${one.json.turns}, expected at least 1`);
  ok(`a new container on the same /data volume lists ${id} (${one.json.turns} turn, cwd ${found.cwd})`);
}

if (phase === 'session') await sessionPhase(rest);
else if (phase === 'survived') await survivedPhase(rest);
else fail(`unknown phase ${phase}; expected session or survived`);

