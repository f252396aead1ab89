import type { Clock } from '../../clock.js';
import type { Db } from '../../storage/db.js';
import type { TtsPool, VoiceBinding } from '../../engines/tts/types.js';
import type { AudioRow } from '../audio/index.js';
import { resamplePcm16 } from '../../audio/resample.js';
import type { Pcm16Audio } from '../../audio/wav.js';
import { DomainError } from '../../../shared/errors.js';
import { assertValidText, codePoints } from '../../../shared/text-rules.js';
import { findSpeaker, speakerBinding, SPEAKER_NOT_FOUND } from './speakers.js';
import { releaseReservation, reserveDurably, settleReservation } from '../limits/index.js';
import { assertActiveSubscription } from '../accounts/index.js';
import { wavInput, writeAudioOnly, type AudioBlobStore } from '../audio/index.js';
import { insertAudio } from '../audio/index.js';

/**
 * The voice a catalogue speaker is bound to; an unknown id is the DomainError `speaker_not_found` with
 * `message` (default `Speaker not found: {id}`, the batch and evaluation form; the single synthesis says
 * `Speaker not found`).
 */
export async function speakerVoice(db: Db, speakerId: string, message = `${SPEAKER_NOT_FOUND}: ${speakerId}`): Promise<VoiceBinding> {
  const speaker = await findSpeaker(db, speakerId);
  if (!speaker) throw new DomainError('speaker_not_found', message);
  return speakerBinding(speaker);
}

/** Runs the pool and resamples to `sampleRate` when asked (a proper resampler, never sample dropping). */
export async function renderSpeech(
  tts: TtsPool,
  input: { text: string; voice: VoiceBinding; sampleRate?: number | null },
): Promise<Pcm16Audio> {
  const out = await tts.synthesize(input.text, input.voice);
  if (out.pcm.length === 0) throw new Error('Synthesis produced no audio');
  if (!input.sampleRate || input.sampleRate === out.sampleRate) return out;
  return { pcm: await resamplePcm16(out.pcm, out.sampleRate, input.sampleRate), sampleRate: input.sampleRate };
}

/** Collaborators of one synthesis. */
export interface SynthesisDeps {
  db: Db;
  blobs: AudioBlobStore;
  clock: Clock;
  tts: TtsPool;
  /** This instance's id: the owner of its reservations (peers refund them only if it dies). */
  instanceId?: string;
}

/**
 * POST /v1/tts/synthesize (DESIGN §4.6): validates, reserves the characters atomically and durably BEFORE
 * synthesising, stores the WAV, and refunds the reservation if anything after it fails — or, after a
 * crash, at the next start (see reservations.ts).
 */
export async function synthesizeForUser(
  deps: SynthesisDeps,
  input: { userId: string; speakerId: string; text: string; sampleRate?: number },
): Promise<{ audio: AudioRow; characters: number }> {
  assertValidText(input.text);
  const voice = await speakerVoice(deps.db, input.speakerId, SPEAKER_NOT_FOUND);
  await assertActiveSubscription(deps.db, input.userId);
  const characters = codePoints(input.text);
  const reservation = await reserveDurably(deps.db, { userId: input.userId, characters, now: deps.clock.now(), ...(deps.instanceId ? { owner: deps.instanceId } : {}) });
  try {
    const out = await renderSpeech(deps.tts, { text: input.text, voice, sampleRate: input.sampleRate });
    const row = await writeAudioOnly(
      deps.blobs,
      wavInput(out.pcm, out.sampleRate, { userId: input.userId, kind: 'tts', now: deps.clock.now() }),
    );
    // A crash before this commit leaves the file unrecorded (removed at start) and the reservation refunded.
    await settleReservation(deps.db, reservation, () => insertAudio(deps.db, row));
    return { audio: row, characters };
  } catch (err) {
    await releaseReservation(deps.db, reservation);
    if (err instanceof DomainError) throw err;
    throw new DomainError('synthesis_failed', 'Speech synthesis failed', { cause: err });
  }
}
