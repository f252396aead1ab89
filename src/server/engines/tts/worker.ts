/**
 * Entry of a TTS worker thread: answers `synthesize` requests one at a time with the engine the voice
 * is bound to. Engines load on first use, so spawning a worker is cheap and a server starts fast.
 */
import { parentPort } from 'node:worker_threads';
import { TtsError, serializeTtsError } from './errors.js';
import type { SynthesizeRequest, WorkerReply } from './protocol.js';
import { TEST_CRASH, TEST_CRASH_FIRST, TEST_FAIL, TEST_HANG, TEST_HOOKS_ENV } from './protocol.js';
import type { TtsEngine, TtsEngineName } from './types.js';

type LoadableEngine = TtsEngine & { load(): Promise<void> };

const port = parentPort;
if (!port) throw new Error('worker.ts runs as a worker thread of the TTS pool');

const engines = new Map<TtsEngineName, Promise<LoadableEngine>>();

/** The engine for `name`, created and loaded once per worker; reports the outcome to the pool. */
function engine(name: TtsEngineName): Promise<LoadableEngine> {
  let e = engines.get(name);
  if (!e) {
    e = (async () => {
      const created: LoadableEngine =
        name === 'flite'
          ? (await import('./flite.js')).createFliteEngine()
          : name === 'espeak'
            ? (await import('./espeak.js')).createEspeakEngine()
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

port.on('message', (msg: SynthesizeRequest) => {
  if (msg.type === 'synthesize') void handle(msg);
});
