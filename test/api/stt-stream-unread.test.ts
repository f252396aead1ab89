// A client that stops reading its NDJSON answer while a vendor floods it with partials (DESIGN §17.5): the
// `voxctl serve` process holds at most 1 MB of unread answer, then closes the stream and the vendor's socket;
// its resident memory (VmRSS of /proc/PID/status) stays bounded.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { encodeWav } from '../../src/server/audio/wav.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { TEST_KEY } from '../helpers/server.js';
import { fakeProvidersConfig } from '../helpers/evaluations.js';
import { startFakeDeepgramLive, type FakeStreamingVendor } from '../helpers/fake-stt-streaming.js';
import { toneBurst } from '../helpers/streaming-audio.js';

let serve: ServeProcess;
let flood: FakeStreamingVendor;
let dg: FakeStreamingVendor;
let dir: string;
let audioUrl: string;

/** Resident memory of `pid` in bytes (VmRSS of /proc/PID/status). */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

beforeAll(async () => {
  // Sends a 32 KB partial every 1 ms from the first frame on, and never ends the stream.
  flood = await startFakeDeepgramLive({ mode: 'flood' });
  dg = await startFakeDeepgramLive({ script: [{ afterAudioMs: 1200, delayMs: 50, kind: 'final', text: 'Please call me.' }] });
  dir = mkdtempSync(join(tmpdir(), 'voxctl-stream-unread-'));
  const configPath = fakeProvidersConfig(dir, {
    'stt-b': { adapter: 'deepgram', model: 'nova-3', fake: dg },
    'stt-g': { adapter: 'deepgram', model: 'nova-3', fake: flood },
  });
  // The provider keys are in this process's environment (fakeProvidersConfig), which the child inherits.
  serve = await startServe(join(dir, 'data'), { args: ['--config', configPath] });
  const audio = toneBurst({ leadMs: 200, speechMs: 1000, tailMs: 300 });
  const form = new FormData();
  form.append('file', new Blob([encodeWav(audio.pcm, audio.sampleRate)]), 'burst.wav');
  const up = await fetch(`${serve.url}/v1/audio`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: form });
  expect(up.status).toBe(201);
  audioUrl = ((await up.json()) as { audio_url: string }).audio_url;
});

afterAll(async () => {
  await serve?.stop();
  await flood?.close();
  await dg?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('POST /v1/stt/stream to a client that never reads', () => {
  test('the server holds at most about 1 MB for it, then closes its stream and the vendor socket; RSS stays bounded', async () => {
    // A first stream loads what streaming loads (ws, the resampler): the idle figure is taken after it.
    const warm = await fetch(`${serve.url}/v1/stt/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ audio_url: audioUrl, providers: ['stt-b'] }),
    });
    expect(await warm.text()).toContain('"event":"done"');
    const pid = serve.proc.pid!;
    const idle = rssOf(pid);

    // The request is written whole, then the client never reads a byte of the answer.
    const { port, hostname } = new URL(serve.url);
    const body = JSON.stringify({ audio_url: audioUrl, providers: ['stt-g'] });
    const client: Socket = connect(Number(port), hostname);
    client.pause();
    let closed = false;
    client.on('close', () => (closed = true));
    client.on('error', () => undefined);
    client.write(
      `POST /v1/stt/stream HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: Bearer ${TEST_KEY}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );

    // Watch for 8 s: the vendor floods at up to 32 MB/s, which the server must not keep.
    let peak = idle;
    const until = Date.now() + 8_000;
    while (Date.now() < until) {
      peak = Math.max(peak, rssOf(pid));
      await new Promise((r) => setTimeout(r, 100));
    }
    const growthMb = (peak - idle) / (1024 * 1024);
    console.log(`[stream bounds] non-reading client: RSS idle ${Math.round(idle / 1048576)} MB, peak +${growthMb.toFixed(1)} MB over 8 s`);
    expect(flood.streams).toHaveLength(1);
    // The vendor's socket is closed, and the vendor sent far more than the server kept.
    expect(flood.streams[0]!.closedWith).toBeDefined();
    expect(growthMb).toBeLessThan(100);
    // The client's connection was closed by the server (what it had buffered drains first).
    client.resume();
    client.on('data', () => undefined);
    await expect.poll(() => closed, { timeout: 10_000 }).toBe(true);
  }, 60_000);
});
