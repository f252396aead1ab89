import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Db } from '../../storage/db.js';
import { getAudio, insertAudio, listAudioPaths, type AudioFormat, type AudioKind, type AudioRow } from './repository.js';
import { BlobNotFoundError, type AudioBlobStore, type ByteRange } from '../../storage/blobs/index.js';
import { encodeWav, roundedDuration } from '../../audio/wav.js';
import { AUDIO_ID_PATTERN } from './audio-urls.js';

export type { AudioFormat, AudioBlobStore };

/**
 * The name prefixes of blobs another feature owns before any audio row records them (a corpus upload's,
 * until it commits): the orphan sweep leaves them alone. The composition root says whose they are.
 */
export type PendingBlobs = (db: Db) => Promise<readonly string[]>;

/** A fresh random audio id (`aud_` + 20 url-safe chars). */
export const newAudioId = (): string => `aud_${randomBytes(15).toString('base64url')}`;

/**
 * The blob name of an audio file, derived from its id alone, so no user input ever reaches a file
 * system or bucket key (ids are checked against AUDIO_ID_PATTERN: no dots, no slashes).
 */
export function audioPathFor(id: string, format: AudioFormat): string {
  if (!AUDIO_ID_PATTERN.test(id)) throw new Error(`Invalid audio id: ${id}`);
  return `${id}.${format}`;
}

/** What to record with a stored file. */
export interface StoreAudioInput {
  id?: string;
  userId: string | null;
  kind: AudioKind;
  format: AudioFormat;
  bytes: Uint8Array;
  durationSeconds: number;
  sampleRate: number;
  now: Date;
}

/** Puts the bytes in the store first, then the row: a row never points at missing audio. */
export async function storeAudio(db: Db, blobs: AudioBlobStore, input: StoreAudioInput): Promise<AudioRow> {
  const row = await writeAudioOnly(blobs, input);
  await insertAudio(db, row);
  return row;
}

/**
 * Writes the bytes and returns the row to record, without recording it: the job runner commits the
 * row in the same transaction that marks its item done.
 */
export async function writeAudioOnly(blobs: AudioBlobStore, input: StoreAudioInput): Promise<AudioRow> {
  const id = input.id ?? newAudioId();
  const path = audioPathFor(id, input.format);
  await blobs.put(path, input.bytes);
  return {
    id,
    user_id: input.userId,
    kind: input.kind,
    path,
    format: input.format,
    bytes: input.bytes.byteLength,
    duration_seconds: input.durationSeconds,
    sample_rate: input.sampleRate,
    created_at: input.now.toISOString(),
  };
}

/** Encodes mono PCM16 as WAV and describes it for `storeAudio`/`writeAudioOnly`. */
export function wavInput(
  pcm: Int16Array,
  sampleRate: number,
  rest: { id?: string; userId: string | null; kind: AudioKind; now: Date },
): StoreAudioInput {
  return { ...rest, format: 'wav', bytes: encodeWav(pcm, sampleRate), durationSeconds: roundedDuration(pcm.length, sampleRate), sampleRate };
}

/** The audio row `id`, or undefined (re-exported for readers such as STT). */
export { getAudio };

/** The whole bytes of a recorded audio file, or undefined when its blob is gone. */
export async function readAudioBytes(blobs: AudioBlobStore, row: Pick<AudioRow, 'path'>): Promise<Buffer | undefined> {
  let stream: Readable;
  try {
    stream = await blobs.open(row.path);
  } catch (err) {
    if (err instanceof BlobNotFoundError) return undefined;
    throw err;
  }
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/** A recorded audio file's size and a stream of it (or of `range`); undefined when its blob is gone. */
export async function openAudio(blobs: AudioBlobStore, row: Pick<AudioRow, 'path'>, range?: ByteRange): Promise<Readable | undefined> {
  try {
    return await blobs.open(row.path, range);
  } catch (err) {
    if (err instanceof BlobNotFoundError) return undefined;
    throw err;
  }
}

/**
 * Start-up clean-up after a crash: half-written debris is removed, and so is every blob stored before
 * `orphansBefore` that no row records (a crash between the write and the commit). One instance on SQLite
 * passes "now": nothing else writes. Instances sharing a store pass an hour ago, so a blob another
 * instance is about to record is never taken for an orphan. Returns what was removed.
 */
export async function recoverAudioStore(db: Db, blobs: AudioBlobStore, opts: { orphansBefore: Date; pending: PendingBlobs }): Promise<{ temp: number; orphans: number }> {
  const temp = (await blobs.sweepDebris?.()) ?? 0;
  const known = await listAudioPaths(db);
  // A corpus upload records its audio rows only when it commits; until then its blobs belong to its
  // upload row, and the corpus recovery (not this sweep) decides when they are debris.
  const pending = await opts.pending(db);
  let orphans = 0;
  for await (const name of blobs.listOlderThan(opts.orphansBefore)) {
    if (known.has(name) || pending.some((p) => name.startsWith(p))) continue;
    await blobs.delete(name);
    orphans++;
  }
  return { temp, orphans };
}
