/**
 * One synthetic call built (DESIGN §16.1): each planned turn synthesised with its speaker's voice and
 * brought to 16 kHz, its speech extent measured (§13.2's 35 dB rule), the turns laid out with the plan's
 * gaps and overlaps and mixed into one mono track. The truth (speaker, extent, text of each turn) comes
 * from the same numbers that placed the audio, so it is exact to the millisecond. A call's turns are
 * synthesised together (the TTS pool runs them in parallel); nothing of one call outlives its building.
 */
import type { Pcm16Audio } from '../../../audio/wav.js';
import { mixTracks } from '../../../audio/mix.js';
import { resamplePcm16 } from '../../../audio/resample.js';
import { speechBounds } from '../../../../shared/streaming/speech-bounds.js';
import { layoutCall, type CallLayout, type PlannedCall, type ReferenceTurn, type TurnAudioExtent } from '../../../../shared/conversations/index.js';

/** The rate of a mixed call (§16.1). */
export const CALL_RATE = 16_000;

/** What building a call needs: the evaluation's texts and a synthesiser (the TTS pool in production). */
export interface BuildCallDeps {
  texts: readonly string[];
  synthesize(speakerId: string, text: string): Promise<Pcm16Audio>;
}

/** A built call: its mono track, its layout and its truth (turns in order of start, seconds). */
export interface BuiltCall {
  audio: Pcm16Audio;
  layout: CallLayout;
  truth: ReferenceTurn[];
}

/** A turn's speech extent in its own audio; a silent turn (no speech at all) takes no time. */
function extentOf(pcm: Int16Array): TurnAudioExtent {
  const b = speechBounds(pcm, CALL_RATE);
  return { startMs: b.startMs ?? 0, endMs: b.endMs ?? 0, durationMs: b.durationMs };
}

/** Builds call `plan` (see the module comment). */
export async function buildCall(plan: PlannedCall, deps: BuildCallDeps): Promise<BuiltCall> {
  const turns = await Promise.all(
    plan.turns.map(async (t) => {
      const a = await deps.synthesize(plan.speakers[t.slot]!, deps.texts[t.textIndex]!);
      return a.sampleRate === CALL_RATE ? a.pcm : resamplePcm16(a.pcm, a.sampleRate, CALL_RATE);
    }),
  );
  const layout = layoutCall(plan, turns.map(extentOf));
  const perMs = CALL_RATE / 1000;
  const audio = mixTracks(
    layout.turns.map((t, k) => ({ pcm: turns[k]!, offset: t.offsetMs * perMs })),
    CALL_RATE,
    layout.durationMs * perMs,
  );
  const truth = layout.turns
    .map((t) => ({ speaker: t.speaker, start: t.startMs / 1000, end: t.endMs / 1000, text: deps.texts[t.textIndex]! }))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  return { audio, layout, truth };
}
