/**
 * The decoding of one upload's audio files on the decoding pool (audio/decode-pool.ts). A file starts
 * decoding as soon as the archive's extraction has written it (`written`), while the rest of the archive
 * is still arriving, so by the time the manifest is read most of the audio is already decoded; the files
 * the manifest names that were not (another extension, a recorded call's longer limits, a zip extracted
 * only once received) are decoded when asked for (`outcome`). Each result is a WAV file in the upload's
 * own folder, ready to be moved into the blob store.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DecodeOutcome, DecodePool } from '../../audio/decode-pool.js';
import { FileDecodeError, type FileDecodeLimits } from '../../audio/file-decode.js';
import { CORPUS_LIMITS } from '../../../shared/constants.js';

/** A decoded file's outcome and the WAV file it was written to (when it was). */
export interface DecodeResult {
  outcome: DecodeOutcome;
  file: string;
}

/** What an upload asks of its decoding. */
export interface UploadDecodes {
  /**
   * The extraction has written `path` (relative to the upload's files): audio by its name starts decoding
   * now, unless `EARLY_IN_FLIGHT` files of the upload are decoding or waiting already, or as many files as
   * a corpus may name have been started — then it is decoded when the manifest asks for it. An archive of
   * 100,000 tiny files never queues 100,000 (DESIGN §17: an upload stays within its memory bound), and the
   * extraction never waits for the decoding: pausing the upload's body cost more CPU than it saved.
   */
  written(path: string): void;
  /** The file at `path` decoded under `limits`: the decoding begun when it was written when that one fits, else a new one. */
  outcome(path: string, limits: FileDecodeLimits, signal?: AbortSignal): Promise<DecodeResult>;
  /** Stops what is still to decode and waits until nothing writes into the upload's folder. */
  close(): Promise<void>;
}

/** Early decodes an upload has running or queued at once: more than a tar's extraction outruns the decoding by. */
const EARLY_IN_FLIGHT = 1024;

/** Names of the files decoded as they are extracted: what the corpus layouts name as audio, less M4A (ffmpeg's, in batches). */
const EARLY_AUDIO = /\.(wav|flac|mp3|ogg|oga|opus)$/i;

interface Started {
  limits: FileDecodeLimits;
  result: Promise<DecodeResult>;
}

/**
 * The decoding of the upload whose files are extracted under `filesDir`, writing WAV files under `outDir`;
 * files are decoded as they are written under `early` (the upload's limits for an utterance).
 */
export function createUploadDecodes(pool: DecodePool, o: { filesDir: string; outDir: string; early: FileDecodeLimits }): UploadDecodes {
  const stop = new AbortController();
  // This upload's turn on the pool: uploads running at once take turns, a file each.
  const turn = {};
  const started = new Map<string, Started>();
  // A path an archive writes twice is decoded only when asked for: an early result would be of the first bytes.
  const rewritten = new Set<string>();
  const running = new Set<Promise<unknown>>();
  // Early decodes under way or queued.
  let early = 0;
  let files = 0;
  // Made by the first file (a zip's upload has none until it is extracted).
  let folder: Promise<unknown> | undefined;

  const run = (path: string, limits: FileDecodeLimits, signal?: AbortSignal): Promise<DecodeResult> => {
    folder ??= mkdir(o.outDir, { recursive: true, mode: 0o700 });
    const file = join(o.outDir, `${files++}.wav`);
    const signals = signal ? AbortSignal.any([stop.signal, signal]) : stop.signal;
    const result = folder.then(() => pool.decodeToFile(join(o.filesDir, path), file, limits, { signal: signals, turn })).then((outcome) => ({ outcome, file }));
    const tracked = result.catch(() => undefined).finally(() => running.delete(tracked));
    running.add(tracked);
    return result;
  };

  return {
    written(path) {
      if (stop.signal.aborted || !EARLY_AUDIO.test(path)) return;
      if (started.has(path) || rewritten.has(path)) {
        started.delete(path);
        rewritten.add(path);
        return;
      }
      // A corpus names at most CORPUS_LIMITS.utterances files: decoding more ahead of the manifest is waste.
      if (early >= EARLY_IN_FLIGHT || started.size >= CORPUS_LIMITS.utterances) return;
      const result = run(path, o.early);
      early++;
      // Asked for later or never (a file the manifest does not name): its failure is handled where asked.
      const ended = () => void early--;
      void result.then(ended, ended);
      started.set(path, { limits: o.early, result });
    },
    async outcome(path, limits, signal) {
      const early = started.get(path);
      if (early) {
        const same = early.limits.maxBytes === limits.maxBytes && early.limits.maxSeconds === limits.maxSeconds;
        if (same) return early.result;
        // Wider limits (a recorded call's) keep what the utterance limits decoded or refused as corrupt.
        const wider = limits.maxBytes >= early.limits.maxBytes && limits.maxSeconds >= early.limits.maxSeconds;
        const done = await early.result.catch(() => undefined);
        const overLimit = done?.outcome instanceof FileDecodeError && (done.outcome.reason === 'too_long' || done.outcome.reason === 'too_big');
        if (wider && done && !overLimit) return done;
      }
      return run(path, limits, signal);
    },
    async close() {
      stop.abort();
      while (running.size > 0) await Promise.all(running);
    },
  };
}
