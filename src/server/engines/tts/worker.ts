/**
 * Entry of a TTS worker thread: answers `synthesize` requests one at a time with the engine the voice
 * is bound to. Engines load on first use, so spawning a worker is cheap and a server starts fast.
 */
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';
import { lowerThisThread } from '../background-priority.js';
import { TtsError, serializeTtsError } from './errors.js';
import type { AssetReply, SynthesizeRequest, WorkerReply } from './protocol.js';
import type { SharedAssetName, SharedAssetTypes } from './shared-assets.js';
import { TEST_CRASH, TEST_CRASH_FIRST, TEST_FAIL, TEST_HANG, TEST_HOOKS_ENV } from './protocol.js';
import type { TtsEngine, TtsEngineName } from './types.js';

type LoadableEngine = TtsEngine & { load(): Promise<void> };

const port = parentPort;
if (!port) throw new Error('worker.ts runs as a worker thread of the TTS pool');

const engines = new Map<TtsEngineName, Promise<LoadableEngine>>();

/**
 * Synthesis yields to the event loop that times vendor requests (DESIGN §15.4): this thread runs at nice
 * 10. A thread is born with its creator's nice value and libuv's thread pool, shared with the main thread,
 * is started by the first thread to use it — so one request through the pool comes first: its threads
 * exist, at the main thread's priority, before this one lowers itself.
 */
const lowered = stat(fileURLToPath(import.meta.url)).then(lowerThisThread, lowerThisThread);

/** The engine for `name`, created and loaded once per worker; reports the outcome to the pool. */
function engine(name: TtsEngineName): Promise<LoadableEngine> {
  let e = engines.get(name);
  if (!e) {
    e = (async () => {
      const created: LoadableEngine =
        name === 'flite'
          ? (await import('./flite.js')).createFliteEngine({ module: () => asset('flite-module') })
          : name === 'espeak'
            ? (await import('./espeak.js')).createEspeakEngine({ dataPackage: () => asset('espeak-data') })
            : invalidEngine(name);
      await created.load();
      return created;
    })();
    engines.set(name, e);
    e.then(
      () => reply({ type: 'engine', engine: name, ok: true }),
      (err: unknown) => {
        engines.delete(name); // a later request tries again
        if (!(err instanceof TtsError && err.code === 'invalid_voice')) {
          reply({ type: 'engine', engine: name, ok: false, message: (err as Error).message });
        }
      },
    );
  }
  return e;
}

/** Callers waiting for an asset from the pool, by name (one request per name in flight). */
const assetWaiters = new Map<SharedAssetName, { resolve(value: unknown): void; reject(err: Error): void }[]>();

/** Asks the pool for an asset every worker of the process shares (see shared-assets.ts). */
function asset<K extends SharedAssetName>(name: K): Promise<SharedAssetTypes[K]> {
  return new Promise((resolve, reject) => {
    const waiting = assetWaiters.get(name) ?? [];
    waiting.push({ resolve: resolve as (value: unknown) => void, reject });
    assetWaiters.set(name, waiting);
    if (waiting.length === 1) reply({ type: 'asset', name });
  });
}

function onAsset(msg: AssetReply): void {
  const waiting = assetWaiters.get(msg.name) ?? [];
  assetWaiters.delete(msg.name);
  for (const w of waiting) {
    if (msg.value !== undefined) w.resolve(msg.value);
    else w.reject(new Error(msg.message ?? `The shared ${msg.name} could not be loaded`));
  }
}

function invalidEngine(name: string): never {
  throw new TtsError('invalid_voice', `Unknown TTS engine: ${name}`);
}

function reply(message: WorkerReply, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer);
}

function testHooks(req: SynthesizeRequest): void {
  if (process.env[TEST_HOOKS_ENV] !== '1') return;
  if (req.text.includes(TEST_CRASH) || (req.text.includes(TEST_CRASH_FIRST) && req.attempt === 1)) process.exit(1);
  if (req.text.includes(TEST_FAIL)) throw new TtsError('engine_error', 'Synthesis failed (test hook)');
  if (req.text.includes(TEST_HANG)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

async function handle(req: SynthesizeRequest): Promise<void> {
  try {
    await lowered;
    testHooks(req);
    const result = await (await engine(req.voice.engine)).synthesize(req.text, req.voice);
    // Transfer a buffer that holds exactly these samples.
    const pcm =
      result.pcm.byteOffset === 0 && result.pcm.byteLength === result.pcm.buffer.byteLength ? result.pcm : result.pcm.slice();
    const buffer = pcm.buffer as ArrayBuffer;
    reply({ type: 'result', id: req.id, pcm: buffer, sampleRate: result.sampleRate }, [buffer]);
  } catch (err) {
    reply({ type: 'error', id: req.id, error: serializeTtsError(err) });
  }
}

port.on('message', (msg: SynthesizeRequest | AssetReply) => {
  if (msg.type === 'synthesize') void handle(msg);
  else if (msg.type === 'asset') onAsset(msg);
});
