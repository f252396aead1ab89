import type { Db } from '../../storage/db.js';
import { listEvaluationSpeakers, listEvaluationTexts } from './repository.js';

/**
 * One scored utterance as a comparison over time needs it (DESIGN §11.3): what identifies its source
 * item (`reference` text, or the corpus and utterance id of a recording), the speaker and its group, the
 * condition and provider indexes, and the counts of its score.
 */
export interface CompareUtteranceRow {
  text_index: number;
  reference: string;
  /** The corpus and utterance id of a recorded item; absent for synthesised speech. */
  corpus?: { corpusId: string; utteranceId: string };
  speaker_id: string;
  grp: string;
  condition_index: number;
  provider_index: number;
  errors: number;
  reference_words: number;
}

/** SQL of `scoredUtterancesForCompare`, exported so a query-plan test can check it: the primary key's order, no join. */
export const COMPARE_SQL = `SELECT text_index, speaker_index, condition_index, provider_index,
       substitutions + deletions + insertions AS errors, reference_words
  FROM evaluation_utterances
  WHERE evaluation_id = ? AND transcript IS NOT NULL AND reference_words IS NOT NULL
  ORDER BY text_index, speaker_index, condition_index, provider_index`;

/**
 * The scored utterances of an evaluation (a transcript and its counts), lean: no transcript text and no
 * determinable flag, which a comparison does not use. Texts and speakers are read once and attached by
 * index — joining them on every row cost more than the comparison itself at 20,000 utterances.
 */
export async function scoredUtterancesForCompare(db: Db, evaluationId: string): Promise<CompareUtteranceRow[]> {
  const texts = await listEvaluationTexts(db, evaluationId);
  const speakers = await listEvaluationSpeakers(db, evaluationId);
  type Row = Omit<CompareUtteranceRow, 'reference' | 'speaker_id' | 'grp'> & { speaker_index: number };
  const rows = await db.all<Row>(COMPARE_SQL, [evaluationId]);
  const corpus = await corpusItems(db, evaluationId);
  return rows.map((r) => {
    const speaker = speakers[r.speaker_index];
    const utteranceId = corpus?.items.get(r.text_index);
    return {
      text_index: r.text_index,
      reference: texts[r.text_index] ?? '',
      ...(corpus && utteranceId !== undefined ? { corpus: { corpusId: corpus.corpusId, utteranceId } } : {}),
      speaker_id: speaker?.speaker_id ?? String(r.speaker_index),
      grp: speaker?.grp ?? '',
      condition_index: r.condition_index,
      provider_index: r.provider_index,
      // PostgreSQL hands over integer sums as numbers, SQLite too; Number() keeps both honest.
      errors: Number(r.errors),
      reference_words: Number(r.reference_words),
    };
  });
}

/** The corpus of a corpus evaluation and the utterance id behind each text index; undefined otherwise. */
async function corpusItems(db: Db, evaluationId: string): Promise<{ corpusId: string; items: Map<number, string> } | undefined> {
  const corpusId = await db.value<string | null>('SELECT corpus_id FROM evaluations WHERE id = ?', [evaluationId]);
  if (!corpusId) return undefined;
  const rows = await db.all<{ idx: number; utterance_id: string }>('SELECT idx, utterance_id FROM evaluation_corpus_items WHERE evaluation_id = ?', [
    evaluationId,
  ]);
  return { corpusId, items: new Map(rows.map((r) => [Number(r.idx), r.utterance_id])) };
}

/** Seconds of each conditioned audio an evaluation's utterances were transcribed from, by audio id. */
export async function utteranceAudioSeconds(db: Db, evaluationId: string): Promise<Map<string, number>> {
  const rows = await db.all<{ id: string; duration_seconds: number }>(
    `SELECT DISTINCT a.id, a.duration_seconds FROM audio a
     JOIN evaluation_utterances u ON u.audio_id = a.id
     WHERE u.evaluation_id = ?`,
    [evaluationId],
  );
  return new Map(rows.map((r) => [r.id, Number(r.duration_seconds)]));
}
