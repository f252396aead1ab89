import type { Db } from '../../storage/db.js';
import type { EvaluationStatus } from '../../../shared/schemas/evaluations.js';
import { allUtterances, countSyntheses, finishEvaluation, getEvaluation, listEvaluationSpeakers } from './repository.js';
import { utteranceAudioSeconds } from './compare-repository.js';
import { evaluationLists, evaluationPrices } from './views.js';
import { summarise } from './summary.js';
import type { NormalizerName } from '../../../shared/normalizers/index.js';
import type { CheckedProbes } from './probes.js';

/**
 * Ends a running evaluation whose syntheses have all ended: `completed`, `partial` when some synthesis
 * failed, `failed` when all did; the summary and comparisons are computed once, from the stored rows.
 */
export async function finishEvaluationNow(db: Db, id: string, now: Date): Promise<void> {
  const row = await getEvaluation(db, id);
  if (!row || row.status !== 'processing') return;
  const lists = evaluationLists(row);
  const speakers = await listEvaluationSpeakers(db, id);
  const syntheses = await countSyntheses(db, id);
  const status: EvaluationStatus = row.failed_syntheses === 0 ? 'completed' : row.failed_syntheses >= syntheses ? 'failed' : 'partial';
  let summary: string | null = null;
  let comparisons: string | null = null;
  if (status !== 'failed') {
    const result = summarise({
      rows: await allUtterances(db, id),
      ...lists,
      // A conversation's summaries have group `all` only (DESIGN §16.1).
      groups: row.conversation ? [] : speakers.map((s) => s.grp),
      ...(row.conversation ? { conversation: true } : {}),
      seed: row.seed,
      audioSeconds: await utteranceAudioSeconds(db, id),
      prices: evaluationPrices(row),
      normalizer: row.normalizer as NormalizerName,
      ...(row.probes ? { probes: JSON.parse(row.probes) as CheckedProbes } : {}),
    });
    summary = JSON.stringify(result.summary);
    comparisons = JSON.stringify(result.comparisons);
  }
  await finishEvaluation(db, { id, status, summary, comparisons, now: now.toISOString() });
}
