// Which network addresses a server-side fetch may reach. Public unicast only, by default: a
// prompt injection must not turn web_fetch into a door to the user's intranet, the host's own
// services or a cloud metadata endpoint (169.254.169.254). IPv6 forms that carry an IPv4 address
// (mapped, compatible, NAT64, 6to4) are judged by the address they carry.
import { isIP } from 'node:net';

/** Why an address is not public (a short noun phrase), or undefined when it is. */
export function nonPublicReason(address: string): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const kind = isIP(bare.replace(/%.*$/, ''));
  if (kind === 4) return ipv4Reason(ipv4Bytes(bare));
  if (kind === 6) return ipv6Reason(ipv6Words(bare.replace(/%.*$/, '')));
  return 'not an IP address';
}

function ipv4Bytes(a: string): number[] {
  return a.split('.').map(Number);
}

/** RFC 6890 special-purpose IPv4 blocks a fetch has no business reaching. */
function ipv4Reason([a = 0, b = 0, c = 0]: number[]): string | undefined {
  if (a === 0) return 'the "this network" block 0.0.0.0/8';
  if (a === 127) return 'a loopback address';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'a private address';
  if (a === 169 && b === 254) return 'a link-local address (cloud metadata lives here)';
  if (a === 100 && b >= 64 && b <= 127) return 'a carrier-grade NAT address';
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return 'a reserved address';
  if (a === 198 && (b === 18 || b === 19)) return 'a benchmarking address';
  if ((a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) return 'a documentation address';
  if (a >= 224) return a < 240 ? 'a multicast address' : 'a reserved address';
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (a trailing dotted quad included). */
function ipv6Words(a: string): number[] {
  let text = a.toLowerCase();
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const [w, x, y, z] = ipv4Bytes(quad[1]!) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((w << 8) | x).toString(16)}:${((y << 8) | z).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

function ipv6Reason(w: number[]): string | undefined {
  const [w0 = 0, w1 = 0] = w;
  const zeroUpTo = (n: number) => w.slice(0, n).every((x) => x === 0);
  const v4 = (hi: number, lo: number) => ipv4Reason([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const carried = (hi: number, lo: number, form: string) => {
    const r = v4(hi, lo);
    return r ? `${r} in ${form}` : undefined;
  };
  if (zeroUpTo(8)) return 'the unspecified address ::';
  if (zeroUpTo(7) && w[7] === 1) return 'a loopback address';
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, deprecated) and ::ffff:0:a.b.c.d (translated).
  if (zeroUpTo(5) && w[5] === 0xffff) return carried(w[6]!, w[7]!, 'an IPv4-mapped IPv6 address');
  if (zeroUpTo(6)) return 'an IPv4-compatible IPv6 address';
  if (zeroUpTo(4) && w[4] === 0xffff && w[5] === 0) return carried(w[6]!, w[7]!, 'an IPv4-translated IPv6 address');
  if (w0 === 0x64 && w1 === 0xff9b) return w.slice(2, 6).every((x) => x === 0) ? carried(w[6]!, w[7]!, 'a NAT64 address') : 'a local NAT64 address';
  if (w0 === 0x2002) return carried(w1, w[2]!, 'a 6to4 address');
  if (w0 === 0x2001 && w1 === 0) return 'a Teredo address';
  if (w0 === 0x2001 && w1 === 0xdb8) return 'a documentation address';
  if (w0 === 0x100 && w1 === 0 && w[2] === 0 && w[3] === 0) return 'a discard-only address';
  if ((w0 & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((w0 & 0xffc0) === 0xfec0) return 'a site-local address';
  if ((w0 & 0xfe00) === 0xfc00) return 'a unique local (private) address';
  if ((w0 & 0xff00) === 0xff00) return 'a multicast address';
  return undefined;
}
