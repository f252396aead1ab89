/**
 * Worker threads that decode uploaded audio files (decode-worker.ts), so a corpus upload's decoding runs
 * beside the event loop instead of on it: the loop keeps extracting the archive, answering health checks
 * and storing what is done, while a thread decodes the files already extracted. The uploads running at
 * once take turns, a file each (a 20,000-file corpus does not hold up someone's ten files); each one's
 * files are taken in the order asked for. Threads start when there is work and end after a while
 * without any, so an idle service holds none.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { resolveWorkerUrl, startWorker } from '../workers.js';
import type { DecodeReply, DecodeRequest } from './decode-protocol.js';
import { FileDecodeError, type FileDecodeLimits } from './file-decode.js';

/** A file decoded into its WAV file: its rate, its frames and the WAV's size. */
export interface DecodedToFile {
  sampleRate: number;
  frames: number;
  bytes: number;
}

/** What became of one file: written, refused (why), or one only ffmpeg reads (`'ffmpeg'`). */
export type DecodeOutcome = DecodedToFile | FileDecodeError | 'ffmpeg';

/** The pool. */
export interface DecodePool {
  /**
   * Decodes `path` under `limits` on a worker thread and writes it as a mono PCM16 WAV to `out`. Rejects
   * only for failures that are not the file's (the disk, a worker that died), or with `signal`'s reason.
   * Files of one `turn` (an upload) wait behind each other, and take turns with those of the others.
   */
  decodeToFile(path: string, out: string, limits: FileDecodeLimits, o?: { signal?: AbortSignal; turn?: object }): Promise<DecodeOutcome>;
  /** Threads running now, busy ones, and files waiting. */
  stats(): { workers: number; busy: number; queued: number };
  /** Ends every thread; what is queued or running rejects. */
  close(): Promise<void>;
}

/** Options of `createDecodePool`. */
export interface DecodePoolOptions {
  /** Threads at most (default `defaultDecodeThreads()`). */
  size?: number;
  /** A thread with nothing to do ends after this long (default 10 s). */
  idleMs?: number;
  /** Worker entry (default `./decode-worker.js` beside this module, mapped from src/ to dist/ under tests). */
  workerUrl?: URL;
}

/**
 * Threads a service decodes with: one core is left to the event loop (extracting, storing, answering),
 * and two threads at most, so an upload cannot take a large machine from every other user.
 */
export function defaultDecodeThreads(cores: number = availableParallelism()): number {
  return Math.max(1, Math.min(2, cores - 1));
}

/**
 * A decoder's JavaScript keeps little (samples live in typed arrays, the codecs in WebAssembly memory); the
 * caps keep a file that made it allocate without end from taking the process (the thread dies, the file is refused).
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 256 };

interface Job {
  id: number;
  request: Extract<DecodeRequest, { type: 'decode' }>;
  signal?: AbortSignal;
  settle(outcome: DecodeOutcome | Error, failed?: boolean): void;
}

interface Slot {
  worker: Worker;
  jobs: Map<number, Job>;
  idle?: NodeJS.Timeout;
  error?: Error;
}

/**
 * Files a thread is given at once: while one waits for its reads (on libuv's threads) the other decodes,
 * and a thread that finishes one never waits for the event loop to hand it the next.
 */
const FILES_PER_THREAD = 2;

const closedError = () => new Error('The audio decoding pool is closed');

/**
 * A file's refusal as the thread sent it, without a stack: this thread's stack says nothing about the
 * file, and an archive of 100,000 broken files would otherwise hold 100,000 captured stacks until its
 * upload ends.
 */
function refusal(reason: FileDecodeError['reason'], message: string): FileDecodeError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new FileDecodeError(reason, message);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Creates the pool; no thread starts until the first file. */
export function createDecodePool(options: DecodePoolOptions = {}): DecodePool {
  const size = Math.max(1, Math.floor(options.size ?? defaultDecodeThreads()));
  const idleMs = options.idleMs ?? 10_000;
  const workerUrl = options.workerUrl ?? resolveWorkerUrl(import.meta.url, 'decode-worker.js');
  const slots: Slot[] = [];
  // What waits, by turn (insertion order is the order turns come round); files without one share one.
  const queues = new Map<object, Job[]>();
  const anyone = {};
  const queued = () => [...queues.values()].reduce((n, q) => n + q.length, 0);
  /** The next file: the first of the turn whose go it is, that turn then moved to the back. */
  const nextJob = (): Job | undefined => {
    for (const [turn, jobs] of queues) {
      const job = jobs.shift();
      queues.delete(turn);
      if (jobs.length > 0) queues.set(turn, jobs);
      if (job) return job;
    }
    return undefined;
  };
  let nextId = 1;
  let closed = false;

  function start(): Slot {
    const slot: Slot = { worker: startWorker(workerUrl, WORKER_LIMITS), jobs: new Map() };
    slot.worker.on('message', (reply: DecodeReply) => onReply(slot, reply));
    slot.worker.on('error', (err) => (slot.error = err));
    slot.worker.on('exit', () => onExit(slot));
    slots.push(slot);
    return slot;
  }

  function onReply(slot: Slot, reply: DecodeReply): void {
    const job = slot.jobs.get(reply.id);
    if (!job) return;
    slot.jobs.delete(reply.id);
    // Whatever the thread did, a caller that has stopped waiting is told why it stopped.
    if (job.signal?.aborted) job.settle(toError(job.signal.reason), true);
    else if (reply.type === 'decoded') job.settle({ sampleRate: reply.sampleRate, frames: reply.frames, bytes: reply.bytes });
    else if (reply.type === 'refused') job.settle(refusal(reply.reason, reply.message));
    else if (reply.type === 'ffmpeg') job.settle('ffmpeg');
    else job.settle(new Error(`Decoding failed: ${reply.message}`), true);
    dispatch();
  }

  function onExit(slot: Slot): void {
    clearTimeout(slot.idle);
    const at = slots.indexOf(slot);
    if (at >= 0) slots.splice(at, 1);
    const jobs = [...slot.jobs.values()];
    slot.jobs.clear();
    // A file that made its decoder exhaust the thread's heap is refused (which of those running did is
    // unknown: each is refused); any other death is ours.
    const outOfMemory = (slot.error as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
    for (const job of jobs) {
      if (outOfMemory) job.settle(refusal('corrupt', 'unsupported or corrupt audio'));
      else job.settle(closed ? closedError() : new Error(`The audio decoding thread stopped${slot.error ? `: ${slot.error.message}` : ''}`), true);
    }
    if (!closed) dispatch();
  }

  function dispatch(): void {
    while (queues.size > 0) {
      // The least busy thread, or a new one while every running thread has work.
      const free = slots.filter((s) => s.jobs.size < FILES_PER_THREAD).sort((a, b) => a.jobs.size - b.jobs.size)[0];
      const slot = free && (free.jobs.size === 0 || slots.length >= size) ? free : slots.length < size ? start() : undefined;
      if (!slot) break;
      const job = nextJob();
      if (!job) break;
      clearTimeout(slot.idle);
      slot.idle = undefined;
      slot.jobs.set(job.id, job);
      slot.worker.ref();
      slot.worker.postMessage(job.request);
    }
    for (const slot of slots) {
      if (slot.jobs.size > 0 || slot.idle) continue;
      // An idle thread never keeps the process alive, and ends after `idleMs` without work.
      slot.worker.unref();
      slot.idle = setTimeout(() => void slot.worker.terminate(), idleMs);
      slot.idle.unref();
    }
  }

  return {
    decodeToFile(path, out, limits, o = {}) {
      const { signal } = o;
      const turn = o.turn ?? anyone;
      return new Promise<DecodeOutcome>((resolve, reject) => {
        if (closed) return reject(closedError());
        if (signal?.aborted) return reject(toError(signal.reason));
        const id = nextId++;
        const onAbort = () => {
          const waiting = queues.get(turn);
          const at = waiting?.indexOf(job) ?? -1;
          if (waiting && at >= 0) {
            waiting.splice(at, 1);
            if (waiting.length === 0) queues.delete(turn);
            job.settle(toError(signal?.reason), true);
          } else {
            slots.find((s) => s.jobs.has(id))?.worker.postMessage({ type: 'cancel', id } satisfies DecodeRequest);
          }
        };
        const job: Job = {
          id,
          request: { type: 'decode', id, path, out, limits },
          signal,
          settle(outcome, failed) {
            signal?.removeEventListener('abort', onAbort);
            if (failed) reject(outcome as Error);
            else resolve(outcome as DecodeOutcome);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        const waiting = queues.get(turn);
        if (waiting) waiting.push(job);
        else queues.set(turn, [job]);
        dispatch();
      });
    },
    stats: () => ({ workers: slots.length, busy: slots.filter((s) => s.jobs.size > 0).length, queued: queued() }),
    async close() {
      if (closed) return;
      closed = true;
      const waiting = [...queues.values()].flat();
      queues.clear();
      for (const job of waiting) job.settle(closedError(), true);
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}

const toError = (reason: unknown): Error => (reason instanceof Error ? reason : new Error(String(reason)));
