import { describe, expect, it } from 'vitest';
import { decodeRelayFrame, encodeRelayFrame, pairingUrl, RELAY_OP, relayUrlProblem } from './bridge.js';

describe('bridge vocabulary', () => {
  it.each([
    ['wss://relay.example.com', undefined],
    ['wss://relay.example.com:8443', undefined],
    ['ws://127.0.0.1:9000', undefined],
    ['ws://localhost:9000', undefined],
    ['ws://[::1]:9000', undefined],
    ['ws://relay.example.com', /only to a loopback relay; use wss:\/\/relay\.example\.com/],
    ['ws://10.0.0.5:80', /only to a loopback relay/],
    ['https://relay.example.com', /must start with wss:\/\//],
    ['relay.example.com', /not a URL/],
  ])('relay %s → %s', (url, problem) => {
    const got = relayUrlProblem(url);
    if (problem === undefined) expect(got).toBeUndefined();
    else expect(got).toMatch(problem);
  });

  it('a pairing link is the relay over http(s) with the secret in the fragment only', () => {
    expect(pairingUrl('wss://relay.example.com:8443', 'R'.repeat(22), 'S'.repeat(43))).toBe(`https://relay.example.com:8443/#pair=${'R'.repeat(22)}.${'S'.repeat(43)}`);
    expect(pairingUrl('ws://127.0.0.1:9000', 'r', 's')).toBe('http://127.0.0.1:9000/#pair=r.s');
  });

  it('relay frames round-trip and anything else is not one', () => {
    const f = encodeRelayFrame(RELAY_OP.data, 0xfffffffe, Buffer.from('xyz'));
    expect(decodeRelayFrame(f)).toEqual({ op: RELAY_OP.data, cid: 0xfffffffe, payload: Buffer.from('xyz') });
    expect(decodeRelayFrame(encodeRelayFrame(RELAY_OP.open, 7))).toEqual({ op: RELAY_OP.open, cid: 7, payload: Buffer.alloc(0) });
    expect(decodeRelayFrame(Buffer.from([9, 0, 0, 0, 1]))).toBeUndefined();
    expect(decodeRelayFrame(Buffer.from([2, 0]))).toBeUndefined();
  });
});
