/**
 * Corpora (DESIGN §10): the views of `/v1/corpora*`, shared by the server's routes (validation and
 * OpenAPI), the client and the CLI. The upload is multipart (`name`, `file`); its rules live in the service.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Page, PagingQuery, Timestamp } from './common.js';
import { CORPUS_LAYOUTS } from '../constants.js';

export const CorpusLayout = Type.Union(CORPUS_LAYOUTS.map((l) => Type.Literal(l)));

/** A corpus (DESIGN §10.4): POST → 201, GET one, and each item of the list. */
export const Corpus = Type.Object({
  corpus_id: Type.String({ description: 'cor_…' }),
  name: Type.String(),
  layout: CorpusLayout,
  utterances: Type.Integer({ description: 'Number of utterances' }),
  speakers: Type.Integer({ description: 'Number of distinct speakers' }),
  total_duration_seconds: Type.Number({ description: 'Length of the decoded audio, in seconds' }),
  metadata_fields: Type.Array(Type.String(), { description: 'Names of the metadata fields (group_by candidates)' }),
  created_at: Timestamp,
});
export type Corpus = Static<typeof Corpus>;

export const CorpusPage = Page(Corpus);
export type CorpusPage = Static<typeof CorpusPage>;

/** One recorded utterance of a corpus. */
export const CorpusUtterance = Type.Object({
  utterance_id: Type.String(),
  speaker: Type.Union([Type.String(), Type.Null()]),
  reference: Type.String(),
  duration_seconds: Type.Number(),
  metadata: Type.Record(Type.String(), Type.String()),
  audio_url: Type.String({ description: 'Signed URL of the decoded 16-bit PCM WAV (24 h, no key)' }),
});
export type CorpusUtterance = Static<typeof CorpusUtterance>;

export const CorpusUtterancePage = Page(CorpusUtterance);
export type CorpusUtterancePage = Static<typeof CorpusUtterancePage>;

export const CorpusIdParams = Type.Object({ corpus_id: Type.String() });

/** GET /v1/corpora/{id}/utterances: paging, in manifest order. */
export const CorpusUtteranceQuery = PagingQuery;
export type CorpusUtteranceQuery = Static<typeof CorpusUtteranceQuery>;
