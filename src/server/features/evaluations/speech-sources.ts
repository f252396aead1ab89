/**
 * Where the speech of one evaluation item comes from (DESIGN §8.2, §10.5, §12.1): a strategy per kind of
 * item — synthesised by a catalogue voice, a corpus recording read back from the audio store, or a
 * seeded non-speech clip, or a synthetic call of several voices (DESIGN §16.1). The work kind asks
 * `speechOf` and never branches on the source itself.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import { NON_SPEECH_LIMITS } from '../../../shared/non-speech.js';
import { nonSpeechClip } from '../../audio/non-speech.js';
import { decodeWavToPcm16, type Pcm16Audio } from '../../audio/wav.js';
import { DomainError } from '../../../shared/errors.js';
import { getAudio, readAudioBytes, type AudioBlobStore } from '../audio/index.js';
import type { ClaimedSynthesis } from './repository.js';
import type { EvaluationContext } from './utterance-context.js';
import { planCall, type ReferenceTurn } from '../../../shared/conversations/index.js';
import { buildCall } from './conversations/build-call.js';

/** The seed of one conditioned audio, derived from the evaluation's seed and the utterance's place. */
export function utteranceSeed(seed: number, t: number, s: number, c: number): number {
  return createHash('sha256').update(`${seed}:${t}:${s}:${c}`).digest().readUInt32LE(0);
}

/** What the sources need: the database and audio store (recordings) and the voice (syntheses). */
export interface SpeechDeps {
  db: Db;
  blobs: AudioBlobStore;
  /** Synthesises a text with a catalogue speaker's voice (the TTS pool in production). */
  synthesize(speakerId: string, text: string): Promise<Pcm16Audio>;
}

/** An item's speech; a synthetic call's comes with its exact truth (DESIGN §16.2), stored with its audio. */
export interface Speech extends Pcm16Audio {
  truth?: ReferenceTurn[];
}

/** One kind of item's speech. */
interface SpeechSource {
  /** Whether this source makes the speech of `claim`'s item. */
  holds(ctx: EvaluationContext, claim: ClaimedSynthesis): boolean;
  speech(deps: SpeechDeps, ctx: EvaluationContext, claim: ClaimedSynthesis): Promise<Speech>;
}

const clip: SpeechSource = {
  holds: (ctx, claim) => ctx.clips.has(claim.textIndex),
  async speech(_deps, ctx, claim) {
    const seconds = ctx.probes?.non_speech?.seconds ?? NON_SPEECH_LIMITS.seconds.default;
    return nonSpeechClip(ctx.clips.get(claim.textIndex)!, seconds, utteranceSeed(ctx.seed, claim.textIndex, 0, 0));
  },
};

const recording: SpeechSource = {
  holds: (ctx) => ctx.recordings !== undefined,
  /** The decoded recording of a corpus item (16-bit WAV at its own rate, stored at upload). */
  async speech(deps, ctx, claim) {
    const audioId = ctx.recordings!.get(claim.textIndex);
    const row = audioId === undefined ? undefined : await getAudio(deps.db, audioId);
    const bytes = row ? await readAudioBytes(deps.blobs, row) : undefined;
    // Its own message on the item's utterances (a DomainError keeps it), not "Synthesis failed".
    if (!bytes) throw new DomainError('audio_not_found', 'Recording could not be read: it is no longer stored');
    return decodeWavToPcm16(bytes);
  },
};

/** A synthetic call (DESIGN §16.1): item i is call i + 1, planned again from the seed and built. */
const call: SpeechSource = {
  holds: (ctx) => ctx.conversation !== undefined,
  async speech(deps, ctx, claim) {
    const { options, speakers, texts } = ctx.conversation!;
    const plan = planCall({ options, seed: ctx.seed, speakers, texts: texts.length }, claim.textIndex + 1);
    const built = await buildCall(plan, { texts, synthesize: deps.synthesize });
    return { ...built.audio, truth: built.truth };
  },
};

const synthesis: SpeechSource = {
  holds: () => true,
  speech: (deps, ctx, claim) => deps.synthesize(ctx.speakers[claim.speakerIndex]!.speaker_id, ctx.texts[claim.textIndex]!),
};

// The first source that holds an item makes it: a clip is a clip in any evaluation.
const SOURCES: readonly SpeechSource[] = [clip, recording, call, synthesis];

/** The speech of `claim`'s item, from the source that holds it. */
export function speechOf(deps: SpeechDeps, ctx: EvaluationContext, claim: ClaimedSynthesis): Promise<Speech> {
  return SOURCES.find((s) => s.holds(ctx, claim))!.speech(deps, ctx, claim);
}
