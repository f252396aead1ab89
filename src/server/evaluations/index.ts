import { availableParallelism } from 'node:os';
import type { Runtime } from '../runtime.js';
import { ConcurrencyLimit } from '../engines/stt/limit.js';
import type { SttAdapter } from '../engines/stt/types.js';
import { createSttRegistry } from '../engines/stt/registry.js';
import { refundCharacters } from '../services/quota.js';
import { renderSpeech, resolveVoice } from '../services/synthesis.js';
import { runProvider } from '../services/transcription.js';
import { createEvaluationRunner, type EvaluationRunner } from './runner.js';

/**
 * Requests in flight at once to one hosted vendor adapter: enough to hide network latency, few enough
 * to stay under the free tiers' concurrency caps (answers of `rate_limited` are recorded, not retried).
 */
export const VENDOR_CONCURRENCY = 4;

/**
 * The concurrency limit of each adapter, shared by every provider token bound to it: PocketSphinx is
 * CPU-bound, so never more recognisers than cores (nor than its configured `max_concurrent`).
 */
export function adapterLimits(options: { cores: number; sphinxMax?: number }): (adapter: SttAdapter | undefined) => ConcurrencyLimit {
  const limits = new Map<SttAdapter | undefined, ConcurrencyLimit>();
  return (adapter) => {
    let limit = limits.get(adapter);
    if (!limit) {
      const max = adapter?.adapter === 'local-sphinx' ? Math.min(options.cores, options.sphinxMax ?? options.cores) : VENDOR_CONCURRENCY;
      limits.set(adapter, (limit = new ConcurrencyLimit(max)));
    }
    return limit;
  };
}

/**
 * Wires the evaluation runner to the runtime's database, TTS pool and STT registry, starts it (crash
 * recovery first) and stops it on close — before the pool closes, since closers run in reverse order.
 */
export function startEvaluationRunner(runtime: Runtime): EvaluationRunner {
  const workers = runtime.options.ttsWorkers ?? availableParallelism();
  const registry = runtime.stt ?? createSttRegistry({ stt: { providers: {}, localSphinx: {} } });
  const limitOf = adapterLimits({ cores: availableParallelism(), sphinxMax: runtime.config?.stt.localSphinx.max_concurrent });
  const runner = createEvaluationRunner({
    db: runtime.db,
    dataDir: runtime.options.dataDir,
    clock: runtime.clock,
    // A few syntheses ahead of the recognisers keep them busy while the next speech is made.
    lookahead: Math.max(4, workers * 3),
    async synthesize(speakerId, text) {
      const voice = resolveVoice(runtime.db, speakerId);
      if (!voice) throw new Error(`Speaker not found: ${speakerId}`);
      return renderSpeech(runtime.tts, { text, voice });
    },
    transcribe: (provider, audio, signal) =>
      runProvider({ registry, signal, logError: (err) => console.error(`voxctl evaluation (${provider}):`, err) }, provider, audio, undefined),
    limitFor: (provider) => limitOf(registry.get(provider)?.adapter),
    refund: refundCharacters,
    onError: (err) => console.error('voxctl evaluation runner:', err),
  });
  runtime.onClose(() => runner.stop());
  runner.start();
  return runner;
}
