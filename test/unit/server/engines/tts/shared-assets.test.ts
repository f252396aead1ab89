import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createSharedAssets, DEFAULT_ASSET_LOADERS, type SharedAssetLoaders } from '../../../../../src/server/engines/tts/shared-assets.js';
import { espeakDataPath, fillPackage, openEspeakPackage, type EspeakPackage } from '../../../../../src/server/engines/tts/espeak-package.js';
import { createTtsPool, type TtsWorkerPool } from '../../../../../src/server/engines/tts/pool.js';
import { compileFlite, createFliteEngine } from '../../../../../src/server/engines/tts/flite.js';
import { createEspeakEngine } from '../../../../../src/server/engines/tts/espeak.js';
import type { VoiceBinding } from '../../../../../src/server/engines/tts/types.js';

const slt: VoiceBinding = { engine: 'flite', voice: 'slt', pitch: 0, rate: 1 };
const scot: VoiceBinding = { engine: 'espeak', voice: 'en-gb-scotland', variant: 'f3', pitch: 2, rate: 1.1 };

/** The default loaders, counting how often each runs. */
function countingLoaders(): { loaders: SharedAssetLoaders; calls: Record<string, number> } {
  const calls: Record<string, number> = { 'flite-module': 0, 'espeak-data': 0 };
  return {
    calls,
    loaders: {
      'flite-module': () => (calls['flite-module']!++, DEFAULT_ASSET_LOADERS['flite-module']()),
      'espeak-data': () => (calls['espeak-data']!++, DEFAULT_ASSET_LOADERS['espeak-data']()),
    },
  };
}

describe('shared engine assets', () => {
  it('loads each asset once for all callers, tries a failed load again, and collects garbage after a load', async () => {
    let attempts = 0;
    let collections = 0;
    const assets = createSharedAssets(
      {
        'flite-module': async () => {
          attempts++;
          if (attempts === 1) throw new Error('disk hiccup');
          return compileFlite();
        },
        'espeak-data': () => openEspeakPackage(),
      },
      () => collections++,
    );
    await expect(assets('flite-module')).rejects.toThrow('disk hiccup');
    const [a, b] = await Promise.all([assets('flite-module'), assets('flite-module')]);
    expect(a).toBe(b);
    expect(attempts).toBe(2);
    await new Promise((r) => setImmediate(r));
    expect(collections).toBe(1);
  });

  it('maps the eSpeak package without reading it, and fills exactly the pages asked for, with the file\'s bytes', async () => {
    const pkg = await openEspeakPackage();
    const file = readFileSync(espeakDataPath());
    expect(pkg.bytes).toBeInstanceOf(SharedArrayBuffer);
    expect(pkg.bytes.byteLength).toBe(file.length);
    const bytes = new Uint8Array(pkg.bytes);
    expect(bytes.some((b) => b !== 0)).toBe(false);
    // A range across a page boundary, then one overlapping it: each page is read once, as the file has it.
    fillPackage(pkg, 65_000, 70_000);
    fillPackage(pkg, 60_000, 140_000);
    expect(Buffer.from(bytes.subarray(0, 196_608)).equals(file.subarray(0, 196_608))).toBe(true);
    expect(bytes.subarray(196_608).some((b) => b !== 0)).toBe(false);
    fillPackage(pkg, file.length - 10, file.length);
    expect(Buffer.from(bytes.subarray(file.length - 10)).equals(file.subarray(file.length - 10))).toBe(true);
  });

  it('an engine on the shared package reads only the files its voices open: an English voice leaves the Russian dictionary unread', async () => {
    const pkg = await openEspeakPackage();
    const espeak = createEspeakEngine({ dataPackage: async () => pkg });
    const own = createEspeakEngine();
    const filledPages = () => new Int32Array(pkg.filled).reduce((n, f) => n + f, 0);
    const text = 'Press two for technical support.';
    expect(Array.from((await espeak.synthesize(text, scot)).pcm)).toEqual(Array.from((await own.synthesize(text, scot)).pcm));
    const english = filledPages();
    expect(english * 64 * 1024).toBeLessThan(4 * 1024 * 1024); // of 24 MB
    const russian: VoiceBinding = { engine: 'espeak', voice: 'ru', pitch: 0, rate: 1 };
    const ru = 'Добрый день, ваш заказ готов.';
    expect(Array.from((await espeak.synthesize(ru, russian)).pcm)).toEqual(Array.from((await own.synthesize(ru, russian)).pcm));
    expect(filledPages() * 64 * 1024).toBeGreaterThan(english * 64 * 1024 + 8 * 1024 * 1024); // ru_dict: 8.5 MB
  });

  it('an engine on shared assets makes the same bytes as one that loads its own', async () => {
    const shared = createSharedAssets();
    const flite = createFliteEngine({ module: () => shared('flite-module') as ReturnType<typeof compileFlite> });
    const espeak = createEspeakEngine({ dataPackage: () => shared('espeak-data') as Promise<EspeakPackage> });
    const text = 'Press two for technical support.';
    expect(Array.from((await flite.synthesize(text, slt)).pcm)).toEqual(Array.from((await createFliteEngine().synthesize(text, slt)).pcm));
    expect(Array.from((await espeak.synthesize(text, scot)).pcm)).toEqual(Array.from((await createEspeakEngine().synthesize(text, scot)).pcm));
  });
});

describe('the pool shares its assets', () => {
  let pool: TtsWorkerPool | undefined;
  afterAll(async () => pool?.close());

  it('loads Flite and eSpeak once for two workers that both use them', async () => {
    const { loaders, calls } = countingLoaders();
    pool = createTtsPool({ size: 2, assetLoaders: loaders });
    // Two pieces per text and two texts per engine at once: both workers load both engines.
    const texts = ['One sentence here. And another one.', 'A third sentence. And a fourth.'];
    await Promise.all(texts.flatMap((t) => [pool!.synthesize(t, slt), pool!.synthesize(t, scot)]));
    await Promise.all(texts.flatMap((t) => [pool!.synthesize(t, slt), pool!.synthesize(t, scot)]));
    expect(calls).toEqual({ 'flite-module': 1, 'espeak-data': 1 });
    expect(pool.status()).toBe('ok');
  });
});

describe('fullGarbageCollector', () => {
  it('gives a collector that runs on this Node', async () => {
    const { fullGarbageCollector } = await import('../../../../../src/server/engines/tts/garbage.js');
    const collect = fullGarbageCollector();
    expect(collect).toBeTypeOf('function');
    expect(() => collect!()).not.toThrow();
  });
});
