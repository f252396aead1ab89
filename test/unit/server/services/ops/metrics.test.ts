import { describe, expect, it } from 'vitest';
import { coreDb } from '../../../../helpers/core-db.js';
import { createMetrics } from '../../../../../src/server/features/ops/metrics.js';

/** The value of `name{labels}` in the exposition text, or undefined when the series is absent. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('metrics', () => {
  it('counts answered requests per method, route and status exactly, scrape after scrape', async () => {
    const metrics = createMetrics({ db: coreDb() });
    const series = 'method="GET",route="/v1/users/me",status="200"';
    for (let i = 0; i < 3; i++) metrics.observeRequest('GET', '/v1/users/me', 200, 0.0004);
    metrics.observeRequest('GET', '/v1/users/me', 401, 0.0002);
    metrics.observeRequest('POST', '/v1/tts', 200, 0.2);
    let text = await metrics.render();
    expect(sample(text, 'voxctl_http_requests_total', series)).toBe(3);
    expect(sample(text, 'voxctl_http_requests_total', 'method="GET",route="/v1/users/me",status="401"')).toBe(1);
    expect(sample(text, 'voxctl_http_requests_total', 'method="POST",route="/v1/tts",status="200"')).toBe(1);
    // A scrape with nothing new repeats the totals; new requests add to them (a counter never goes back).
    expect(sample(await metrics.render(), 'voxctl_http_requests_total', series)).toBe(3);
    for (let i = 0; i < 2; i++) metrics.observeRequest('GET', '/v1/users/me', 200, 0.003);
    text = await metrics.render();
    expect(sample(text, 'voxctl_http_requests_total', series)).toBe(5);
    expect(sample(text, 'voxctl_http_request_duration_seconds_count', 'method="GET",route="/v1/users/me"')).toBe(6);
    expect(sample(text, 'voxctl_http_request_duration_seconds_bucket', 'le="0.001",method="GET",route="/v1/users/me"')).toBe(4);
  });
});
