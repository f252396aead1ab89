// A hosted vendor's latency is the vendor's (DESIGN §15.4): it runs from the adapter's first request
// leaving to the answer, so the service's own work before the request (here: a credential lookup that
// keeps the thread busy, standing in for loading the HTTP client, resampling, encoding) is not counted.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runProvider } from '../../../../../src/server/features/stt/transcription.js';
import { createOpenAiAdapter } from '../../../../../src/server/engines/stt/openai.js';
import { decodeWavToPcm16 } from '../../../../../src/server/audio/wav.js';
import type { SttRegistry } from '../../../../../src/server/engines/stt/registry.js';

const WAV = readFileSync(new URL('../../../../../fixtures/speech-slt.wav', import.meta.url));
const decoded = decodeWavToPcm16(WAV);
const audio = { pcm: decoded.pcm, sampleRate: decoded.sampleRate, durationSeconds: decoded.pcm.length / decoded.sampleRate, wav: WAV };

/** Keeps this thread busy for `ms`, as CPU work on the event loop does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('runProvider on a hosted vendor', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // An OpenAI-compatible server on loopback answering at once.
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'please call me back' })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test('times from the request leaving: the adapter’s own work before it is not the vendor’s latency', async () => {
    // The adapter reads its credential before the request (twice: to require it, to scrub it): the last
    // read returns before anything is sent, so the request left after `prepared`.
    let prepared = 0;
    const adapter = createOpenAiAdapter({
      baseUrl: url,
      model: 'whisper-1',
      pollIntervalMs: 10,
      apiKeyEnv: 'VOXCTL_TEST_LATENCY_KEY',
      apiKey: () => {
        busy(150);
        prepared = performance.now();
        return 'sk-test';
      },
    });
    const registry: SttRegistry = { get: (id) => (id === 'stt-b' ? { adapter, timeoutMs: 30_000 } : undefined), states: () => [], close: async () => undefined };
    const result = await runProvider({ registry }, 'stt-b', audio, undefined);
    const done = performance.now();
    expect(result.transcript).toBe('please call me back');
    // latency = answer − sent with sent ≥ prepared and answer ≤ done, whatever the machine's speed.
    expect(result.latency_ms).toBeLessThanOrEqual(Math.round(done - prepared));
  });
});
