import { describe, expect, it, beforeAll } from 'vitest';
import {
  AGE_BRACKETS,
  ageBracket,
  ESPEAK_LANGUAGES,
  ESPEAK_VARIANTS,
  FLITE_VOICES,
  generateCatalogue,
} from '../../../../../src/server/engines/tts/catalogue.js';

interface EspeakModule {
  FS: { readdir(path: string): string[]; readFile(path: string, opts: { encoding: 'utf8' }): string; isDir(mode: number): boolean; stat(p: string): { mode: number } };
  eSpeakNGWorker: new () => { set_voice(name: string): number };
}

const DATA = '/usr/share/espeak-ng-data';

describe('speaker catalogue', () => {
  const catalogue = generateCatalogue();

  it('has at least 2,400 speakers with unique, URL-safe ids', () => {
    expect(catalogue.length).toBeGreaterThanOrEqual(2400);
    expect(new Set(catalogue.map((s) => s.id)).size).toBe(catalogue.length);
    for (const s of catalogue) expect(s.id).toMatch(/^spk_[A-Za-z0-9_-]+$/);
  });

  it('is deterministic', () => {
    expect(generateCatalogue()).toEqual(catalogue);
  });

  it('keeps prosody in the VoiceBinding ranges and gender-true', () => {
    for (const s of catalogue) {
      expect(s.pitch).toBeGreaterThanOrEqual(-6);
      expect(s.pitch).toBeLessThanOrEqual(6);
      expect(s.rate).toBeGreaterThanOrEqual(0.8);
      expect(s.rate).toBeLessThanOrEqual(1.25);
      expect(AGE_BRACKETS).toContain(s.age_range);
      if (s.engine === 'espeak') {
        const variant = ESPEAK_VARIANTS.find((v) => v.name === s.variant);
        expect(variant?.gender).toBe(s.gender);
      } else {
        expect(FLITE_VOICES.find((v) => v.voice === s.voice)?.gender).toBe(s.gender);
      }
    }
    // Every gender filter value has speakers.
    for (const g of ['Male', 'Female', 'Non-binary']) expect(catalogue.some((s) => s.gender === g)).toBe(true);
  });

  it('derives younger brackets from higher pitch and faster speech', () => {
    expect(ageBracket(4, 1.25)).toBe('18-24');
    expect(ageBracket(0, 1)).toBe('35-44');
    expect(ageBracket(-4, 0.8)).toBe('65-79');
    expect(ageBracket(0, 1, 2)).toBe('55-64'); // grandma / grandpa variants sound older
    const order = (b: string) => AGE_BRACKETS.indexOf(b as (typeof AGE_BRACKETS)[number]);
    for (let p = -4; p < 4; p += 0.5) expect(order(ageBracket(p + 0.5, 1))).toBeLessThanOrEqual(order(ageBracket(p, 1)));
  });

  it('maps dialects to their accent and region', () => {
    const byVoice = (voice: string) => catalogue.find((s) => s.voice === voice)!;
    expect(byVoice('en-gb-scotland')).toMatchObject({ accent: 'Scottish', region: 'Europe', native_language: 'English' });
    expect(byVoice('en-us')).toMatchObject({ accent: 'American', region: 'North America' });
    expect(byVoice('es-419')).toMatchObject({ accent: 'Latin American', region: 'Latin America', native_language: 'Spanish' });
    expect(byVoice('pt-br')).toMatchObject({ accent: 'Brazilian Portuguese', region: 'South America' });
    expect(byVoice('awb')).toMatchObject({ accent: 'Scottish', gender: 'Male', engine: 'flite' });
    expect(byVoice('slt')).toMatchObject({ gender: 'Female', accent: 'American' });
  });
});

describe('catalogue against the eSpeak NG build that ships', () => {
  let m: EspeakModule;
  beforeAll(async () => {
    const { default: create } = (await import('@echogarden/espeak-ng-emscripten')) as unknown as { default: () => Promise<EspeakModule> };
    m = await create();
  });

  it('uses only languages whose lang file exists, with the name eSpeak gives them', () => {
    for (const lang of ESPEAK_LANGUAGES) {
      const text = m.FS.readFile(`${DATA}/lang/${lang.path}`, { encoding: 'utf8' });
      const name = /^name\s+(.+)$/m.exec(text)?.[1] ?? '';
      // eSpeak's own name mentions the language we report (allowing our endonyms/short forms).
      const aliases: Record<string, string> = {
        Norwegian: 'Norwegian', Irish: 'Irish', 'Scottish Gaelic': 'Scottish', Odia: 'Oriya', 'Mandarin Chinese': 'Mandarin',
        Cantonese: 'Cantonese', Burmese: 'Burmese', 'Lule Sami': 'Lule Saami', Armenian: 'Armenian',
      };
      expect(name).toContain(aliases[lang.language] ?? lang.language);
    }
  });

  it('uses only variants that exist, with the gender their file declares', () => {
    const files = new Set(m.FS.readdir(`${DATA}/voices/!v`));
    for (const v of ESPEAK_VARIANTS) {
      expect([v.name, files.has(v.name)]).toEqual([v.name, true]);
      const text = m.FS.readFile(`${DATA}/voices/!v/${v.name}`, { encoding: 'utf8' });
      const declared = /^gender\s+(\w+)/im.exec(text)?.[1]?.toLowerCase();
      expect(declared).toBe(v.declared);
    }
  });

  it('the engine accepts every voice+variant the catalogue binds', () => {
    const worker = new m.eSpeakNGWorker();
    const pairs = new Set(generateCatalogue().filter((s) => s.engine === 'espeak').map((s) => `${s.voice}+${s.variant}`));
    for (const pair of pairs) expect([pair, worker.set_voice(pair)]).toEqual([pair, 0]);
    expect(worker.set_voice('xx-nonexistent')).not.toBe(0); // the check can fail
  });
});
