import type { Clock } from '../../clock.js';
import type { Db } from '../../storage/db.js';
import type { AudioRow } from './repository.js';
import { AudioDecodeError, decodeAudio, sniffAudioFormat } from '../../audio/decode.js';
import { roundedDuration } from '../../audio/wav.js';
import { DomainError } from '../../../shared/errors.js';
import { storeAudio, type AudioBlobStore } from './audio-store.js';

/**
 * Stores an uploaded WAV/MP3/M4A as it came (vendors then see the real file). The format is sniffed
 * from the bytes, never taken from a name, and the file must decode, which also gives its duration.
 */
export async function storeUpload(deps: { db: Db; blobs: AudioBlobStore; clock: Clock }, input: { userId: string; bytes: Buffer }): Promise<AudioRow> {
  const format = sniffAudioFormat(input.bytes);
  if (!format) throw new DomainError('unsupported_audio', 'Unsupported audio format');
  let decoded;
  try {
    decoded = await decodeAudio(input.bytes);
  } catch (err) {
    // Too long, or M4A where there is no ffmpeg: the reason is the answer; anything else, the format.
    if (err instanceof AudioDecodeError) throw new DomainError('unsupported_audio', err.reason === 'too_long' || err.reason === 'needs_ffmpeg' ? err.message : 'Unsupported audio format');
    throw err;
  }
  return storeAudio(deps.db, deps.blobs, {
    userId: input.userId,
    kind: 'upload',
    format,
    bytes: input.bytes,
    durationSeconds: roundedDuration(decoded.pcm.length, decoded.sampleRate),
    sampleRate: decoded.sampleRate,
    now: deps.clock.now(),
  });
}
