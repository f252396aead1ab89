import type { Db } from '../db.js';

/** A corpus and its utterances as an evaluation takes them. */
export interface CorpusSourceRow {
  id: string;
  name: string;
  metadataFields: string[];
  utterances: { utteranceId: string; speaker: string | null; reference: string; metadata: Record<string, unknown>; audioId: string }[];
}

/** `userId`'s corpus `corpusId` with every utterance in corpus order; undefined when absent or another user's. */
export async function getCorpusForEvaluation(db: Db, corpusId: string, userId: string): Promise<CorpusSourceRow | undefined> {
  const corpus = await db.get<{ id: string; name: string; metadata_fields: string }>('SELECT id, name, metadata_fields FROM corpora WHERE id = ? AND user_id = ?', [
    corpusId,
    userId,
  ]);
  if (!corpus) return undefined;
  const rows = await db.all<{ utterance_id: string; speaker: string | null; reference: string; metadata: string | null; audio_id: string }>(
    'SELECT utterance_id, speaker, reference, metadata, audio_id FROM corpus_utterances WHERE corpus_id = ? ORDER BY idx',
    [corpusId],
  );
  return {
    id: corpus.id,
    name: corpus.name,
    metadataFields: JSON.parse(corpus.metadata_fields) as string[],
    utterances: rows.map((r) => ({
      utteranceId: r.utterance_id,
      speaker: r.speaker,
      reference: r.reference,
      metadata: r.metadata ? (JSON.parse(r.metadata) as Record<string, unknown>) : {},
      audioId: r.audio_id,
    })),
  };
}
