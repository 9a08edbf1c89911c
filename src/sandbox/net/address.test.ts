import { describe, expect, it } from 'vitest';
import { nonPublicReason } from './address.js';

describe('nonPublicReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['0.0.0.0', 'this network'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback address in an IPv4-mapped'],
    ['::ffff:7f00:1', 'loopback address in an IPv4-mapped'],
    ['::ffff:169.254.169.254', 'link-local address (cloud metadata lives here) in an IPv4-mapped'],
    ['::ffff:0:10.0.0.1', 'private address in an IPv4-translated'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['64:ff9b::a9fe:a9fe', 'link-local address (cloud metadata lives here) in a NAT64'],
    ['2002:7f00:1::', 'loopback address in a 6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
  ])('%s is %s', (address, why) => {
    expect(nonPublicReason(address)).toContain(why);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '169.253.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])('%s is public', (address) => {
    expect(nonPublicReason(address)).toBeUndefined();
  });

  it('a name is not an address', () => {
    expect(nonPublicReason('localhost')).toBe('not an IP address');
  });
});
