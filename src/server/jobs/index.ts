import { availableParallelism } from 'node:os';
import type { Runtime } from '../runtime.js';
import { refundCharacters } from '../services/quota.js';
import { renderSpeech, resolveVoice } from '../services/synthesis.js';
import { createJobRunner, type JobRunner } from './runner.js';

/**
 * Wires the batch runner to the runtime's database, pool and quota, starts it (crash recovery first)
 * and stops it on close — before the pool closes, since closers run in reverse order.
 */
export function startJobRunner(runtime: Runtime): JobRunner {
  const workers = runtime.options.ttsWorkers ?? availableParallelism();
  const runner = createJobRunner({
    db: runtime.db,
    dataDir: runtime.options.dataDir,
    clock: runtime.clock,
    concurrency: Math.max(2, workers * 2),
    async render(item) {
      const voice = resolveVoice(runtime.db, item.speakerId);
      if (!voice) throw new Error(`Speaker not found: ${item.speakerId}`);
      return renderSpeech(runtime.tts, { text: item.text, voice, sampleRate: item.sampleRate });
    },
    refund: refundCharacters,
    onError: (err) => console.error('voxctl job runner:', err),
  });
  runtime.onClose(() => runner.stop());
  runner.start();
  return runner;
}
