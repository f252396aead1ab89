/**
 * `conversation` of POST /v1/evaluations checked and defaulted (DESIGN §16.1): each field out of range is a
 * 400 naming it, in the wording the probes use (`probes.non_speech.clips must be 1..200`). Pure, so the
 * request parser and the CLI's `--conversation calls[:turns[:speakers]]` apply the same rule once.
 */
import { validationFailed } from '../errors.js';
import { CONVERSATION_DEFAULTS, CONVERSATION_LIMITS, type ConversationOptions } from './plan.js';

/** The wire shape of `conversation` (snake case, as the body carries it); `checkConversation` takes any values. */
export interface ConversationBody {
  calls?: number;
  turns?: number;
  speakers_per_call?: number;
  gap_ms?: number[];
  overlap?: number;
}

/** The message of a conversation asked of a corpus (§16.1). */
export const CONVERSATION_CORPUS_MESSAGE = 'conversation does not apply to a corpus';

const inRange = (v: unknown, [lo, hi]: readonly [number, number], integer: boolean): v is number =>
  typeof v === 'number' && Number.isFinite(v) && (!integer || Number.isInteger(v)) && v >= lo && v <= hi;

/** The options of a valid `conversation`, defaults applied; throws `validation_failed` naming the first bad field. */
export function checkConversation(body: { readonly [K in keyof ConversationBody]?: unknown }): ConversationOptions {
  const L = CONVERSATION_LIMITS;
  const need = (name: string, v: unknown, range: readonly [number, number], integer = true): number => {
    if (!inRange(v, range, integer)) throw validationFailed(`conversation.${name} must be ${range[0]}..${range[1]}`);
    return v;
  };
  const calls = need('calls', body.calls, L.calls);
  const turns = body.turns === undefined ? CONVERSATION_DEFAULTS.turns : need('turns', body.turns, L.turns);
  const speakersPerCall = body.speakers_per_call === undefined ? CONVERSATION_DEFAULTS.speakersPerCall : need('speakers_per_call', body.speakers_per_call, L.speakersPerCall);
  let gapMs: readonly [number, number] = CONVERSATION_DEFAULTS.gapMs;
  if (body.gap_ms !== undefined) {
    const g = body.gap_ms;
    const ok = Array.isArray(g) && g.length === 2 && g.every((x) => inRange(x, L.gapMs, true)) && (g[0] as number) <= (g[1] as number);
    if (!ok) throw validationFailed(`conversation.gap_ms must be [min, max] with ${L.gapMs[0]} <= min <= max <= ${L.gapMs[1]}`);
    gapMs = [g[0] as number, g[1] as number];
  }
  const overlap = body.overlap === undefined ? CONVERSATION_DEFAULTS.overlap : need('overlap', body.overlap, L.overlap, false);
  return { calls, turns, speakersPerCall, gapMs, overlap };
}

/**
 * The CLI's `--conversation [calls[:turns[:speakers]]]` (DESIGN §16.6) as the body's fields; an empty value
 * is one call. Numbers are parsed strictly (`3x` is not 3), and range is left to `checkConversation`.
 */
export function parseConversationFlag(value: string): ConversationBody {
  const parts = value === '' ? [] : value.split(':');
  if (parts.length > 3 || parts.some((p) => !/^\d+$/.test(p))) throw validationFailed(`--conversation must be calls[:turns[:speakers]], got '${value}'`);
  const [calls, turns, speakers] = parts.map(Number);
  return { calls: calls ?? 1, ...(turns !== undefined ? { turns } : {}), ...(speakers !== undefined ? { speakers_per_call: speakers } : {}) };
}
