import { describe, expect, it } from 'vitest';
import { allowedHosts, isLoopbackHost, tokenMatches } from './auth.js';

// Constant time is by construction (both sides hashed to 32 bytes, then timingSafeEqual); what a
// test can pin down is that every shape of header is answered, never thrown on, and only the
// exact token passes.
describe('Bearer token check', () => {
  const token = 'tok-0123456789abcdef';
  it.each([
    [`Bearer ${token}`, true],
    [`bearer ${token}`, true],
    [`Bearer  ${token} `, true],
    [`Bearer ${token.slice(0, -1)}x`, false], // same length, wrong
    [`Bearer ${token}x`, false],
    ['Bearer x', false],
    ['Bearer ', false],
    [`Basic ${token}`, false],
    [token, false],
    ['', false],
    [undefined, false],
  ])('%j → %s', (header, ok) => {
    expect(tokenMatches(header, token)).toBe(ok);
  });
});

describe('Host guard', () => {
  it('knows loopback binds', () => {
    expect(['127.0.0.1', 'localhost', '::1', '[::1]'].map(isLoopbackHost)).toEqual([true, true, true, true]);
    expect(isLoopbackHost('0.0.0.0')).toBe(false);
  });
  it('accepts only our own names with the bound port', () => {
    const hosts = allowedHosts('127.0.0.1', 5173);
    expect(hosts.has('127.0.0.1:5173')).toBe(true);
    expect(hosts.has('localhost:5173')).toBe(true);
    expect(hosts.has('evil.example:5173')).toBe(false);
    expect(hosts.has('localhost:5174')).toBe(false);
  });
});
