import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createTtsPool, type TtsWorkerPool } from '../../../../../src/server/engines/tts/pool.js';
import { refusedExecArgv, resolveWorkerUrl, workerExecArgv } from '../../../../../src/server/workers.js';
import { TEST_CRASH, TEST_CRASH_FIRST, TEST_FAIL, TEST_HANG, TEST_HOOKS_ENV } from '../../../../../src/server/engines/tts/protocol.js';
import { createFliteEngine } from '../../../../../src/server/engines/tts/flite.js';
import type { VoiceBinding } from '../../../../../src/server/engines/tts/types.js';
import { decodeWavToPcm16, encodeWav, parseWav } from '../../../../../src/server/audio/wav.js';
import { resamplePcm16 } from '../../../../../src/server/audio/resample.js';
import { calculateAccuracy } from '../../../../../src/shared/accuracy.js';
import { audioDifference, meanPitch, rms, transcribe } from '../../../../helpers/speech-audio.js';
import { loopFreedomDuring } from '../../../../helpers/event-loop.js';

const slt: VoiceBinding = { engine: 'flite', voice: 'slt', pitch: 0, rate: 1 };
const kal: VoiceBinding = { engine: 'flite', voice: 'kal16', pitch: 0, rate: 1 };
const scot: VoiceBinding = { engine: 'espeak', voice: 'en-gb-scotland', variant: 'f3', pitch: 2, rate: 1.1 };
const SENTENCE = 'The committee met on Tuesday to review the quarterly results in detail.';

let pool: TtsWorkerPool;

beforeAll(async () => {
  // Test hooks are read by the workers from their environment (a copy of ours when they start).
  process.env[TEST_HOOKS_ENV] = '1';
  // A text's pieces run side by side, loading each engine in both workers (see 'engine affinity' below),
  // so what follows measures synthesis, not start-up.
  pool = createTtsPool({ size: 2 });
  await Promise.all([pool.synthesize('Warm up. Warm up.', slt), pool.synthesize('Warm up. Warm up.', scot)]);
  await Promise.all([pool.synthesize('Warm up. Warm up.', scot), pool.synthesize('Warm up. Warm up.', slt)]);
  expect(pool.stats().engines).toBe(4);
});

afterAll(async () => {
  await pool?.close();
  delete process.env[TEST_HOOKS_ENV];
});

describe('TTS pool', () => {
  it('starts its workers and reports ok', () => {
    expect(pool.stats()).toMatchObject({ workers: 2, busy: 0, queued: 0 });
    expect(pool.status()).toBe('ok');
  });

  it('synthesises with both engines, at their own rates', async () => {
    const f = await pool.synthesize('Hello from flite.', slt);
    const e = await pool.synthesize('Hello from espeak.', scot);
    expect(f.sampleRate).toBe(16000);
    expect(e.sampleRate).toBe(22050);
    expect(rms(f.pcm)).toBeGreaterThan(500);
    expect(rms(e.pcm)).toBeGreaterThan(500);
  });

  it('gives the same audio as the engine for one sentence', async () => {
    const direct = await createFliteEngine().synthesize(SENTENCE, kal);
    const pooled = await pool.synthesize(SENTENCE, kal);
    expect(Array.from(pooled.pcm)).toEqual(Array.from(direct.pcm));
  });

  it('joins the pieces of a long text in order with a pause between them', async () => {
    const a = 'First sentence here.';
    const b = 'And a second, different one.';
    const pa = await pool.synthesize(a, kal);
    const pb = await pool.synthesize(b, kal);
    const both = await pool.synthesize(`${a} ${b}`, kal);
    const gap = Math.round(16000 * 0.15);
    expect(both.pcm.length).toBe(pa.pcm.length + gap + pb.pcm.length);
    expect(Array.from(both.pcm.subarray(0, pa.pcm.length))).toEqual(Array.from(pa.pcm));
    expect(Array.from(both.pcm.subarray(pa.pcm.length + gap))).toEqual(Array.from(pb.pcm));
    expect(both.pcm.subarray(pa.pcm.length, pa.pcm.length + gap).every((s) => s === 0)).toBe(true);
  });

  it('two speakers with different bindings sound different', async () => {
    const low = await pool.synthesize(SENTENCE, { ...slt, pitch: -4, rate: 0.9 });
    const high = await pool.synthesize(SENTENCE, { ...slt, pitch: 4, rate: 1.1 });
    expect(audioDifference(low.pcm, high.pcm)).toBeGreaterThan(500);
    expect(meanPitch(high.pcm, 16000)).toBeGreaterThan(meanPitch(low.pcm, 16000) * 1.3);
  });

  it('runs the pieces of one text on both workers at once', async () => {
    const running = pool.synthesize(`${SENTENCE} ${SENTENCE.replace('Tuesday', 'Friday')}`, slt);
    expect(pool.stats()).toMatchObject({ busy: 2, queued: 0 });
    await running;
    expect(pool.stats().busy).toBe(0);
  });

  it('keeps the event loop free while synthesising', async () => {
    const long = Array.from({ length: 6 }, () => SENTENCE).join(' ');
    const { idle, busy } = await loopFreedomDuring(() => pool.synthesize(long, slt));
    // Synthesis on this thread would leave a handful of ticks (one per sentence piece: ~0.06 against
    // ~0.9 idle, measured by blocking the loop the same way); in workers it ticks about as when idle.
    expect(busy).toBeGreaterThan(idle / 3);
  });

  it('serves many concurrent requests FIFO without mixing them up', async () => {
    const texts = Array.from({ length: 8 }, (_, i) => `Request number ${i + 1}.`);
    const direct = await Promise.all(texts.map((t) => pool.synthesize(t, kal)));
    const again = await Promise.all(texts.map((t) => pool.synthesize(t, kal)));
    for (let i = 0; i < texts.length; i++) expect(Array.from(again[i]!.pcm)).toEqual(Array.from(direct[i]!.pcm));
    expect(new Set(direct.map((d) => d.pcm.length)).size).toBeGreaterThan(1);
  });

  // DESIGN §4.6: the audio of a text is the same whichever worker runs which piece and however many
  // workers the instance has (instances on machines with other CPU counts included).
  it('gives byte-identical audio for a long eSpeak text with 1 worker and with 2, run after run', async () => {
    const long = Array.from({ length: 7 }, (_, i) => `Sentence ${i + 1}: press two for technical support.`).join(' ');
    const breathy: VoiceBinding = { engine: 'espeak', voice: 'en-us', variant: 'whisper', pitch: 1, rate: 1 };
    const single = createTtsPool({ size: 1 });
    try {
      const bytes = (r: { pcm: Int16Array }) => Buffer.from(r.pcm.buffer, r.pcm.byteOffset, r.pcm.byteLength);
      for (const voice of [scot, breathy, { ...scot, variant: 'klatt' }]) {
        const [a, b] = await Promise.all([pool.synthesize(long, voice), pool.synthesize(long, voice)]);
        const c = await single.synthesize(long, voice);
        expect(bytes(b).equals(bytes(a)), `${voice.variant}: again on 2 workers`).toBe(true);
        expect(bytes(c).equals(bytes(a)), `${voice.variant}: on 1 worker`).toBe(true);
      }
    } finally {
      await single.close();
    }
  }, 120_000);

  it('an engine error rejects with a typed error and is not retried', async () => {
    const before = pool.stats().restarts;
    await expect(pool.synthesize('Hello.', { ...slt, voice: 'nobody' })).rejects.toMatchObject({ name: 'TtsError', code: 'invalid_voice' });
    await expect(pool.synthesize(`Fine. ${TEST_FAIL} Fine.`, slt)).rejects.toMatchObject({ code: 'engine_error' });
    expect(pool.stats().restarts).toBe(before);
  });

  it('when one piece fails, the text fails and its queued pieces are dropped', async () => {
    const text = [`First ${TEST_FAIL}.`, ...Array.from({ length: 20 }, (_, i) => `Sentence number ${i} is here.`)].join(' ');
    await expect(pool.synthesize(text, kal)).rejects.toMatchObject({ code: 'engine_error', message: 'Synthesis failed (test hook)' });
    expect(pool.stats().queued).toBe(0);
    await pool.synthesize('Next.', kal); // the pool goes on
  });

  it('replaces a crashed worker and retries its piece once', async () => {
    const before = pool.stats().restarts;
    const out = await pool.synthesize(`Survive this ${TEST_CRASH_FIRST}.`, kal);
    expect(rms(out.pcm)).toBeGreaterThan(500);
    expect(pool.stats().restarts).toBe(before + 1);
    expect(pool.stats().workers).toBe(2);
  });

  it('a piece that crashes its worker twice rejects with worker_crashed; the pool keeps working', async () => {
    const before = pool.stats().restarts;
    await expect(pool.synthesize(`Doomed ${TEST_CRASH}.`, kal)).rejects.toMatchObject({ name: 'TtsError', code: 'worker_crashed' });
    expect(pool.stats().restarts).toBe(before + 2);
    const out = await pool.synthesize('Still here.', kal);
    expect(rms(out.pcm)).toBeGreaterThan(500);
    expect(pool.stats().workers).toBe(2);
    expect(pool.status()).toBe('ok');
  });

  it('round trip: slt -> 16 kHz WAV -> PocketSphinx, WER < 0.25', async () => {
    const text = 'the quick brown fox jumps over the lazy dog';
    const out = await pool.synthesize(text, slt);
    const wav = encodeWav(await resamplePcm16(out.pcm, out.sampleRate, 16000), 16000);
    expect(parseWav(wav).sampleRate).toBe(16000);
    const back = decodeWavToPcm16(wav);
    expect(calculateAccuracy(text, await transcribe(back.pcm, back.sampleRate)).wer).toBeLessThan(0.25);
  });

  it('a piece that hangs is timed out, its worker replaced, and it fails after one retry', async () => {
    const own = createTtsPool({ size: 1, taskTimeoutMs: 1500 });
    try {
      await expect(own.synthesize(`Stuck ${TEST_HANG}.`, kal)).rejects.toMatchObject({ code: 'timeout' });
      expect(own.stats()).toMatchObject({ restarts: 2, workers: 1 });
      const out = await own.synthesize('Moving on.', kal);
      expect(rms(out.pcm)).toBeGreaterThan(500);
    } finally {
      await own.close();
    }
  });

  it('closing rejects queued work with pool_closed and stops the workers', async () => {
    const own = createTtsPool({ size: 1 });
    const pending = expect(own.synthesize('One. Two. Three. Four.', kal)).rejects.toMatchObject({ code: 'pool_closed' });
    await own.close();
    await pending;
    expect(own.status()).toBe('unavailable');
    expect(own.stats().workers).toBe(0);
    await expect(own.synthesize('Late.', kal)).rejects.toMatchObject({ code: 'pool_closed' });
  });
});

describe('engine affinity: a worker loads an engine only when one worker per engine cannot keep up', () => {
  it('Flite and eSpeak texts side by side, in either order, stay one engine per worker', async () => {
    const own = createTtsPool({ size: 2 });
    try {
      for (let round = 0; round < 3; round++) {
        // Asked in both orders: a pool serving the oldest piece first on the first free worker would
        // hand eSpeak to the Flite worker (and Flite to the other) on the second round.
        await Promise.all([own.synthesize('Press one.', slt), own.synthesize('Press two.', scot)]);
        await Promise.all([own.synthesize('Press three.', scot), own.synthesize('Press four.', slt)]);
      }
      expect(own.stats()).toMatchObject({ workers: 2, engines: 2, busy: 0, queued: 0 });
    } finally {
      await own.close();
    }
  });

  it('a piece whose engine only a busy worker has waits for it, then loads on a free worker after affinityWaitMs', async () => {
    const own = createTtsPool({ size: 2, affinityWaitMs: 300, taskTimeoutMs: 60_000 });
    try {
      await own.synthesize('Hello.', kal);
      expect(own.stats().engines).toBe(1);
      const stuck = own.synthesize(`Stuck ${TEST_HANG}.`, kal).catch((err: unknown) => err);
      const waiting = own.synthesize('Are you there?', kal);
      // One worker is free, but it has no Flite: the piece waits for the busy one first.
      expect(own.stats()).toMatchObject({ busy: 1, queued: 1, engines: 1 });
      const out = await waiting;
      expect(rms(out.pcm)).toBeGreaterThan(500);
      expect(own.stats()).toMatchObject({ busy: 1, queued: 0, engines: 2 });
      await own.close();
      expect(await stuck).toMatchObject({ code: 'pool_closed' });
    } finally {
      await own.close();
    }
  });

  it('the pieces of a long text run side by side at once, on a new pool too', async () => {
    const own = createTtsPool({ size: 2, affinityWaitMs: 60_000 });
    try {
      const running = own.synthesize(`${SENTENCE} ${SENTENCE.replace('Tuesday', 'Friday')}`, slt);
      expect(own.stats()).toMatchObject({ busy: 2, queued: 0, engines: 2 });
      await running;
    } finally {
      await own.close();
    }
  });

  it("a burst of one engine's texts still runs on every worker, each loading the engine once", async () => {
    const own = createTtsPool({ size: 2, affinityWaitMs: 50 });
    try {
      const texts = Array.from({ length: 12 }, (_, i) => `Item number ${i + 1} of the batch.`);
      let both = false;
      const running = Promise.all(texts.map((t) => own.synthesize(t, slt)));
      const watch = setInterval(() => (both ||= own.stats().busy === 2), 5);
      const outs = await running;
      clearInterval(watch);
      expect(outs.every((o) => rms(o.pcm) > 500)).toBe(true);
      expect(both).toBe(true);
      expect(own.stats().engines).toBe(2);
    } finally {
      await own.close();
    }
  });
});

describe('warnings', () => {
  it("Node's experimental-WASI warning reaches no terminal: not from the pool's workers, not in-process", async () => {
    const dist = new URL('../../../../../dist/server/engines/tts/', import.meta.url).href;
    const script = `
      const { createTtsPool } = await import('${dist}pool.js');
      const { createFliteEngine } = await import('${dist}flite.js');
      const pool = createTtsPool({ size: 1 });
      const a = await pool.synthesize('Hello. World.', { engine: 'flite', voice: 'kal16', pitch: 1, rate: 1 });
      await pool.close();
      const b = await createFliteEngine().synthesize('Hello.', { engine: 'flite', voice: 'kal16', pitch: 1, rate: 1 });
      console.log(a.pcm.length > 0 && b.pcm.length > 0 ? 'spoke' : 'silent');
    `;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, NODE_OPTIONS: '' } });
    expect(stdout.trim()).toBe('spoke');
    expect(stderr).toBe('');
  });
});

describe('Node options', () => {
  it('a server started with V8 flags (which Node refuses to hand a worker) still gets working workers', async () => {
    const dist = new URL('../../../../../dist/server/engines/tts/', import.meta.url).href;
    const script = `
      const { createTtsPool } = await import('${dist}pool.js');
      const pool = createTtsPool({ size: 1 });
      const a = await pool.synthesize('Hello.', { engine: 'flite', voice: 'kal16', pitch: 1, rate: 1 });
      await pool.close();
      console.log(a.pcm.length > 0 ? 'spoke' : 'silent');
    `;
    const flags = ['--max-old-space-size=512', '--expose-gc', '--stack-size=900'];
    const { stdout } = await promisify(execFile)(process.execPath, [...flags, '--input-type=module', '-e', script], { env: { ...process.env, NODE_OPTIONS: '' } });
    expect(stdout.trim()).toBe('spoke');
  });

  it('refusedExecArgv reads the refused flags from the error, and nothing from any other error', () => {
    const err = Object.assign(new Error('Initiated Worker with invalid execArgv flags: --expose-gc, --max-old-space-size=512'), { code: 'ERR_WORKER_INVALID_EXEC_ARGV' });
    expect(refusedExecArgv(err)).toEqual(['--expose-gc', '--max-old-space-size=512']);
    expect(refusedExecArgv(new Error('flags: --x'))).toBeUndefined();
    expect(refusedExecArgv(undefined)).toBeUndefined();
  });
});

describe('workerExecArgv', () => {
  it('drops the options workers refuse, keeps the rest', () => {
    expect(workerExecArgv(['--input-type=module', '-e', 'code', '--enable-source-maps'])).toEqual(['--enable-source-maps']);
    expect(workerExecArgv(['--input-type', 'module', '--print', 'x', '--conditions=dev'])).toEqual(['--conditions=dev']);
    expect(workerExecArgv([])).toEqual([]);
  });
});

describe('resolveWorkerUrl', () => {
  it('maps a TypeScript source location to the built worker', () => {
    const url = resolveWorkerUrl(new URL('../../../../../src/server/engines/tts/pool.ts', import.meta.url).href, 'worker.js');
    expect(url.pathname).toMatch(/\/dist\/server\/engines\/tts\/worker\.js$/);
    expect(readFileSync(url, 'utf8')).toContain('synthesize');
  });

  it('says to build when the worker is missing', () => {
    expect(() => resolveWorkerUrl('file:///nowhere/src/server/engines/tts/pool.ts', 'worker.js')).toThrow(/run npm run build/);
  });
});
