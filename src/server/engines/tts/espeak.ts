/**
 * eSpeak NG from @echogarden/espeak-ng-emscripten: ~140 language voices, `+variant` voice variants,
 * pitch and rate. One Emscripten instance per engine (one engine per worker thread); loading it (24 MB
 * of data) takes ~0.6 s, so it happens on first use.
 */
import EspeakFactory from '@echogarden/espeak-ng-emscripten';
import { TtsError } from './errors.js';
import type { Pcm16Audio } from '../../audio/wav.js';
import type { TtsEngine, VoiceBinding } from './types.js';

/** eSpeak NG's output rate. */
export const ESPEAK_SAMPLE_RATE = 22050;
/** eSpeak's default speaking rate (words per minute) = our rate 1.0. */
const BASE_WPM = 175;

/** The part of the Emscripten module and its worker class we use. */
interface EspeakWorker {
  set_voice(name: string): number;
  set_rate(wpm: number): number;
  set_pitch(pitch: number): number;
  set_range(range: number): number;
  synthesize(text: string, callback: (samples: Int16Array, events: unknown[]) => boolean): void;
}
interface EspeakModule {
  eSpeakNGWorker: new () => EspeakWorker;
  FS: { analyzePath(path: string): { exists: boolean } };
}

/**
 * eSpeak's pitch parameter (0..100, 50 = the voice's own) against the change it makes in semitones,
 * measured on en-us (mean F0 over a sentence); the mapping is not a power law, so it is interpolated.
 */
const PITCH_TABLE: readonly (readonly [param: number, semitones: number])[] = [
  [0, -6.61], [10, -5.45], [20, -4.57], [30, -2.74], [40, -1.61], [50, 0],
  [60, 1.66], [70, 3.25], [80, 4.96], [90, 6.76], [100, 8.48],
];

/** eSpeak's pitch parameter for a shift of `semitones` (clamped to what the engine can do). */
export function espeakPitchParam(semitones: number): number {
  const first = PITCH_TABLE[0] as readonly [number, number];
  const last = PITCH_TABLE[PITCH_TABLE.length - 1] as readonly [number, number];
  if (!Number.isFinite(semitones)) return 50;
  if (semitones <= first[1]) return first[0];
  if (semitones >= last[1]) return last[0];
  for (let i = 1; i < PITCH_TABLE.length; i++) {
    const [p1, s1] = PITCH_TABLE[i] as readonly [number, number];
    if (semitones <= s1) {
      const [p0, s0] = PITCH_TABLE[i - 1] as readonly [number, number];
      return Math.round(p0 + ((semitones - s0) / (s1 - s0)) * (p1 - p0));
    }
  }
  return last[0];
}

/** eSpeak's rate in words per minute for our rate factor (eSpeak accepts 80..450). */
export function espeakWordsPerMinute(rate: number): number {
  const r = Number.isFinite(rate) && rate > 0 ? rate : 1;
  return Math.max(80, Math.min(450, Math.round(BASE_WPM * r)));
}

const VOICE_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/i;
const VARIANT_ID = /^[A-Za-z0-9_-]+$/;
const VARIANTS_DIR = '/usr/share/espeak-ng-data/voices/!v/';

/** Creates an eSpeak NG engine; nothing is loaded until the first synthesis (or `load()`). */
export function createEspeakEngine(): TtsEngine & { load(): Promise<void> } {
  let loading: Promise<{ module: EspeakModule; worker: EspeakWorker }> | undefined;
  // Selecting a voice re-reads its files (and a new language's dictionary): skip it when unchanged.
  let currentVoice: string | undefined;
  const load = () => {
    loading ??= (async () => {
      // Emscripten's print hooks would write to the server's stdout/stderr: keep logs clean.
      const module = (await EspeakFactory({ print: () => {}, printErr: () => {} })) as EspeakModule;
      return { module, worker: new module.eSpeakNGWorker() };
    })();
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };
  return {
    name: 'espeak',
    async load() {
      await load();
    },
    async synthesize(text: string, voice: VoiceBinding): Promise<Pcm16Audio> {
      if (!VOICE_ID.test(voice.voice)) throw new TtsError('invalid_voice', `Unknown eSpeak voice: ${voice.voice}`);
      if (voice.variant !== undefined && !VARIANT_ID.test(voice.variant)) {
        throw new TtsError('invalid_voice', `Unknown eSpeak variant: ${voice.variant}`);
      }
      const { module, worker } = await load();
      // eSpeak silently ignores an unknown "+variant": check the file exists so a bad binding fails loudly.
      if (voice.variant !== undefined && !module.FS.analyzePath(VARIANTS_DIR + voice.variant).exists) {
        throw new TtsError('invalid_voice', `Unknown eSpeak variant: ${voice.variant}`);
      }
      const name = voice.variant ? `${voice.voice}+${voice.variant}` : voice.voice;
      if (name !== currentVoice) {
        currentVoice = undefined;
        if (worker.set_voice(name) !== 0) throw new TtsError('invalid_voice', `Unknown eSpeak voice: ${voice.voice}`);
        currentVoice = name;
      }
      // Prosody is instance state: set every parameter on every call.
      worker.set_rate(espeakWordsPerMinute(voice.rate));
      worker.set_pitch(espeakPitchParam(voice.pitch));
      worker.set_range(50);
      const chunks: Int16Array[] = [];
      worker.synthesize(escapeSsml(text), (samples) => {
        if (samples.length > 0) chunks.push(samples);
        return false; // false = keep going
      });
      return { pcm: concat(chunks), sampleRate: ESPEAK_SAMPLE_RATE };
    },
  };
}

/** The build parses its input as SSML: escape markup characters so the text is spoken as written. */
function escapeSsml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function concat(chunks: Int16Array[]): Int16Array {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
