// ferret's frame cipher (node:crypto) against the remote side's (WebCrypto, clients/typescript/src/bridge.mjs):
// the same keys from the same nonces, frames sealed by one opened by the other, and every kind
// of tampering refused by both.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FrameCipher } from '../../../clients/typescript/src/bridge.mjs';
import { directionKey, FrameRefused, Opener, Sealer } from './crypto.js';

async function pair() {
  const secret = randomBytes(32);
  const cn = randomBytes(16);
  const sn = randomBytes(16);
  const browser = await FrameCipher.derive(new Uint8Array(secret), new Uint8Array(cn), new Uint8Array(sn));
  const server = { sealer: new Sealer(directionKey(secret, cn, sn, 's2c')), opener: new Opener(directionKey(secret, cn, sn, 'c2s')) };
  return { browser, server, secret, cn, sn };
}

describe('bridge frame cipher', () => {
  it('frames sealed on either side open on the other, in order', async () => {
    const { browser, server } = await pair();
    for (const text of ['one', 'two', '{"t":"req"}']) {
      const up = await browser.seal(new TextEncoder().encode(text));
      expect(server.opener.open(Buffer.from(up)).toString()).toBe(text);
      const down = server.sealer.seal(Buffer.from(text.toUpperCase()));
      expect(new TextDecoder().decode(await browser.open(new Uint8Array(down)))).toBe(text.toUpperCase());
    }
  });

  it('refuses a replayed, reordered, altered or foreign frame', async () => {
    const { browser, server, secret, cn } = await pair();
    const f0 = Buffer.from(await browser.seal(new TextEncoder().encode('a')));
    const f1 = Buffer.from(await browser.seal(new TextEncoder().encode('b')));
    expect(() => server.opener.open(f1)).toThrow(/out of order/);
    server.opener.open(f0);
    expect(() => server.opener.open(f0)).toThrow(/replayed/);
    const altered = Buffer.from(f1);
    altered[altered.length - 1]! ^= 0x80;
    expect(() => server.opener.open(altered)).toThrow(FrameRefused);
    expect(server.opener.open(f1).toString()).toBe('b'); // a refused frame moves nothing on
    // The other direction's key, or another connection's nonces, open nothing.
    const wrongDir = new Opener(directionKey(secret, cn, randomBytes(16), 'c2s'));
    expect(() => wrongDir.open(f0)).toThrow(/authentication/);
    const down = server.sealer.seal(Buffer.from('x'));
    down[10]! ^= 1;
    await expect(browser.open(new Uint8Array(down))).rejects.toThrow(/authentication/);
  });
});
