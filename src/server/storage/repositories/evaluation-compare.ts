import type { Db } from '../db.js';

/**
 * One scored utterance as a comparison over time needs it (DESIGN §11.3): what identifies its source
 * item (`reference` text; a corpus source adds its own columns here), the speaker and its group, the
 * condition and provider indexes, and the counts of its score.
 */
export interface CompareUtteranceRow {
  text_index: number;
  reference: string;
  speaker_id: string;
  grp: string;
  condition_index: number;
  provider_index: number;
  errors: number;
  reference_words: number;
}

/** SQL of `scoredUtterancesForCompare`, exported so a query-plan test can check it. */
export const COMPARE_SQL = `SELECT u.text_index, t.text AS reference, s.speaker_id, s.grp, u.condition_index, u.provider_index,
       u.substitutions + u.deletions + u.insertions AS errors, u.reference_words
  FROM evaluation_utterances u
  JOIN evaluation_speakers s ON s.evaluation_id = u.evaluation_id AND s.idx = u.speaker_index
  JOIN evaluation_texts t ON t.evaluation_id = u.evaluation_id AND t.idx = u.text_index
  WHERE u.evaluation_id = ? AND u.transcript IS NOT NULL AND u.reference_words IS NOT NULL
  ORDER BY u.text_index, u.speaker_index, u.condition_index, u.provider_index`;

/**
 * The scored utterances of an evaluation (a transcript and its counts), lean: no transcript text and no
 * determinable flag, which a comparison does not use and which cost most of a full read.
 */
export async function scoredUtterancesForCompare(db: Db, evaluationId: string): Promise<CompareUtteranceRow[]> {
  return db.all<CompareUtteranceRow>(COMPARE_SQL, [evaluationId]);
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
