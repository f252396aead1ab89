/**
 * Which IP addresses a server-side fetch may reach (SSRF defence, DESIGN §4.11): loopback, private,
 * link-local, CGNAT, multicast, unspecified, broadcast, reserved and cloud-metadata ranges are refused,
 * including IPv4 hidden inside IPv6 (mapped, compatible, NAT64, 6to4).
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const V4_BLOCKED: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local/cloud metadata'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved/broadcast'],
];
const V6_BLOCKED: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['100::', 64, 'discard'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

function buildList(): Map<string, BlockList> {
  const lists = new Map<string, BlockList>();
  for (const [net, prefix, why] of V4_BLOCKED) {
    const l = lists.get(why) ?? new BlockList();
    l.addSubnet(net, prefix, 'ipv4');
    lists.set(why, l);
  }
  for (const [net, prefix, why] of V6_BLOCKED) {
    const l = lists.get(why) ?? new BlockList();
    l.addSubnet(net, prefix, 'ipv6');
    lists.set(why, l);
  }
  return lists;
}
const LISTS = buildList();

/** Expands an IPv6 address to its eight 16-bit groups (accepts an embedded dotted IPv4 tail). */
function ipv6Groups(address: string): number[] {
  let a = address.toLowerCase().replace(/%.*$/, '');
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (v4) {
    const [p, q, r, s] = (v4[1] as string).split('.').map(Number) as [number, number, number, number];
    a = a.slice(0, -(v4[1] as string).length) + `${((p << 8) | q).toString(16)}:${((r << 8) | s).toString(16)}`;
  }
  const [head, tail] = a.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64, 6to4), if any. */
export function embeddedIPv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(5) && g[5] === 0xffff) return v4(g[6] as number, g[7] as number); // ::ffff:0:0/96
  if (zeros(6) && ((g[6] as number) !== 0 || (g[7] as number) > 1)) return v4(g[6] as number, g[7] as number); // ::/96 (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4(g[6] as number, g[7] as number); // 64:ff9b::/96
  if (g[0] === 0x2002) return v4(g[1] as number, g[2] as number); // 2002::/16
  return undefined;
}

/** Why `address` must not be fetched (e.g. `loopback`), or undefined when it is a public address. */
export function blockedReason(address: string): string | undefined {
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
  if (!family) return 'not an IP address';
  if (family === 'ipv6') {
    const inner = embeddedIPv4(address);
    if (inner) return blockedReason(inner);
  }
  for (const [why, list] of LISTS) if (list.check(address, family)) return why;
  return undefined;
}
