/**
 * The non-speech probe's vocabulary (DESIGN §12.1), shared by the API's validation and the CLI's
 * `--probe non-speech[:clips[:seconds]]`.
 */
export const NON_SPEECH_KINDS = ['silence', 'noise', 'hum', 'tone', 'dtmf'] as const;
export type NonSpeechKind = (typeof NON_SPEECH_KINDS)[number];

/** Defaults and bounds of `"non_speech": {clips, seconds, kinds}`. */
export const NON_SPEECH_LIMITS = { clips: { min: 1, max: 200, default: 20 }, seconds: { min: 1, max: 30, default: 5 } } as const;

/** Parses the CLI's `non-speech[:clips[:seconds]]`; undefined when the text is not that probe. */
export function parseNonSpeechProbe(text: string): { clips: number; seconds: number } | { problem: string } | undefined {
  const m = /^non-speech(?::(\d+)(?::(\d+))?)?$/.exec(text);
  if (!m) return undefined;
  const clips = m[1] === undefined ? NON_SPEECH_LIMITS.clips.default : Number(m[1]);
  const seconds = m[2] === undefined ? NON_SPEECH_LIMITS.seconds.default : Number(m[2]);
  const { clips: c, seconds: s } = NON_SPEECH_LIMITS;
  if (clips < c.min || clips > c.max) return { problem: `non-speech clips must be ${c.min}..${c.max}, got ${clips}` };
  if (seconds < s.min || seconds > s.max) return { problem: `non-speech seconds must be ${s.min}..${s.max}, got ${seconds}` };
  return { clips, seconds };
}
