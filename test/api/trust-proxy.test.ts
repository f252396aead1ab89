import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, manualClock } from '../helpers/core-http.js';
import { parseTrustedProxies } from '../../src/shared/proxy-addresses.js';

// Behind a reverse proxy every connection comes from the proxy: --trust-proxy names it, so the per-IP
// limit of anonymous callers (DESIGN §4.14) counts clients, not the proxy.
const anonymous = (s: TestServer, forwardedFor?: string) =>
  call(s, 'GET', '/v1/speakers?limit=1', forwardedFor ? { headers: { 'x-forwarded-for': forwardedFor } } : {});

describe('--trust-proxy', () => {
  let behindProxy: TestServer;
  let direct: TestServer;
  beforeAll(async () => {
    // A stopped clock: 61 requests on the wall clock could straddle a minute and find a fresh window.
    behindProxy = await startTestServer({ options: { trustProxy: ['127.0.0.1'] }, clock: manualClock('2025-03-10T12:00:15Z') });
    direct = await startTestServer({ clock: manualClock('2025-03-10T12:00:15Z') });
  });
  afterAll(async () => {
    await behindProxy.close();
    await direct.close();
  });

  it('counts anonymous callers by X-Forwarded-For when the connection is from a trusted proxy', async () => {
    for (let i = 0; i < 60; i++) expect((await anonymous(behindProxy, '198.51.100.7')).status).toBe(200);
    expect((await anonymous(behindProxy, '198.51.100.7')).status).toBe(429);
    // Another client behind the same proxy has a bucket of its own.
    const other = await anonymous(behindProxy, '198.51.100.8');
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('ignores X-Forwarded-For from anyone else: a client cannot pick its own bucket', async () => {
    for (let i = 0; i < 60; i++) expect((await anonymous(direct, `203.0.113.${i}`)).status).toBe(200);
    expect((await anonymous(direct, '203.0.113.200')).status).toBe(429);
  });

  it('parses addresses and CIDR ranges, and names a bad entry', () => {
    expect(parseTrustedProxies('10.0.0.1, 10.1.0.0/16,fd00::/8')).toEqual({ proxies: ['10.0.0.1', '10.1.0.0/16', 'fd00::/8'] });
    expect(parseTrustedProxies('10.0.0.0/33')).toEqual({ problem: "--trust-proxy: not an IP address or CIDR range: '10.0.0.0/33'" });
    expect(parseTrustedProxies('proxy.internal')).toEqual({ problem: "--trust-proxy: not an IP address or CIDR range: 'proxy.internal'" });
    expect(parseTrustedProxies(' , ')).toEqual({ problem: '--trust-proxy needs at least one address or CIDR range' });
  });
});
