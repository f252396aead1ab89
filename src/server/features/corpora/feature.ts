/** The corpora feature as its routes use it: uploads built into corpora, listed, shown and deleted (DESIGN §10, §17). */
import type { Readable } from 'node:stream';
import type { DecodePool } from '../../audio/decode-pool.js';
import type { Db } from '../../storage/db.js';
import type { Clock } from '../../clock.js';
import type { PageOf } from '../../../shared/schemas/common.js';
import type { Corpus, CorpusUtterance } from '../../../shared/schemas/corpora.js';
import type { AudioBlobStore, AudioLinkFor } from '../audio/index.js';
import { createCorpusFromArchive, openUploadDir, type CorpusSettings, type UploadDir } from './upload.js';
import { receiveArchive, type ReceivedArchive } from './receive.js';
import { corpusPage, corpusUtterancePage, deleteCorpus, getCorpus } from './service.js';

/** What the corpora routes call. */
export interface CorporaFeature {
  /** Upload limits and the temp folder, read per upload (tests lower the limits while the service runs). */
  readonly settings: CorpusSettings;
  /** A new folder of its own for one upload's archive and files (the caller removes it). */
  openUploadDir(): Promise<UploadDir>;
  /** Reads an uploaded archive into `dir` as it arrives (a tar extracted on the way, a zip kept whole). */
  receive(dir: UploadDir, body: Readable, signal: AbortSignal): Promise<ReceivedArchive>;
  /** Builds the corpus of the archive received into `dir` (checked, extracted, decoded, stored); nothing stays on error. */
  create(userId: string, name: string, dir: UploadDir, received: ReceivedArchive, signal: AbortSignal): Promise<Corpus>;
  page(userId: string, paging: { limit: number; offset: number }): Promise<PageOf<Corpus>>;
  get(userId: string, id: string): Promise<Corpus>;
  /** A page of a corpus's utterances in manifest order, each with its audio link. */
  utterances(userId: string, id: string, paging: { limit: number; offset: number }, link: AudioLinkFor): Promise<PageOf<CorpusUtterance>>;
  /** Deletes a corpus and its audio (409 while a running evaluation uses it). */
  delete(userId: string, id: string): Promise<void>;
}

/** Binds the corpus rules to the service's collaborators (called once, by the composition root). */
export function createCorporaFeature(deps: {
  db: Db;
  blobs: AudioBlobStore;
  clock: Clock;
  instanceId: string;
  settings: CorpusSettings;
  /** The threads an upload's audio is decoded on. */
  decodePool: DecodePool;
}): CorporaFeature {
  const { db, blobs, settings, decodePool } = deps;
  return {
    settings,
    openUploadDir: () => openUploadDir(settings, decodePool),
    receive: (dir, body, signal) => receiveArchive(body, dir, settings.limits, signal),
    create: (userId, name, dir, received, signal) => createCorpusFromArchive(deps, { userId, name, dir, received, signal }),
    page: (userId, paging) => corpusPage(db, { userId, ...paging }),
    get: (userId, id) => getCorpus(db, { userId, id }),
    utterances: (userId, id, paging, link) => corpusUtterancePage(db, { userId, id, ...paging, urlFor: link }),
    delete: (userId, id) => deleteCorpus({ db, blobs }, { userId, id }),
  };
}
