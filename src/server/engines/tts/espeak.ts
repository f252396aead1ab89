/**
 * eSpeak NG from @echogarden/espeak-ng-emscripten: ~140 language voices, `+variant` voice variants,
 * pitch and rate. One Emscripten instance per engine (one engine per worker thread); loading it (24 MB
 * of data) takes ~0.6 s, so it happens on first use.
 *
 * Synthesis is deterministic (DESIGN §4.6): eSpeak seeds its noise generator (breathy variants, klatt)
 * from the clock at initialisation and carries generator state (random state, flutter phase, filter
 * memories) from one call into the next. So the instance is initialised with a fixed clock and its
 * memory is snapshotted; every call starts from that snapshot, like a fresh instance in any process.
 */
import EspeakFactory from '@echogarden/espeak-ng-emscripten';
import { TtsError } from './errors.js';
import type { Pcm16Audio } from '../../audio/wav.js';
import type { TtsEngine, VoiceBinding } from './types.js';
import { restoreMemory, usedExtent } from './wasm-memory.js';
import { fillPackage, type EspeakPackage } from './espeak-package.js';

/** eSpeak NG's output rate. */
export const ESPEAK_SAMPLE_RATE = 22050;
/** eSpeak's default speaking rate (words per minute) = our rate 1.0. */
const BASE_WPM = 175;

/** The part of the Emscripten module and its worker class we use. */
interface EspeakWorker {
  set_voice(name: string | CString): number;
  set_rate(wpm: number): number;
  set_pitch(pitch: number): number;
  set_range(range: number): number;
  synthesize(text: string | CString, callback: (samples: Int16Array, events: unknown[]) => boolean): void;
}
/** A NUL-terminated string already in the module's memory (the binding passes `.ptr` through). */
interface CString {
  ptr: number;
}
interface EspeakModule {
  eSpeakNGWorker: new () => EspeakWorker;
  FS: {
    analyzePath(path: string): { exists: boolean; object?: { contents?: unknown } | null };
    open(path: string, flags: unknown, mode?: unknown): unknown;
  };
  /** The whole linear memory (its view is replaced when the heap grows). */
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
}

/** The loaded instance and its memory as it was right after initialisation. */
interface LoadedEspeak {
  module: EspeakModule;
  worker: EspeakWorker;
  /** Where our strings go: allocated before the snapshot, so a memory reset never frees it. */
  strings: number;
  /** The memory right after initialisation, up to its last non-zero byte (~1.2 MB of a 16 MB heap). */
  initial: Uint8Array;
}

/**
 * Bytes of the string buffer. The binding would otherwise copy strings into a heap buffer whose address
 * it keeps in JavaScript and which it regrows with malloc: after a reset that memory would belong to
 * nobody (or to eSpeak). 2000 characters of `&` escaped are 10,000 bytes; pieces are shorter.
 */
const STRING_BYTES = 64 * 1024;

/** The clock eSpeak reads (`time(NULL)`) while it seeds its random generator: any constant will do. */
const SEED_CLOCK_MS = 0;

/** Runs `fn` (synchronous) with `Date.now` pinned, so what it derives from the time is the same everywhere. */
function withFixedClock<T>(fn: () => T): T {
  const now = Date.now;
  Date.now = () => SEED_CLOCK_MS;
  try {
    return fn();
  } finally {
    Date.now = now;
  }
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

/** Options of `createEspeakEngine`. */
export interface EspeakEngineOptions {
  /**
   * The data package (espeak-ng.data) in memory shared with other threads, filled as files are first
   * opened; default: the Emscripten loader reads its own copy, whole.
   */
  dataPackage?: () => Promise<EspeakPackage>;
}

/**
 * The package as Emscripten's preload hook takes it. Its loader asserts the buffer's constructor is
 * named ArrayBuffer, though all it does is view it (the files become views of it, never copies), which a
 * SharedArrayBuffer serves as well. The object is this thread's own handle on the shared memory, so
 * naming its constructor changes nothing for any other thread.
 */
function asPreloadedPackage(shared: SharedArrayBuffer): ArrayBuffer {
  Object.defineProperty(shared, 'constructor', { value: ArrayBuffer, configurable: true });
  return shared as unknown as ArrayBuffer;
}

/**
 * Has the module read each file of the shared package from disk when it first opens it: a file is a view
 * of the package's memory, which holds zeros until filled.
 */
function fillOnOpen(module: EspeakModule, pkg: EspeakPackage): void {
  const fs = module.FS;
  const open = fs.open.bind(fs);
  fs.open = (path, flags, mode) => {
    const contents = fs.analyzePath(String(path)).object?.contents;
    if (contents instanceof Uint8Array && contents.buffer === (pkg.bytes as unknown)) {
      fillPackage(pkg, contents.byteOffset, contents.byteOffset + contents.byteLength);
    }
    return open(path, flags, mode);
  };
}

/** Creates an eSpeak NG engine; nothing is loaded until the first synthesis (or `load()`). */
export function createEspeakEngine(options: EspeakEngineOptions = {}): TtsEngine & { load(): Promise<void> } {
  let loading: Promise<LoadedEspeak> | undefined;
  const load = () => {
    loading ??= (async () => {
      const shared = options.dataPackage ? await options.dataPackage() : undefined;
      const module = (await EspeakFactory({
        // Emscripten's print hooks would write to the server's stdout/stderr: keep logs clean.
        print: () => {},
        printErr: () => {},
        ...(shared ? { getPreloadedPackage: () => asPreloadedPackage(shared.bytes) } : {}),
      })) as EspeakModule;
      if (shared) fillOnOpen(module, shared);
      // The worker's constructor initialises eSpeak, which calls srand(time(NULL)).
      const worker = withFixedClock(() => new module.eSpeakNGWorker());
      // Let the binding allocate its own small string cache now (set_voice takes a string), before the snapshot.
      worker.set_voice('en');
      const strings = module._malloc(STRING_BYTES);
      if (!strings) throw new Error('eSpeak could not allocate its string buffer');
      return { module, worker, strings, initial: module.HEAPU8.slice(0, usedExtent(module.HEAPU8)) };
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
      const loaded = await load();
      const { module, worker } = loaded;
      // eSpeak silently ignores an unknown "+variant": check the file exists so a bad binding fails loudly.
      if (voice.variant !== undefined && !module.FS.analyzePath(VARIANTS_DIR + voice.variant).exists) {
        throw new TtsError('invalid_voice', `Unknown eSpeak variant: ${voice.variant}`);
      }
      // Every call starts from the initial state (a few ms to find what the last call wrote and restore it, ~1 ms to select the voice again).
      restoreMemory(loaded.module.HEAPU8, loaded.initial);
      const name = voice.variant ? `${voice.voice}+${voice.variant}` : voice.voice;
      if (worker.set_voice(cString(loaded, name)) !== 0) throw new TtsError('invalid_voice', `Unknown eSpeak voice: ${voice.voice}`);
      worker.set_rate(espeakWordsPerMinute(voice.rate));
      worker.set_pitch(espeakPitchParam(voice.pitch));
      worker.set_range(50);
      const chunks: Int16Array[] = [];
      worker.synthesize(cString(loaded, escapeSsml(text)), (samples) => {
        if (samples.length > 0) chunks.push(samples);
        return false; // false = keep going
      });
      return { pcm: concat(chunks), sampleRate: ESPEAK_SAMPLE_RATE };
    },
  };
}

/** Writes `text` NUL-terminated into the string buffer (one string in use at a time). */
function cString(loaded: LoadedEspeak, text: string): CString {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length >= STRING_BYTES) throw new TtsError('engine_error', `Text too long for one eSpeak call (${bytes.length} bytes)`);
  const heap = loaded.module.HEAPU8;
  heap.set(bytes, loaded.strings);
  heap[loaded.strings + bytes.length] = 0;
  return { ptr: loaded.strings };
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
