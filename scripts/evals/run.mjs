#!/usr/bin/env node
// An example CI evals harness: the "CI bot" of ide.md. Starts ferret over HTTP, runs every task
// in scripts/evals/tasks/*.json in its own temp workspace while following the session's SSE
// stream, checks the outcome and prints one row a task: pass/fail, cost, duration.
// Exit code 0 only when every task passes. See scripts/evals/README.md.
// It talks to ferret only through the typed client (clients/typescript: typed calls, an SSE
// iterator that resumes and deduplicates); spawning and temp folders are test/support/*.mjs.
//
//   node scripts/evals/run.mjs [--tasks DIR] [--work-dir DIR] [--only NAME[,NAME]] [--bin PATH] [--keep] [--json FILE]
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFerretClient } from '../../clients/typescript/src/index.mjs';
import { listeningUrl } from '../../test/support/http.mjs';
import { scratchRoot } from '../../test/support/scratch.mjs';
import { CHIMERA, exitOnSignals, spawnFerret, stopChild } from '../../test/support/spawn.mjs';
import { StderrLog } from '../../test/support/stderr-log.mjs';
import { removeDir, tempDir } from '../../test/support/temp.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  // Work folders must not sit under /tmp, /var/tmp or /run (see scratchRoot): made only when no --work-dir is given.
  const o = { workDir: undefined, tasks: join(HERE, 'tasks'), bin: CHIMERA, only: undefined, keep: false, json: undefined, timeoutMs: 30_000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--tasks') o.tasks = resolve(next());
    else if (a === '--bin') o.bin = resolve(next());
    else if (a === '--work-dir') o.workDir = resolve(next());
    else if (a === '--only') o.only = next().split(',');
    else if (a === '--json') o.json = resolve(next());
    else if (a === '--timeout-ms') o.timeoutMs = Number(next());
    else if (a === '--keep') o.keep = true;
    else if (a === '-h' || a === '--help') {
      process.stdout.write('usage: node scripts/evals/run.mjs [--tasks DIR] [--work-dir DIR] [--only NAME[,NAME]] [--bin PATH] [--timeout-ms N] [--keep] [--json FILE]\n');
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  o.workDir ??= scratchRoot('evals');
  return o;
}

// ---------------------------------------------------------------- the server

/** Spawns `chimera ferret serve --http --no-stdio --port 0` and learns its URL from the `listening` log line. */
async function startServer(bin, home, token) {
  const child = spawnFerret(['--http', '--no-stdio', '--port', '0', '--approval', 'full-auto'], {
    bin,
    env: { CHIMERA_HOME: home, FERRET_SERVER_TOKEN: token, FERRET_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log = new StderrLog(child.stderr);
  const url = await listeningUrl(log).catch((e) => {
    child.kill('SIGKILL');
    throw e;
  });
  return { url, stop: () => stopChild(child, 'SIGTERM'), stderr: () => log.text };
}

/**
 * Follows GET /session/:id/events with the typed client's iterator (it reconnects with
 * Last-Event-ID and never repeats a frame); resolves once the stream is live, so nothing after
 * it is missed. `frames` fills as they come; `result(turnId, ms)` waits for that turn's result.
 */
async function followEvents(client, sessionId) {
  const stream = client.events(sessionId, { retryMs: 200 });
  await stream.opened; // a FerretHttpError (404, 401) when it cannot open
  const frames = [];
  const waiters = new Set();
  let failed;
  const settle = () => {
    for (const w of waiters) w();
  };
  void (async () => {
    try {
      for await (const f of stream) {
        frames.push(f);
        settle();
      }
    } catch (e) {
      failed = e;
      settle();
    }
  })();
  const result = (turnId, timeoutMs) =>
    new Promise((resolve, reject) => {
      let t;
      const check = () => {
        const r = frames.find((f) => f.event === 'result' && f.data.turnId === turnId);
        if (!r && !failed) return;
        clearTimeout(t);
        waiters.delete(check);
        if (r) resolve(r.data);
        else reject(failed);
      };
      t = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`turn did not end within ${timeoutMs} ms (no result frame on the stream)`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return { frames, result, close: () => stream.close() };
}

// ---------------------------------------------------------------- tasks

function loadTasks(dir, only) {
  if (!existsSync(dir)) throw new Error(`no tasks folder ${dir}`);
  const tasks = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const t = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      t.name ??= f.replace(/\.json$/, '');
      for (const k of ['prompt', 'model', 'checks']) if (t[k] === undefined) throw new Error(`${f}: missing "${k}"`);
      if (!Array.isArray(t.checks)) throw new Error(`${f}: "checks" must be an array`);
      return t;
    });
  const picked = only ? tasks.filter((t) => only.includes(t.name)) : tasks;
  if (picked.length === 0) throw new Error(`no tasks to run in ${dir}${only ? ` matching ${only.join(',')}` : ''}`);
  return picked;
}

/** Paths in checks are relative to the task's workspace (they may climb out of it, e.g. "../outside.txt"). */
const wsPath = (ws, p) => (isAbsolute(p) ? p : resolve(ws, p));

/** One check against what the run produced; returns a failure message or null. */
function runCheck(c, run) {
  const { ws, frames, answer } = run;
  const events = frames.filter((f) => f.event === 'loop_event').map((f) => f.data);
  const toolEnds = events.filter((e) => e.kind === 'tool_call_end');
  const toolOf = (id) => events.find((e) => e.kind === 'tool_call_start' && e.id === id)?.tool;
  switch (c.type) {
    case 'file': {
      const p = wsPath(ws, c.path);
      if (!existsSync(p)) return `file ${c.path} does not exist`;
      const text = readFileSync(p, 'utf8');
      if (c.equals !== undefined && text !== c.equals) return `file ${c.path} is ${JSON.stringify(text)}, expected ${JSON.stringify(c.equals)}`;
      if (c.contains !== undefined && !text.includes(c.contains)) return `file ${c.path} does not contain ${JSON.stringify(c.contains)}`;
      if (c.notContains !== undefined && text.includes(c.notContains)) return `file ${c.path} still contains ${JSON.stringify(c.notContains)}`;
      return null;
    }
    case 'no_file':
      return existsSync(wsPath(ws, c.path)) ? `file ${c.path} exists but must not` : null;
    case 'final_text': {
      const text = answer?.message?.text ?? '';
      if (c.matches !== undefined && !new RegExp(c.matches, c.flags ?? '').test(text)) return `final text ${JSON.stringify(text)} does not match /${c.matches}/`;
      if (c.equals !== undefined && text !== c.equals) return `final text ${JSON.stringify(text)} is not ${JSON.stringify(c.equals)}`;
      return null;
    }
    case 'stop_reason':
      return answer?.stopReason === c.equals ? null : `stopReason ${answer?.stopReason} is not ${c.equals}`;
    case 'tool_result': {
      // Every call of `tool` (or the n-th with `index`) ended with this status / exit code / output.
      const ends = toolEnds.filter((e) => c.tool === undefined || toolOf(e.id) === c.tool);
      const picked = c.index !== undefined ? [ends[c.index]].filter(Boolean) : ends;
      if (picked.length === 0) return `no ${c.tool ?? 'tool'} call ended`;
      for (const e of picked) {
        const r = e.result ?? {};
        if (c.status !== undefined && r.status !== c.status) return `${toolOf(e.id)} ${e.id} ended ${r.status}, expected ${c.status} (output: ${JSON.stringify(String(r.output ?? '').slice(0, 200))})`;
        if (c.exitCode !== undefined && r.exitCode !== c.exitCode) return `${toolOf(e.id)} ${e.id} exit code ${r.exitCode}, expected ${c.exitCode}`;
        if (c.nonZeroExit && !(typeof r.exitCode === 'number' && r.exitCode !== 0)) return `${toolOf(e.id)} ${e.id} exit code ${r.exitCode}, expected a non-zero exit`;
        if (c.outputMatches !== undefined && !new RegExp(c.outputMatches).test(String(r.output ?? ''))) return `${toolOf(e.id)} ${e.id} output does not match /${c.outputMatches}/: ${JSON.stringify(String(r.output ?? '').slice(0, 200))}`;
      }
      return null;
    }
    case 'event': {
      // At least `min` (default 1) events of this kind whose fields include `where`; `max: 0` forbids them.
      // A `path` matches relative or absolute (events carry real absolute paths).
      const same = (k, v, e) => (k === 'path' && typeof v === 'string' && typeof e[k] === 'string' ? wsPath(ws, v) === wsPath(ws, e[k]) : e[k] === v);
      const hits = events.filter((e) => e.kind === c.kind && Object.entries(c.where ?? {}).every(([k, v]) => same(k, v, e)));
      if (c.max !== undefined && hits.length > c.max) return `${hits.length} ${c.kind} event(s), at most ${c.max} allowed`;
      if (hits.length < (c.min ?? (c.max === 0 ? 0 : 1))) return `expected a ${c.kind} event${c.where ? ` with ${JSON.stringify(c.where)}` : ''}, got none`;
      return null;
    }
    case 'max_cost_usd':
      return run.costUsd <= c.value ? null : `cost $${run.costUsd} is over $${c.value}`;
    default:
      return `unknown check type ${JSON.stringify(c.type)}`;
  }
}

async function runTask(task, ctx) {
  const started = Date.now();
  const root = tempDir(task.name, { parent: ctx.workDir, removeAtExit: !ctx.keep });
  const ws = join(root, 'workspace');
  mkdirSync(ws);
  for (const [p, content] of Object.entries(task.files ?? {})) {
    mkdirSync(dirname(join(ws, p)), { recursive: true });
    writeFileSync(join(ws, p), content);
  }
  // The scripted model lives next to the workspace, not in it, so the agent's tools never see it.
  const modelPath = join(root, 'model.json');
  writeFileSync(modelPath, JSON.stringify(task.model, null, 2));
  const run = { ws, frames: [], answer: undefined, costUsd: 0 };
  const failures = [];
  let events;
  try {
    // Any non-2xx answer throws a FerretHttpError naming the call, status and error code: the task fails with it.
    const s = await ctx.client.createSession({ cwd: ws, model: `scripted:${modelPath}`, ...(task.approval ? { approval: task.approval } : {}) });
    events = await followEvents(ctx.client, s.sessionId);
    run.frames = events.frames;
    // ?wait=false: the turn is followed on the stream, whose `result` frame is the answer (no
    // request is held open for the whole turn, however long a real model takes).
    const { turnId } = await ctx.client.sendMessage(s.sessionId, task.prompt, { wait: false });
    run.answer = await events.result(turnId, task.timeoutMs ?? ctx.timeoutMs);
    const costs = events.frames.filter((f) => f.event === 'loop_event' && f.data.kind === 'cost_update');
    const state = await ctx.client.getSession(s.sessionId);
    run.costUsd = costs.length ? costs[costs.length - 1].data.total_usd : (state.costUsd ?? 0);
    if (costs.length && Math.abs(run.costUsd - state.costUsd) > 1e-9) failures.push(`cost_update says $${run.costUsd} but the session state says $${state.costUsd}`);
    for (const c of task.checks) {
      const why = runCheck(c, run);
      if (why) failures.push(why);
    }
  } catch (e) {
    failures.push(e instanceof Error ? e.message : String(e));
  } finally {
    events?.close();
    if (!ctx.keep) removeDir(root);
  }
  return { name: task.name, pass: failures.length === 0, costUsd: run.costUsd, durationMs: Date.now() - started, stopReason: run.answer?.stopReason, failures, root };
}

// ---------------------------------------------------------------- report

function table(results) {
  const rows = [['task', 'result', 'cost (USD)', 'duration'], ...results.map((r) => [r.name, r.pass ? 'pass' : 'FAIL', r.costUsd.toFixed(6), `${r.durationMs} ms`])];
  const total = results.reduce((a, r) => a + r.costUsd, 0);
  rows.push(['total', `${results.filter((r) => r.pass).length}/${results.length} pass`, total.toFixed(6), `${results.reduce((a, r) => a + r.durationMs, 0)} ms`]);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => (i >= 2 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const sep = `|${widths.map((w, i) => (i >= 2 ? '-'.repeat(w + 1) + ':' : '-'.repeat(w + 2))).join('|')}|`;
  return [line(rows[0]), sep, ...rows.slice(1, -1).map(line), sep, line(rows[rows.length - 1])].join('\n') + '\n';
}

async function main() {
  exitOnSignals();
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(opts.bin)) throw new Error(`${opts.bin} not found: run "npm run build" first`);
  const tasks = loadTasks(opts.tasks, opts.only);
  mkdirSync(opts.workDir, { recursive: true });
  const home = tempDir('evals-home', { removeAtExit: !opts.keep });
  const token = randomBytes(24).toString('hex');
  const server = await startServer(opts.bin, home, token);
  const results = [];
  try {
    const ctx = { client: createFerretClient({ baseUrl: server.url, token }), keep: opts.keep, timeoutMs: opts.timeoutMs, workDir: opts.workDir };
    await ctx.client.health();
    for (const task of tasks) results.push(await runTask(task, ctx));
  } finally {
    const code = await server.stop();
    if (code !== 0) process.stderr.write(`ferret exited with ${code}; stderr:\n${server.stderr()}`);
    if (!opts.keep) removeDir(home);
    else process.stderr.write(`kept CHIMERA_HOME ${home}\n`);
  }
  process.stdout.write(table(results));
  for (const r of results.filter((x) => !x.pass)) {
    process.stdout.write(`\nFAIL ${r.name}${opts.keep ? ` (kept ${r.root})` : ''}\n${r.failures.map((f) => `  - ${f}`).join('\n')}\n`);
  }
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ results: results.map(({ root: _root, ...r }) => r) }, null, 2) + '\n');
  return results.every((r) => r.pass) ? 0 : 1;
}

main().then(
  (code) => (process.exitCode = code),
  (e) => {
    process.stderr.write(`evals: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 2;
  },
);
