/**
 * The offline recognizer: CMU PocketSphinx from the OS package (Debian/Ubuntu `pocketsphinx` +
 * `pocketsphinx-en-us`, Homebrew `cmu-pocketsphinx`), fed 16 kHz mono raw PCM.
 *
 * Audio up to WARM_MAX_SECONDS goes to a warm `pocketsphinx_batch` decoder (sphinx-decoders.ts): the model
 * is loaded once, not for every sentence, and the utterance is decoded whole. Longer audio — a call, a
 * recording of minutes — goes to `pocketsphinx_continuous`, which cuts it at pauses and decodes the
 * pieces; it reads a temp file (it opens `-infile` by name, and Node's stdin pipes are sockets it cannot
 * open). Without `pocketsphinx_batch` beside `pocketsphinx_continuous`, all audio goes the second way.
 *
 * Confidence: run with `-time yes` (a warm decoder: in its CTM lines), PocketSphinx gives every
 * recognised word with its posterior probability (0..1); we report the mean posterior of the real words
 * (fillers, silences and sentence markers excluded), or null when no word was recognised.
 */
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { availableParallelism, tmpdir } from 'node:os';
import { execa } from 'execa';
import { resamplePcm16 } from '../../audio/resample.js';
import { lowerChildPriority } from '../background-priority.js';
import { ConcurrencyLimit } from './limit.js';
import { findOnPath } from './sphinx-command.js';
import { createSphinxDecoders, type SphinxDecoders } from './sphinx-decoders.js';
import { SttError, type SttAdapter, type SttAudio, type SttOutput, type TranscribeOptions } from './types.js';

/** Where the packages put the US English model. */
const MODEL_DIRS = [
  '/usr/share/pocketsphinx/model/en-us',
  '/usr/local/share/pocketsphinx/model/en-us',
  '/opt/homebrew/share/pocketsphinx/model/en-us',
];
const INSTALL_HINT =
  'install PocketSphinx: `sudo apt-get install pocketsphinx pocketsphinx-en-us` (Debian/Ubuntu) or `brew install cmu-pocketsphinx` (macOS)';
/** PocketSphinx models are trained on 16 kHz audio. */
export const SPHINX_RATE = 16000;
/** The longest audio a warm decoder hears whole; longer audio is cut at pauses by pocketsphinx_continuous. */
export const WARM_MAX_SECONDS = 30;

/** Options of the local recognizer; every default suits the Debian package. */
export interface SphinxOptions {
  /** Executable name or path (default `pocketsphinx_continuous`, looked up on PATH). */
  binary?: string;
  /** Folder holding `en-us/` (acoustic model), `en-us.lm.bin` and `cmudict-en-us.dict` (default: first found of the package paths). */
  modelDir?: string;
  /** Recognitions running at once (default: CPU count); the rest queue. */
  maxConcurrent?: number;
  /** Kill a recognition after this long (default 120 s), plus `timeoutPerAudioSecondMs` a second of audio; the caller's signal ends it sooner. */
  timeoutMs?: number;
  /** What a second of audio adds to `timeoutMs` (default 0): a whole call of minutes decodes for longer than a sentence. */
  timeoutPerAudioSecondMs?: number;
  /** PATH to search (default process.env.PATH). */
  path?: string;
}

/** Absolute paths of the executable and the three model parts. */
export interface Resolved {
  binary: string;
  hmm: string;
  lm: string;
  dict: string;
}

function isFile(path: string, mode = constants.R_OK): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

function findBinary(binary: string, pathVar: string): string | undefined {
  if (binary.includes('/')) return isFile(binary, constants.X_OK) ? binary : undefined;
  return findOnPath(binary, pathVar);
}

function resolve(opts: SphinxOptions): Resolved | string {
  const binaryName = opts.binary ?? 'pocketsphinx_continuous';
  const binary = findBinary(binaryName, opts.path ?? process.env.PATH ?? '');
  if (!binary) return `${binaryName} not found; ${INSTALL_HINT}`;
  for (const dir of opts.modelDir ? [opts.modelDir] : MODEL_DIRS) {
    const r = { binary, hmm: join(dir, 'en-us'), lm: join(dir, 'en-us.lm.bin'), dict: join(dir, 'cmudict-en-us.dict') };
    if (isFile(join(r.hmm, 'mdef')) && isFile(r.lm) && isFile(r.dict)) return r;
  }
  return `PocketSphinx US English model not found${opts.modelDir ? ` in ${opts.modelDir}` : ''}; ${INSTALL_HINT}`;
}

const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/;

/** Parses `-time yes` output: hypothesis lines, and one `word start end posterior` line per word. */
export function parseSphinxOutput(stdout: string): SttOutput {
  const hypotheses: string[] = [];
  const posteriors: number[] = [];
  for (const raw of stdout.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const m = WORD_LINE.exec(line);
    if (m) {
      const word = m[1] as string;
      // <s>, </s>, <sil> and [NOISE]-style fillers are not words of the transcript.
      if (!/^(<.*>|\[.*\])$/.test(word)) posteriors.push(Number(m[4]));
    } else {
      hypotheses.push(line);
    }
  }
  const confidence = posteriors.length ? posteriors.reduce((a, b) => a + b, 0) / posteriors.length : null;
  return { transcript: hypotheses.join(' ').replace(/\s+/g, ' ').trim(), confidence: confidence === null ? null : Math.min(1, Math.max(0, confidence)) };
}

/** Arguments for raw 16 kHz PCM16 in `infile` (a `.wav` name makes it read a WAV): the adapter's and the benchmark's. */
export function sphinxArgs(r: Resolved, infile: string): string[] {
  return ['-infile', infile, '-hmm', r.hmm, '-lm', r.lm, '-dict', r.dict, '-time', 'yes', '-logfn', '/dev/null'];
}

/** Resolves binary and model paths, or explains what is missing (with the install hint). */
export function resolveSphinx(opts: SphinxOptions = {}): Resolved | string {
  return resolve(opts);
}

/** `pocketsphinx_batch` beside the resolved `pocketsphinx_continuous`, when the package has it. */
export function batchBinaryBeside(r: Resolved): string | undefined {
  const batch = join(dirname(r.binary), 'pocketsphinx_batch');
  return isFile(batch, constants.X_OK) ? batch : undefined;
}

/** Creates the `local-sphinx` adapter. Absent binary or model → `provider_unavailable` with the install hint. */
export function createLocalSphinxAdapter(opts: SphinxOptions = {}): SttAdapter {
  const limit = new ConcurrencyLimit(opts.maxConcurrent ?? availableParallelism());
  const timeoutMs = opts.timeoutMs ?? 120_000;
  let decoders: SphinxDecoders | undefined;
  return {
    adapter: 'local-sphinx',
    model: 'en-us',
    // pocketsphinx_continuous takes a whole grammar or dictionary, not a boost list: no keyterms.
    supportsKeyterms: false,
    check() {
      const r = resolve(opts);
      return typeof r === 'string' ? { ok: false, detail: r } : { ok: true };
    },
    async transcribe(audio: SttAudio, options: TranscribeOptions) {
      const r = resolve(opts);
      if (typeof r === 'string') throw new SttError('provider_unavailable', r);
      const pcm = await resamplePcm16(audio.pcm, audio.sampleRate, SPHINX_RATE);
      const budget = timeoutMs + Math.round((opts.timeoutPerAudioSecondMs ?? 0) * audio.durationSeconds);
      const batch = audio.durationSeconds > WARM_MAX_SECONDS ? undefined : batchBinaryBeside(r);
      if (batch) {
        const pool = (decoders ??= createSphinxDecoders({ batch, hmm: r.hmm, lm: r.lm, dict: r.dict, pathVar: opts.path }));
        return limit.run(() => pool.decode({ pcm, timeoutMs: budget, signal: options.signal }), options.signal).catch((err: unknown) => {
          if (options.signal.aborted && !(err instanceof SttError)) throw new SttError('timeout', 'PocketSphinx did not finish in time', { cause: err });
          throw err;
        });
      }
      const result = await limit.run(async () => {
        const dir = await mkdtemp(join(tmpdir(), 'voxctl-sphinx-'));
        try {
          const infile = join(dir, 'audio.raw');
          await writeFile(infile, Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
          const child = execa(r.binary, sphinxArgs(r, infile), {
            stdin: 'ignore',
            timeout: budget,
            cancelSignal: options.signal,
            reject: false,
            maxBuffer: 64 * 1024 * 1024,
          });
          // Below the event loop that times hosted vendors beside it (DESIGN §15.4).
          lowerChildPriority(child.pid);
          return await child;
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }, options.signal).catch((err: unknown) => {
        if (options.signal.aborted) throw new SttError('timeout', 'PocketSphinx did not finish in time', { cause: err });
        throw err;
      });
      if (result.isCanceled || result.timedOut) throw new SttError('timeout', 'PocketSphinx did not finish in time');
      if (result.failed) {
        const detail = result.stderr.trim().split('\n').pop() || result.shortMessage;
        throw new SttError('provider_unavailable', `PocketSphinx failed: ${detail}`);
      }
      return parseSphinxOutput(result.stdout);
    },
    async close() {
      await decoders?.close();
    },
  };
}
