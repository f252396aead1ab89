import type { Db } from '../../storage/db.js';
import type { BatchCreated, BatchItem } from '../../../shared/schemas/tts.js';
import { validationFailed } from '../../../shared/errors.js';
import { speakerVoice } from '../synthesis/index.js';
import { assertValidText } from '../../../shared/text-rules.js';
import { assertActiveSubscription } from '../accounts/index.js';
import { enqueueJob, newJobId } from './jobs.js';
import { rememberIdempotent, replayIdempotent, requestHash } from './idempotency.js';

import { MAX_BATCH_ITEMS } from '../../../shared/constants.js';

export { MAX_BATCH_ITEMS };

/** Every rule of DESIGN §4.8 checked before anything is stored: count, each text, each speaker. */
export async function validateBatchItems(db: Db, items: BatchItem[]): Promise<void> {
  if (items.length === 0) throw validationFailed('Batch must contain at least one item');
  if (items.length > MAX_BATCH_ITEMS) throw validationFailed(`Batch exceeds maximum of ${MAX_BATCH_ITEMS} items`);
  items.forEach((it, i) => assertValidText(it.text, `Item ${i}: `));
  for (const it of items) {
    await speakerVoice(db, it.speaker_id);
  }
}

/**
 * POST /v1/tts/batch: validates every item, then reserves all characters and inserts the job in one
 * transaction; with an `Idempotency-Key` a repeated identical request gets the first response back.
 */
export async function createBatch(
  deps: { db: Db; now: Date },
  input: { userId: string; items: BatchItem[]; sampleRate?: number; idempotencyKey?: string },
): Promise<BatchCreated> {
  const { db, now } = deps;
  const key = input.idempotencyKey;
  const hash = requestHash({
    items: input.items.map((it) => [it.speaker_id, it.text]),
    sample_rate: input.sampleRate ?? null,
  });
  if (key) {
    const replay = await replayIdempotent<BatchCreated>(db, { userId: input.userId, key, hash, now });
    if (replay) return replay;
  }
  await validateBatchItems(db, input.items);
  await assertActiveSubscription(db, input.userId);
  const jobId = newJobId();
  return db.transaction(async () => {
    // Checked again under the write lock: two identical requests racing create one job.
    if (key) {
      const replay = await replayIdempotent<BatchCreated>(db, { userId: input.userId, key, hash, now });
      if (replay) return replay;
    }
    const job = await enqueueJob(db, {
      id: jobId,
      userId: input.userId,
      items: input.items.map((it) => ({ speakerId: it.speaker_id, text: it.text })),
      sampleRate: input.sampleRate ?? null,
      now,
    });
    const response: BatchCreated = { job_id: job.id, status: 'pending', total_items: job.total_items, created_at: job.created_at };
    if (key) await rememberIdempotent(db, { userId: input.userId, key, hash, now, response });
    return response;
  });
}
