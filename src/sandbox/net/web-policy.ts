// What config.json's webFetch says of one URL: whether its host is allowed without asking
// (allowDomains) and whether it may be a private address (allowPrivate), and the judgement a
// web_fetch call gets before it runs. The addresses themselves are checked when the fetch
// connects (tools/web/), after DNS, on every hop; here only what needs no DNS: a call that names
// a private address outright is refused before anyone is asked.
import { isIP } from 'node:net';
import type { ToolJudgement } from '../../protocol/index.js';
import { findRule, type RuleSet } from '../policy/rules.js';
import { nonPublicReason } from './address.js';

/** config.json's webFetch. allowPrivate: true, or the hosts (names or addresses) that may be private. */
export interface WebChoice {
  allowDomains: readonly string[];
  allowPrivate: boolean | readonly string[];
}

export const DEFAULT_WEB_CHOICE: WebChoice = { allowDomains: [], allowPrivate: false };

/** The host of a URL as the fetch will use it: lower case, brackets off an IPv6 literal. */
export function hostOf(url: URL): string {
  const h = url.hostname.toLowerCase().replace(/\.$/, '');
  return h.startsWith('[') ? h.slice(1, -1) : h;
}

function bare(entry: string): string {
  const e = entry.trim().toLowerCase().replace(/\.$/, '');
  return e.startsWith('[') && e.endsWith(']') ? e.slice(1, -1) : e;
}

/** `example.com` (and `*.example.com`) matches example.com and every name under it; an address only itself. */
export function domainListed(host: string, list: readonly string[]): boolean {
  return list.some((entry) => {
    const d = bare(entry).replace(/^\*\./, '');
    return d !== '' && (host === d || (isIP(host) === 0 && host.endsWith(`.${d}`)));
  });
}

/** Whether config.json lets this host be fetched without asking (webFetch.allowDomains). */
export function domainAllowed(host: string, choice: WebChoice): boolean {
  return domainListed(host, choice.allowDomains);
}

/** Whether this host may resolve to (or be) a private address. */
export function privateAllowed(host: string, choice: WebChoice): boolean {
  return choice.allowPrivate === true || (Array.isArray(choice.allowPrivate) && domainListed(host, choice.allowPrivate));
}

/** Why this address may not be reached for this host, or undefined when it may. */
export function addressRefusal(host: string, address: string, choice: WebChoice): string | undefined {
  if (privateAllowed(host, choice)) return undefined;
  const why = nonPublicReason(address);
  return why ? `${address} is ${why}; web_fetch reaches public addresses only (config webFetch.allowPrivate)` : undefined;
}

/**
 * The judgement of one fetch: refused when the URL is not http(s) or names a non-public address
 * outright, or by a rule (`web_fetch`, `web_fetch(domain:*.example.com)`); allowed without asking
 * when its host is in allowDomains or an allow rule names it; else asked (the policy runs it under
 * full-auto, asks under auto and suggest). Never read-only: the URL itself carries whatever the
 * model puts in it to whoever runs the server, so suggest always asks.
 */
export function judgeFetch(raw: string, choice: WebChoice, rules: RuleSet): ToolJudgement {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { action: 'deny', risk: 'low', reason: `not a URL: ${JSON.stringify(raw.slice(0, 200))}`, readOnly: false };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { action: 'deny', risk: 'low', reason: `web_fetch fetches http and https URLs only, not ${url.protocol}`, readOnly: false };
  }
  if (url.username || url.password) {
    return { action: 'deny', risk: 'medium', reason: 'web_fetch does not send credentials written in a URL', readOnly: false };
  }
  const host = hostOf(url);
  if (isIP(host)) {
    const refusal = addressRefusal(host, host, choice);
    if (refusal) return { action: 'deny', risk: 'high', reason: refusal, readOnly: false };
  }
  const hit = findRule(rules, 'web_fetch', { path: `domain:${host}` });
  if (hit?.list === 'deny') return { action: 'deny', risk: 'medium', reason: `Rule ${hit.rule.text} refuses fetching from ${host}.`, rule: hit.rule.text, readOnly: false };
  if (hit?.list === 'ask') return { action: 'ask', risk: 'medium', reason: `Rule ${hit.rule.text} asks before fetching from ${host}.`, rule: hit.rule.text, readOnly: false };
  if (hit?.list === 'allow') return { action: 'allow', risk: 'low', reason: `Rule ${hit.rule.text} allows fetching from ${host}.`, rule: hit.rule.text, readOnly: false };
  if (domainAllowed(host, choice)) {
    return { action: 'allow', risk: 'low', reason: `${host} is in webFetch.allowDomains`, rule: 'webFetch.allowDomains', readOnly: false };
  }
  return { action: 'ask', risk: 'medium', reason: `Fetches ${url.origin} from the server (not in webFetch.allowDomains)`, readOnly: false };
}

/** The key a person's "always"/"never" for a fetch persists under: the host, as Claude Code's `domain:` rules. */
export function fetchKey(raw: string): string {
  try {
    return `domain:${hostOf(new URL(raw))}`;
  } catch {
    return `url:${raw}`;
  }
}
