import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../storage/db.js';
import { getAudio, insertAudio, listAudioPaths, type AudioFormat, type AudioKind, type AudioRow } from '../storage/repositories/audio.js';
import { encodeWav, roundedDuration } from '../audio/wav.js';
import { AUDIO_ID_PATTERN } from './audio-urls.js';

export type { AudioFormat };

/** Prefix of files being written; anything with it left in the folder is debris of a crash. */
const TEMP_PREFIX = '.tmp-';

/** `{dataDir}/audio`: the only folder audio files live in. */
export const audioDir = (dataDir: string): string => join(dataDir, 'audio');

/** A fresh random audio id (`aud_` + 20 url-safe chars). */
export const newAudioId = (): string => `aud_${randomBytes(15).toString('base64url')}`;

/**
 * The relative path of an audio file, derived from its id alone, so no user input ever reaches the
 * file system (ids are checked against AUDIO_ID_PATTERN: no dots, no slashes).
 */
export function audioPathFor(id: string, format: AudioFormat): string {
  if (!AUDIO_ID_PATTERN.test(id)) throw new Error(`Invalid audio id: ${id}`);
  return `${id}.${format}`;
}

/** Absolute location of a recorded audio file. */
export const absoluteAudioPath = (dataDir: string, row: Pick<AudioRow, 'path'>): string => join(audioDir(dataDir), row.path);

/**
 * Writes `bytes` to `{dataDir}/audio/{path}` atomically: a temp file is written and fsynced, then
 * renamed into place, so readers never see a half-written file and a crash leaves only temp debris.
 */
export async function writeAudioFile(dataDir: string, path: string, bytes: Uint8Array): Promise<void> {
  const dir = audioDir(dataDir);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString('hex')}-${path}`);
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, join(dir, path));
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
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

/** Puts the file in place first, then the row: a row never points at a missing file. */
export async function storeAudio(db: Db, dataDir: string, input: StoreAudioInput): Promise<AudioRow> {
  const row = await writeAudioOnly(dataDir, input);
  await insertAudio(db, row);
  return row;
}

/**
 * Writes the file and returns the row to record, without recording it: the job runner commits the
 * row in the same transaction that marks its item done.
 */
export async function writeAudioOnly(dataDir: string, input: StoreAudioInput): Promise<AudioRow> {
  const id = input.id ?? newAudioId();
  const path = audioPathFor(id, input.format);
  await writeAudioFile(dataDir, path, input.bytes);
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

/**
 * Start-up clean-up after a crash: temp files are removed, and so is any file no row records
 * (a crash between the rename and the commit); returns what was removed.
 */
export async function recoverAudioDir(db: Db, dataDir: string): Promise<{ temp: number; orphans: number }> {
  const dir = audioDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const known = await listAudioPaths(db);
  let temp = 0;
  let orphans = 0;
  for (const name of readdirSync(dir)) {
    if (name.startsWith(TEMP_PREFIX)) {
      rmSync(join(dir, name), { force: true });
      temp++;
    } else if (!known.has(name)) {
      rmSync(join(dir, name), { force: true, recursive: true });
      orphans++;
    }
  }
  return { temp, orphans };
}
