/** The audio feature as its routes use it: signed downloads and uploads of audio files (DESIGN §4.7). */
import type { Readable } from 'node:stream';
import type { Db } from '../../storage/db.js';
import type { Clock } from '../../clock.js';
import type { AudioUploaded } from '../../../shared/schemas/tts.js';
import { DomainError } from '../../../shared/errors.js';
import { audioExpired } from './retention.js';
import { ApiError } from '../../errors.js';
import { AUDIO_ID_PATTERN, type UrlSigner } from './audio-urls.js';
import { getAudio, openAudio, type AudioBlobStore, type AudioFormat } from './audio-store.js';
import type { AudioLinkFor } from './audio-links.js';
import type { AudioRow } from './repository.js';
import { resolveRange, type ResolvedRange } from './byte-range.js';
import { storeUpload } from './uploads.js';

const CONTENT_TYPES: Record<AudioFormat, string> = { wav: 'audio/wav', mp3: 'audio/mpeg', m4a: 'audio/mp4' };

/** Speaker samples, made on first request behind a valid signature (the synthesis feature's provider). */
export interface SampleSource {
  /** Whether `audioId` names a sample of a known speaker (made or not). */
  isSample(audioId: string): boolean;
  exists(audioId: string): Promise<boolean>;
  get(audioId: string): Promise<AudioRow | undefined>;
}

/** A download to send: the whole file, or the one byte range asked for. */
export interface AudioDownload {
  contentType: string;
  size: number;
  range?: ResolvedRange;
  body: Readable;
}

/** What the audio routes call. */
export interface AudioFeature {
  /**
   * The file behind a signed URL. Existence first: an unknown id is 404 whatever its signature; a known one
   * then needs a valid, unexpired signature (403 / 410); a range past the end is 416 with the size, and a
   * malformed one gets the whole file.
   */
  download(audioId: string, signed: { expires?: string; sig?: string }, rangeHeader: string | undefined): Promise<AudioDownload>;
  /** Stores an uploaded file of `userId` (checked as WAV, MP3 or M4A) and answers with its link. */
  upload(userId: string, bytes: Buffer, link: AudioLinkFor): Promise<AudioUploaded>;
}

const notFound = () => new DomainError('audio_not_found', 'Audio not found');

/** Binds the audio rules to the service's collaborators (called once, by the composition root). */
export function createAudioFeature(deps: {
  db: Db;
  blobs: AudioBlobStore;
  clock: Clock;
  urls: UrlSigner;
  samples: SampleSource;
  /** `--audio-retention-days`, for the answer about audio it deleted. */
  retentionDays?: number;
}): AudioFeature {
  const { db, blobs, clock, urls, samples } = deps;
  return {
    async download(audioId, signed, rangeHeader) {
      if (!AUDIO_ID_PATTERN.test(audioId)) throw notFound();
      const isSample = samples.isSample(audioId);
      // Samples are only synthesised behind a valid signature: existence is asked without making one.
      if (isSample ? !(await samples.exists(audioId)) : !(await getAudio(db, audioId))) throw notFound();
      const check = urls.verifyAudio({ audioId, expires: signed.expires, sig: signed.sig, now: clock.now() });
      if (check === 'tampered') throw new DomainError('invalid_signature', 'Invalid audio URL signature');
      if (check === 'expired') throw new DomainError('url_expired', 'Audio URL has expired');
      const row = isSample ? await samples.get(audioId) : await getAudio(db, audioId);
      if (!row) throw notFound();
      if (row.expired_at) throw audioExpired(deps.retentionDays);
      const size = await blobs.size(row.path);
      if (size === undefined) throw notFound();
      const range = resolveRange(rangeHeader, size);
      if (range === 'unsatisfiable') {
        throw new ApiError('range_not_satisfiable', 'Requested range not satisfiable', { headers: { 'Content-Range': `bytes */${size}` } });
      }
      const body = await openAudio(blobs, row, range);
      if (!body) throw notFound();
      return { contentType: CONTENT_TYPES[row.format], size, ...(range ? { range } : {}), body };
    },
    async upload(userId, bytes, link) {
      const row = await storeUpload({ db, blobs, clock }, { userId, bytes });
      return { audio_id: row.id, audio_url: link(row.id), duration_seconds: row.duration_seconds };
    },
  };
}
