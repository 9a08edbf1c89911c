// The DNS step of a fetch, with the address check inside it: the socket connects to exactly the
// addresses that were checked, so a name that answers a public address to a first lookup and
// 127.0.0.1 to a second (DNS rebinding) cannot slip past. Every address a name resolves to must
// pass; one private answer refuses the host.
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressRefusal, type WebChoice } from '../../sandbox/index.js';

/** A fetch refused by the address rule (not a network failure: the model should not retry it). */
export class AddressRefused extends Error {}

type Answer = { address: string; family: number };

export function checkedLookup(host: string, choice: WebChoice): LookupFunction {
  return ((hostname: string, options: { family?: number | string; all?: boolean }, callback: (err: Error | null, address?: string | Answer[], family?: number) => void) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, answers) => {
      if (err) return callback(err);
      for (const a of answers) {
        const refusal = addressRefusal(host, a.address, choice);
        if (refusal) return callback(new AddressRefused(`${hostname} resolves to ${refusal}`));
      }
      const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
      const usable = family ? answers.filter((a) => a.family === family) : answers;
      const first = usable[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }));
      if (options.all) return callback(null, usable);
      return callback(null, first.address, first.family);
    });
  }) as unknown as LookupFunction;
}
