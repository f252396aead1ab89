/** Reading and deleting corpora (DESIGN §10.4); uploads are `upload.ts`. */
import type { Db } from '../../storage/db.js';
import type { AudioBlobStore } from '../../storage/blobs/index.js';
import {
  deleteCorpusRows,
  getCorpusRow,
  listCorpusRows,
  listCorpusUtteranceRows,
  runningEvaluationsUsingCorpus,
  type CorpusRow,
  type CorpusUtteranceRow,
} from './repository.js';
import { DomainError } from '../../../shared/errors.js';
import { CORPUS_MESSAGES } from '../../../shared/corpus/index.js';
import type { PageOf } from '../../../shared/schemas/common.js';
import type { Corpus, CorpusUtterance } from '../../../shared/schemas/corpora.js';
import { corpusUtteranceView, corpusView } from './views.js';

const notFound = (): never => {
  throw new DomainError('corpus_not_found', CORPUS_MESSAGES.notFound);
};

/** The corpus `id` of `userId`, or 404 `Corpus not found` (another user's corpus too). */
export async function getOwnedCorpus(db: Db, q: { userId: string; id: string }): Promise<CorpusRow> {
  return (await getCorpusRow(db, q.id, q.userId)) ?? notFound();
}

/** Every utterance of a corpus in manifest order (evaluations read their work items from it). */
export function corpusUtterances(db: Db, corpusId: string): Promise<CorpusUtteranceRow[]> {
  return listCorpusUtteranceRows(db, corpusId);
}

/** `GET /v1/corpora`: the caller's corpora, newest first. */
export async function corpusPage(db: Db, q: { userId: string; limit: number; offset: number }): Promise<PageOf<Corpus>> {
  const { rows, total } = await listCorpusRows(db, q);
  return { items: rows.map(corpusView), total, limit: q.limit, offset: q.offset, has_more: q.offset + rows.length < total };
}

/** `GET /v1/corpora/{id}`. */
export async function getCorpus(db: Db, q: { userId: string; id: string }): Promise<Corpus> {
  return corpusView(await getOwnedCorpus(db, q));
}

/** `GET /v1/corpora/{id}/utterances`: a page in manifest order, each with a signed audio URL. */
export async function corpusUtterancePage(
  db: Db,
  q: { userId: string; id: string; limit: number; offset: number; urlFor: (audioId: string) => string },
): Promise<PageOf<CorpusUtterance>> {
  const corpus = await getOwnedCorpus(db, q);
  const rows = await listCorpusUtteranceRows(db, corpus.id, { limit: q.limit, offset: q.offset });
  const total = Number(corpus.utterance_count);
  return { items: rows.map((r) => corpusUtteranceView(r, q.urlFor)), total, limit: q.limit, offset: q.offset, has_more: q.offset + rows.length < total };
}

/**
 * `DELETE /v1/corpora/{id}`: the rows go in one transaction (409 while a running evaluation uses the
 * corpus), then the blobs. A crash between the two leaves blobs no row records: the orphan sweep's.
 */
export async function deleteCorpus(deps: { db: Db; blobs: AudioBlobStore }, q: { userId: string; id: string }): Promise<void> {
  const paths = await deps.db.transaction(async () => {
    const corpus = await getOwnedCorpus(deps.db, q);
    if ((await runningEvaluationsUsingCorpus(deps.db, corpus.id)) > 0) throw new DomainError('conflict', CORPUS_MESSAGES.inUse);
    return deleteCorpusRows(deps.db, corpus.id);
  });
  for (const p of paths) await deps.blobs.delete(p);
}
