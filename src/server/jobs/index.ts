import { availableParallelism } from 'node:os';
import type { Clock } from '../clock.js';
import type { TtsPool } from '../engines/tts/types.js';
import type { Logger } from '../logger.js';
import type { Db } from '../storage/db.js';
import { refundCharacters } from '../services/quota.js';
import { renderSpeech, resolveVoice } from '../services/synthesis.js';
import { createJobRunner, type JobRunner } from './runner.js';
import type { WorkSharing } from './leases.js';
import type { AudioBlobStore } from '../storage/blobs/index.js';

/** What the batch runner uses of the runtime, and nothing more (the evaluation runner adds STT to it). */
export interface JobRunnerWiring {
  db: Db;
  /** Where audio bytes go (the data dir's folder, the database, or S3). */
  blobs: AudioBlobStore;
  clock: Clock;
  /** TTS workers (default: one per core): sets how many items run at once. */
  ttsWorkers: number | undefined;
  /** The TTS pool, read per item (a test may swap the runtime's pool). */
  tts(): TtsPool;
  logger: Logger;
  /** This instance's part in the shared queues. */
  work: WorkSharing;
}

/** Builds the batch runner over the SQLite queue; the composition root starts it and stops it on close. */
export function createBatchRunner(w: JobRunnerWiring): JobRunner {
  const workers = w.ttsWorkers ?? availableParallelism();
  return createJobRunner({
    db: w.db,
    blobs: w.blobs,
    work: w.work,
    clock: w.clock,
    concurrency: Math.max(2, workers * 2),
    async render(item) {
      const voice = await resolveVoice(w.db, item.speakerId);
      if (!voice) throw new Error(`Speaker not found: ${item.speakerId}`);
      return renderSpeech(w.tts(), { text: item.text, voice, sampleRate: item.sampleRate });
    },
    refund: refundCharacters,
    onError: (err) => w.logger.error({ err }, 'voxctl job runner'),
  });
}
