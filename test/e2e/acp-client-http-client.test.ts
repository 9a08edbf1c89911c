// Third-party client: acp-http-client 0.4 (npm; Sandbox Agent's "ACP over streamable HTTP" client).
// It speaks another HTTP profile than the SDK's draft that /acp serves: one POST/GET endpoint and no
// Acp-Connection-Id / Acp-Session-Id headers sent back. This pins what its user sees against /acp
// today (initialize answers; the next request is refused and the process dies), so a change on
// either side shows up here. It runs in its own process (test/fixtures/acp-http-client-run.mjs).
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { v1PerTest } from '../support/acp-v1-client.js';
import { V1HttpClient } from '../support/acp-v1-http-client.js';
import { writeScript } from '../support/temp.mjs';

const RUN = resolve(import.meta.dirname, '../fixtures/acp-http-client-run.mjs');

describe('acp-http-client against /acp', () => {
  const { env, start, adopt } = v1PerTest();

  it('initializes, then session/new is refused (HTTP 400: no Acp-Connection-Id) and the client dies, while the SDK client on the same server works', async () => {
    const model = writeScript(env.ws, 'model.json', { responses: [{ chunks: ['hi'] }] });
    const ed = start(['--model', `scripted:${model}`, '--http', '--port', '0'], { FERRET_LOG_LEVEL: 'info' });
    const url = await ed.httpUrl();
    const run = await new Promise<{ code: number | null; out: string; err: string }>((done) => {
      const child = execFile(process.execPath, [RUN, url, env.ws], { timeout: 20_000 }, (e, out, err) =>
        done({ code: e ? ((e as { code?: number }).code ?? null) : 0, out, err }),
      );
      child.stdin?.end();
    });
    const steps = run.out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(steps[0]).toMatchObject({ step: 'post', status: 200, connectionId: expect.any(String) }); // offered, never sent back
    expect(steps[1]).toMatchObject({ step: 'initialized', protocolVersion: 1, loadSession: true });
    expect(steps[2]).toMatchObject({ step: 'post', status: 400, body: 'Missing Acp-Connection-Id' });
    expect(run.err).toContain('AcpHttpError: Request failed with status 400');
    expect(run.code).not.toBe(0); // the client's own unhandled rejection ends its process

    // The server is fine: the SDK's own HTTP client does the whole thing on the same endpoint.
    const h = adopt(new V1HttpClient(url));
    await h.initialize();
    const { sessionId } = await h.agent.request('session/new', { cwd: env.ws, mcpServers: [] });
    expect((await h.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'x' }] })).stopReason).toBe('end_turn');
    expect(h.schemaErrors()).toEqual([]);
  });
});
