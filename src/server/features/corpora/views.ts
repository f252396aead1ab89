import type { Corpus, CorpusUtterance } from '../../../shared/schemas/corpora.js';
import type { CorpusRow, CorpusUtteranceRow } from './repository.js';

/** The corpus view of DESIGN §10.4. */
export function corpusView(row: CorpusRow): Corpus {
  return {
    corpus_id: row.id,
    name: row.name,
    layout: row.layout,
    utterances: Number(row.utterance_count),
    speakers: Number(row.speaker_count),
    total_duration_seconds: Number(row.total_duration_seconds),
    metadata_fields: JSON.parse(row.metadata_fields) as string[],
    created_at: row.created_at,
  };
}

/** An utterance as `GET /v1/corpora/{id}/utterances` lists it; `urlFor` signs its audio URL. */
export function corpusUtteranceView(row: CorpusUtteranceRow, urlFor: (audioId: string) => string): CorpusUtterance {
  return {
    utterance_id: row.utterance_id,
    speaker: row.speaker,
    reference: row.reference,
    duration_seconds: Number(row.duration_seconds),
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    audio_url: urlFor(row.audio_id),
  };
}
