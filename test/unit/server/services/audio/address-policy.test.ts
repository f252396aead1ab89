import { describe, expect, test } from 'vitest';
import { blockedReason, embeddedIPv4 } from '../../../../../src/server/features/audio/address-policy.js';

describe('blockedReason', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'link-local/cloud metadata'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved/broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique local (private)'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local/cloud metadata'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:7f00:1::', 'loopback'],
  ])('%s → %s', (address, why) => {
    expect(blockedReason(address)).toBe(why);
  });

  test.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:93.184.216.34'])('%s is public', (address) => {
    expect(blockedReason(address)).toBeUndefined();
  });

  test('a host name is not an address', () => {
    expect(blockedReason('localhost')).toBe('not an IP address');
  });
});

describe('embeddedIPv4', () => {
  test('finds IPv4 in mapped, NAT64 and 6to4 addresses only', () => {
    expect(embeddedIPv4('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(embeddedIPv4('64:ff9b::c0a8:1')).toBe('192.168.0.1');
    expect(embeddedIPv4('2002:c0a8:101::1')).toBe('192.168.1.1');
    expect(embeddedIPv4('2606:4700::1111')).toBeUndefined();
    expect(embeddedIPv4('::1')).toBeUndefined();
  });
});
