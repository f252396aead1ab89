import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { COMMIT, VERSION } from '../../src/shared/version.js';

/** The value of the unlabelled series `name`, or of `name{labels}`; undefined when absent. */
function sample(text: string, name: string, labels?: string): number | undefined {
  const head = labels === undefined ? `${name} ` : `${name}{${labels}} `;
  const line = text.split('\n').find((l) => l.startsWith(head));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

// DESIGN §14.17: the build and the database's reachability are metrics, and a real scrape passes
// Debian's `promtool check metrics` with nothing to report (npm test installs the prometheus package).
describe('the metrics of a release', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
    // Some traffic first, so the request series are in the scrape too.
    await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  }, 60_000);
  afterAll(() => server?.close());

  const scrape = async () => {
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    return res.text();
  };

  it('passes promtool check metrics with nothing to report', async () => {
    const text = await scrape();
    const r = await execa('/usr/bin/promtool', ['check', 'metrics'], { input: text, reject: false });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    // The Node.js defaults are there, without the gauges promtool rejects for their `_total` suffix.
    expect(text).toContain('nodejs_active_handles ');
    expect(text).not.toMatch(/^nodejs_active_\w+_total/m);
  });

  it('exports voxctl_build_info{version,commit} 1 and voxctl_db_up', async () => {
    const text = await scrape();
    expect(sample(text, 'voxctl_build_info', `version="${VERSION}",commit="${COMMIT ?? 'unknown'}"`)).toBe(1);
    // 0 while the database is away: test/scale/database-outage.test.ts stops a real cluster.
    expect(sample(text, 'voxctl_db_up')).toBe(1);
  });
});
