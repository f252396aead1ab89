import type { Db } from '../storage/db.js';
import { getCorpusForEvaluation } from '../storage/repositories/corpus-source.js';
import type { CorpusForEvaluation } from './corpus-create.js';

/** Reads `userId`'s corpus with its utterances in corpus order, as an evaluation takes them (DESIGN §10.5). */
export async function readCorpusForEvaluation(db: Db, corpusId: string, userId: string): Promise<CorpusForEvaluation | undefined> {
  return getCorpusForEvaluation(db, corpusId, userId);
}
