import { isIP } from 'node:net';

/**
 * Parses `--trust-proxy`: comma-separated IP addresses or CIDR ranges (`10.0.0.0/8`, `fd00::/8`). Returns
 * the list, or the message naming the first entry that is neither.
 */
export function parseTrustedProxies(value: string): { proxies: string[] } | { problem: string } {
  const proxies = value.split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (proxies.length === 0) return { problem: '--trust-proxy needs at least one address or CIDR range' };
  for (const p of proxies) {
    const [address, bits, extra] = p.split('/');
    const family = isIP(address ?? '');
    const max = family === 6 ? 128 : 32;
    const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
    if (!family || extra !== undefined || !validBits) return { problem: `--trust-proxy: not an IP address or CIDR range: '${p}'` };
  }
  return { proxies };
}
