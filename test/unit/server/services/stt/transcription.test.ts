// The fan-out itself with in-process adapters: order, per-provider timeouts, failure isolation, latency.
import { describe, expect, test } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSync } from 'node:fs';
import { runProvider, transcribe, validateProviders } from '../../../../../src/server/features/stt/transcription.js';
import type { BoundProvider, SttRegistry } from '../../../../../src/server/engines/stt/registry.js';
import { SttError, type SttAdapter } from '../../../../../src/server/engines/stt/types.js';
import { DomainError } from '../../../../../src/shared/errors.js';
import { decodeWavToPcm16 } from '../../../../../src/server/audio/wav.js';

const WAV = readFileSync(new URL('../../../../../fixtures/speech-slt.wav', import.meta.url));

/** What the adapters did, in order: tells a concurrent fan-out from a sequential one without a clock. */
const events: string[] = [];

/** An in-process recognizer: answers after `ms`, or misbehaves as told. */
function adapter(behaviour: { ms: number; text?: string; fail?: SttError | Error; ignoreSignal?: boolean }): SttAdapter {
  return {
    adapter: 'test',
    model: null,
    supportsKeyterms: false,
    check: () => ({ ok: true }),
    async transcribe(audio, opts) {
      expect(audio.sampleRate).toBe(16000);
      expect(audio.wav.subarray(0, 4).toString()).toBe('RIFF');
      events.push('start');
      await sleep(behaviour.ms, undefined, behaviour.ignoreSignal ? {} : { signal: opts.signal });
      events.push('end');
      if (behaviour.fail) throw behaviour.fail;
      return { transcript: behaviour.text ?? 'ok', confidence: 0.123456 };
    },
  };
}

const registry = (map: Record<string, BoundProvider>): SttRegistry => ({ get: (id) => map[id], states: () => [], close: async () => undefined });

describe('validateProviders', () => {
  test('unknown and duplicate names', () => {
    expect(() => validateProviders(['stt-b', 'nope'])).toThrow('Unknown provider: nope');
    expect(() => validateProviders(['local-sphinx', 'local-sphinx'])).toThrow('Duplicate provider: local-sphinx');
    expect(() => validateProviders([])).toThrow(DomainError);
    expect(() => validateProviders(['stt-a-model-1', 'stt-a-model-2', 'stt-b', 'stt-c', 'stt-d', 'stt-e', 'stt-f', 'stt-g', 'stt-h'])).not.toThrow();
  });
});

describe('transcribe', () => {
  test('runs providers concurrently, each with its own timeout; failures stay per provider', async () => {
    const reg = registry({
      'stt-b': { adapter: adapter({ ms: 200, text: 'bee' }), timeoutMs: 1000 },
      'stt-c': { adapter: adapter({ ms: 5000, ignoreSignal: true }), timeoutMs: 250 },
      'stt-d': { adapter: adapter({ ms: 10, fail: new SttError('rate_limited', 'slow down') }), timeoutMs: 1000 },
      'stt-e': { adapter: adapter({ ms: 10, fail: new Error('bug with /secret/path') }), timeoutMs: 1000 },
    });
    const logged: string[] = [];
    events.length = 0;
    const out = await transcribe(
      { registry: reg, loadAudio: async () => WAV, logError: (_e, p) => logged.push(p) },
      { audio_url: 'x', providers: ['stt-e', 'stt-c', 'stt-b', 'stt-d', 'stt-f'] },
    );
    expect(Object.keys(out.results)).toEqual(['stt-e', 'stt-c', 'stt-b', 'stt-d', 'stt-f']);
    expect(out.results['stt-b']).toMatchObject({ transcript: 'bee', confidence: 0.1235 });
    expect(out.results['stt-b']!.latency_ms).toBeGreaterThanOrEqual(195);
    expect(out.results['stt-c']).toMatchObject({ transcript: null, confidence: null, error: { code: 'timeout', message: 'stt-c did not answer within 250 ms' } });
    expect(out.results['stt-c']!.latency_ms).toBeGreaterThanOrEqual(245);
    expect(out.results['stt-d']!.error).toEqual({ code: 'rate_limited', message: 'slow down' });
    expect(out.results['stt-e']!.error).toEqual({ code: 'upstream_error', message: 'stt-e failed unexpectedly' });
    expect(out.results['stt-f']).toEqual({
      transcript: null,
      latency_ms: 0,
      confidence: null,
      error: { code: 'provider_not_configured', message: 'Provider stt-f is not bound to an adapter in the server config' },
    });
    expect(logged).toEqual(['stt-e']);
    // Concurrent: every configured adapter starts before the first one answers.
    expect(events.slice(0, 4)).toEqual(['start', 'start', 'start', 'start']);
  });

  test('a budget that grows with the audio: timeoutMs plus its per-second share of the audio (a whole call decodes for longer)', async () => {
    const { pcm, sampleRate } = decodeWavToPcm16(WAV);
    const budget = 250 + Math.round((100 * pcm.length) / sampleRate);
    const reg = registry({ 'stt-c': { adapter: adapter({ ms: 60_000, ignoreSignal: true }), timeoutMs: 250, timeoutPerAudioSecondMs: 100 } });
    const out = await transcribe({ registry: reg, loadAudio: async () => WAV }, { audio_url: 'x', providers: ['stt-c'] });
    expect(out.results['stt-c']!.error).toEqual({ code: 'timeout', message: `stt-c did not answer within ${budget} ms` });
  });

  test('diarize reaches only an adapter that reads speaker labels, and its words come back with the result (DESIGN §16.3)', async () => {
    const asked: (boolean | undefined)[] = [];
    const labelled = (supportsDiarization: boolean): SttAdapter => ({
      ...adapter({ ms: 1 }),
      supportsDiarization,
      async transcribe(_audio, opts) {
        asked.push(opts.diarize);
        return { transcript: 'hi there', confidence: null, words: [{ text: 'hi', start: 0.1, end: 0.3, speaker: '0' }, { text: 'there', start: 0.4, end: 0.7, speaker: '1' }] };
      },
    });
    const reg = registry({ 'stt-b': { adapter: labelled(true), timeoutMs: 1000 }, 'stt-c': { adapter: labelled(false), timeoutMs: 1000 } });
    const { pcm, sampleRate } = decodeWavToPcm16(WAV);
    const audio = { pcm, sampleRate, durationSeconds: pcm.length / sampleRate, wav: WAV };
    const withLabels = await runProvider({ registry: reg }, 'stt-b', audio, undefined, { diarize: true });
    const without = await runProvider({ registry: reg }, 'stt-c', audio, undefined, { diarize: true });
    expect(asked).toEqual([true, undefined]);
    expect(withLabels).toMatchObject({ transcript: 'hi there', diarized: true, words: [{ text: 'hi', speaker: '0' }, { text: 'there', speaker: '1' }] });
    expect(without).not.toHaveProperty('diarized');
    expect(without).not.toHaveProperty('words');
  });

  test('latency excludes fetching and decoding the audio', async () => {
    const reg = registry({ 'stt-b': { adapter: adapter({ ms: 20 }), timeoutMs: 1000 } });
    const out = await transcribe({ registry: reg, loadAudio: async () => (await sleep(300), WAV) }, { audio_url: 'x', providers: ['stt-b'] });
    expect(out.results['stt-b']!.latency_ms).toBeLessThan(250);
  });

  test('undecodable audio → 400 before any provider runs', async () => {
    let called = false;
    const reg = registry({ 'stt-b': { adapter: { ...adapter({ ms: 1 }), transcribe: async () => ((called = true), { transcript: '', confidence: null }) }, timeoutMs: 100 } });
    await expect(transcribe({ registry: reg, loadAudio: async () => Buffer.from('nope') }, { audio_url: 'x', providers: ['stt-b'] })).rejects.toThrow(
      'Unsupported audio format: expected WAV, MP3 or M4A',
    );
    expect(called).toBe(false);
  });

  test('an outer abort (client gone) stops running providers', async () => {
    const ac = new AbortController();
    const reg = registry({ 'stt-b': { adapter: adapter({ ms: 5000 }), timeoutMs: 10_000 } });
    const audio = { pcm: new Int16Array(16000), sampleRate: 16000, durationSeconds: 1, wav: WAV };
    setTimeout(() => ac.abort(new Error('client closed')), 50);
    const res = await runProvider({ registry: reg, signal: ac.signal }, 'stt-b', audio, undefined);
    expect(res.transcript).toBeNull();
    expect(res.latency_ms).toBeLessThan(1000);
  });
});
