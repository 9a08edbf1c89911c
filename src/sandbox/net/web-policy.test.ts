import { describe, expect, it } from 'vitest';
import { buildRuleSet } from '../policy/rules.js';
import { decide } from '../policy/policy.js';
import { addressRefusal, DEFAULT_WEB_CHOICE, domainListed, fetchKey, judgeFetch, type WebChoice } from './web-policy.js';

const rules = buildRuleSet({});
const allowing: WebChoice = { allowDomains: ['docs.example.com', '*.nodejs.org'], allowPrivate: false };

describe('judgeFetch', () => {
  it('asks for a host nobody allowed, allows one in allowDomains (and its subdomains)', () => {
    expect(judgeFetch('https://example.org/x', allowing, rules)).toMatchObject({ action: 'ask', readOnly: false });
    expect(judgeFetch('https://docs.example.com/a', allowing, rules)).toMatchObject({ action: 'allow', rule: 'webFetch.allowDomains' });
    expect(judgeFetch('https://api.docs.example.com/a', allowing, rules).action).toBe('allow');
    expect(judgeFetch('https://nodejs.org/en', allowing, rules).action).toBe('allow');
    expect(judgeFetch('https://evil-docs.example.com.attacker.net/', allowing, rules).action).toBe('ask');
    expect(judgeFetch('https://xdocs.example.com/', allowing, rules).action).toBe('ask');
  });

  it.each(['http://127.0.0.1:8080/', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.7/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://2130706433/', 'http://0x7f.1/', 'http://0/', 'http://[fe80::1]/'])(
    'refuses %s outright, before anyone is asked',
    (url) => {
      const j = judgeFetch(url, allowing, rules);
      expect(j).toMatchObject({ action: 'deny', risk: 'high' });
      expect(j.reason).toContain('webFetch.allowPrivate');
    },
  );

  it('an address in allowDomains is still refused when private (allowDomains is about asking, not about reach)', () => {
    expect(judgeFetch('http://127.0.0.1/', { allowDomains: ['127.0.0.1'], allowPrivate: false }, rules).action).toBe('deny');
    expect(judgeFetch('http://127.0.0.1/', { allowDomains: ['127.0.0.1'], allowPrivate: true }, rules).action).toBe('allow');
    expect(judgeFetch('http://127.0.0.1/', { allowDomains: [], allowPrivate: ['127.0.0.1'] }, rules).action).toBe('ask');
  });

  it('refuses other schemes, credentials in the URL and text that is no URL', () => {
    expect(judgeFetch('file:///etc/passwd', allowing, rules).reason).toContain('http and https');
    expect(judgeFetch('ftp://example.com/', allowing, rules).action).toBe('deny');
    expect(judgeFetch('https://user:pw@docs.example.com/', allowing, rules).action).toBe('deny');
    expect(judgeFetch('not a url', allowing, rules).reason).toContain('not a URL');
  });

  it('rules name hosts as domain:HOST', () => {
    const r = buildRuleSet({ deny: ['web_fetch(domain:*.bad.example)'], allow: ['web_fetch(domain:good.example)'], ask: ['web_fetch(domain:docs.example.com)'] });
    expect(judgeFetch('https://x.bad.example/', allowing, r).action).toBe('deny');
    expect(judgeFetch('https://good.example/', allowing, r).action).toBe('allow');
    expect(judgeFetch('https://docs.example.com/', allowing, r).action).toBe('ask');
    expect(judgeFetch('https://anything.example/', DEFAULT_WEB_CHOICE, buildRuleSet({ deny: ['web_fetch'] })).action).toBe('deny');
  });

  it('the policy: auto asks unless allowed, suggest always asks, full-auto fetches, a refusal says why', () => {
    const verdict = (url: string, preset: 'suggest' | 'auto' | 'full-auto', persisted?: 'always' | 'never') =>
      decide({ preset, tool: 'web_fetch', effect: 'read', rules, judgement: judgeFetch(url, allowing, rules), ...(persisted ? { persisted } : {}) });
    expect(verdict('https://example.org/', 'auto').action).toBe('ask');
    expect(verdict('https://docs.example.com/', 'auto').action).toBe('allow');
    expect(verdict('https://docs.example.com/', 'suggest').action).toBe('ask');
    expect(verdict('https://example.org/', 'full-auto').action).toBe('allow');
    expect(verdict('https://example.org/', 'auto', 'always').action).toBe('allow');
    expect(verdict('https://docs.example.com/', 'full-auto', 'never').action).toBe('deny');
    const refused = verdict('http://169.254.169.254/', 'full-auto', 'always');
    expect(refused.action).toBe('deny');
    expect(refused.reason).toContain('link-local');
  });
});

describe('hosts and keys', () => {
  it('the key is the host, so "always" covers that host only', () => {
    expect(fetchKey('https://Docs.Example.com./a?b')).toBe('domain:docs.example.com');
    expect(fetchKey('http://[::1]:3000/')).toBe('domain:::1');
  });
  it('domainListed matches whole labels, and an address only itself', () => {
    expect(domainListed('a.b.example', ['b.example'])).toBe(true);
    expect(domainListed('ab.example', ['b.example'])).toBe(false);
    expect(domainListed('10.0.0.1', ['0.0.1'])).toBe(false);
  });
  it('allowPrivate as a list lets only those hosts be private', () => {
    const c: WebChoice = { allowDomains: [], allowPrivate: ['wiki.corp'] };
    expect(addressRefusal('wiki.corp', '10.1.1.1', c)).toBeUndefined();
    expect(addressRefusal('other.corp', '10.1.1.1', c)).toContain('private');
    expect(addressRefusal('other.corp', '93.184.216.34', c)).toBeUndefined();
  });
});
