import type { Db } from '../../storage/db.js';
import { getCorpusRow, listCorpusUtteranceRows } from '../corpora/index.js';
import type { CorpusForEvaluation } from './corpus-create.js';

/** Reads `userId`'s corpus with its utterances in manifest order, as an evaluation takes them (DESIGN §10.5). */
export async function readCorpusForEvaluation(db: Db, corpusId: string, userId: string): Promise<CorpusForEvaluation | undefined> {
  const corpus = await getCorpusRow(db, corpusId, userId);
  if (!corpus) return undefined;
  const rows = await listCorpusUtteranceRows(db, corpus.id);
  return {
    id: corpus.id,
    name: corpus.name,
    layout: corpus.layout,
    metadataFields: JSON.parse(corpus.metadata_fields) as string[],
    utterances: rows.map((r) => ({
      utteranceId: r.utterance_id,
      speaker: r.speaker,
      reference: r.reference,
      metadata: JSON.parse(r.metadata) as Record<string, string>,
      audioId: r.audio_id,
      segments: r.segments ?? null,
    })),
  };
}
