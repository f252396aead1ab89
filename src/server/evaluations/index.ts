import { availableParallelism } from 'node:os';
import { ConcurrencyLimit } from '../engines/stt/limit.js';
import type { SttAdapter } from '../engines/stt/types.js';
import type { SttRegistry } from '../engines/stt/registry.js';
import type { JobRunnerWiring } from '../jobs/index.js';
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

/** What the evaluation runner uses of the runtime: the batch runner's collaborators plus the STT providers. */
export interface EvaluationRunnerWiring extends JobRunnerWiring {
  stt: SttRegistry;
  /** `max_concurrent` of local-sphinx in the server config. */
  sphinxMax: number | undefined;
}

/** Builds the evaluation runner over its database queue; the composition root starts it and stops it on close. */
export function createEvaluationRunnerFor(w: EvaluationRunnerWiring): EvaluationRunner {
  const workers = w.ttsWorkers ?? availableParallelism();
  const limitOf = adapterLimits({ cores: availableParallelism(), sphinxMax: w.sphinxMax });
  return createEvaluationRunner({
    db: w.db,
    blobs: w.blobs,
    work: w.work,
    clock: w.clock,
    // A few syntheses ahead of the recognisers keep them busy while the next speech is made.
    lookahead: Math.max(4, workers * 3),
    async synthesize(speakerId, text) {
      const voice = await resolveVoice(w.db, speakerId);
      if (!voice) throw new Error(`Speaker not found: ${speakerId}`);
      return renderSpeech(w.tts(), { text, voice });
    },
    transcribe: (provider, audio, signal) =>
      runProvider({ registry: w.stt, signal, logError: (err) => w.logger.error({ err, provider }, 'voxctl evaluation') }, provider, audio, undefined),
    limitFor: (provider) => limitOf(w.stt.get(provider)?.adapter),
    refund: refundCharacters,
    onError: (err) => w.logger.error({ err }, 'voxctl evaluation runner'),
  });
}
