// web_fetch: a URL fetched by the server (not in the command sandbox: commands have no network),
// judged by the approval rules before anything leaves the machine (sandbox/net/web-policy.ts:
// asks under auto unless the host is in webFetch.allowDomains), with public addresses only unless
// webFetch.allowPrivate says otherwise, checked after DNS and on every hop (checked-lookup.ts).
import { z } from 'zod';
import { DEFAULT_WEB_CHOICE, fetchKey, judgeFetch } from '../../sandbox/index.js';
import { defineTool, fail, ok } from '../define.js';
import { AddressRefused, fetchPage } from './fetch-page.js';
import { isTextual, mediaType, pageText } from './page-text.js';

/** Characters of a page's text kept at most (the tool runner then cuts what the model sees, keeping the rest to page through). */
const MAX_TEXT = 1024 * 1024;

export const webFetchTool = defineTool({
  id: 'web_fetch',
  description:
    'Fetch a web page (http or https) and read it: HTML comes back as Markdown, text and JSON as they are. ' +
    'Use it for documentation, an issue or a page the person links. Give `prompt` to say what you are looking for in it. ' +
    'Only public addresses are fetched; a redirect to another host is reported, not followed: fetch that URL if you still need it.',
  schema: z.object({
    url: z.string().min(1).max(8192).describe('The full URL, http:// or https://'),
    prompt: z.string().max(2000).optional().describe('What you want to learn from the page (shown with the result)'),
  }),
  kind: 'fetch',
  effect: 'read',
  title: (a) => `Fetch ${a.url}`,
  approval: async (a, rules, _sandbox, host) => ({ key: fetchKey(a.url), judgement: judgeFetch(a.url, host?.web ?? DEFAULT_WEB_CHOICE, rules) }),
  async run(a, ctx) {
    const choice = ctx.facts.host.web;
    // The judgement runs again here: a call that reached run without the approval path (a test, a
    // future caller) still never fetches a scheme or a literal address the policy refuses.
    const j = judgeFetch(a.url, choice, { allow: [], ask: [], deny: [] });
    if (j.action === 'deny') return fail(`refused: ${j.reason}`);
    let got;
    try {
      got = await fetchPage(a.url, { choice, signal: ctx.signal, wanted: isTextual });
    } catch (err) {
      if (err instanceof AddressRefused) return fail(`refused: ${err.message}`);
      return fail(`could not fetch ${a.url}: ${describe(err)}`);
    }
    if (got.kind === 'redirect') {
      return ok(`${got.url} redirects (HTTP ${got.status}) to another host: ${got.location}\nIt was not followed. Call web_fetch with that URL if you still need the page.`);
    }
    if (got.kind === 'binary') {
      const size = got.length ? `, ${got.length} bytes` : '';
      return fail(`refused: ${got.url} is ${mediaType(got.contentType).mime || 'binary'}${size}; web_fetch returns text pages only (HTML, text, JSON, XML)`);
    }
    const page = await pageText(got.contentType, got.body);
    if (!page) return fail(`refused: ${got.url} sent binary content without a content type; web_fetch returns text pages only`);
    const text = page.text.length > MAX_TEXT ? `${page.text.slice(0, MAX_TEXT)}\n[… cut at ${MAX_TEXT} characters]` : page.text;
    const head = [
      `URL: ${got.url}`,
      `Status: ${got.status} ${got.statusText}`.trimEnd(),
      `Content-Type: ${got.contentType || '(none)'}${page.converted ? ' (shown as Markdown)' : ''}`,
      ...(got.cut ? [`Note: the body was cut at ${got.body.length} bytes`] : []),
      ...(a.prompt ? [`Looking for: ${a.prompt}`] : []),
    ];
    const output = `${head.join('\n')}\n\n${text}`;
    return got.status >= 400 ? { status: 'failed', output } : ok(output);
  },
});

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN') return `the host name does not resolve (${e.code})`;
  if (e?.code === 'ECONNREFUSED') return 'the connection was refused';
  if (e?.code === 'ECONNRESET') return 'the connection was reset';
  if (e?.code && /^ERR_TLS|CERT|SSL/.test(e.code)) return `TLS failed (${e.code}): ${e.message}`;
  return e instanceof Error ? e.message : String(err);
}
