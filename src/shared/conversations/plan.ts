/**
 * The plan of synthetic calls (DESIGN §16.1): which speakers take part in each call, which text each turn
 * says, and the seeded gap or overlap before each turn. Pure and deterministic for a seed. Each call has
 * its own generator (seeded from the evaluation's seed and the call number), so a call is planned alone:
 * the work kind plans call n without holding the others, and memory stays flat in the number of calls.
 */
import { DomainError } from '../errors.js';
import { createPrng } from '../stats.js';
import { codePoints } from '../text-rules.js';

/** `conversation` of `POST /v1/evaluations`, defaults applied. */
export interface ConversationOptions {
  calls: number;
  turns: number;
  speakersPerCall: number;
  /** Inclusive range of the silence between one turn's speech end and the next one's start (ms). */
  gapMs: readonly [number, number];
  /** Share of turns (after the first) that start before the previous turn's speech ends. */
  overlap: number;
}

/** The defaults and bounds of §16.1. */
export const CONVERSATION_LIMITS = Object.freeze({
  calls: [1, 200],
  turns: [2, 60],
  speakersPerCall: [2, 4],
  gapMs: [0, 5000],
  overlap: [0, 0.5],
} as const);
export const CONVERSATION_DEFAULTS = Object.freeze({ turns: 12, speakersPerCall: 2, gapMs: [200, 800] as const, overlap: 0 });
/** An overlapping turn starts this many ms (inclusive range) before the previous turn's speech ends. */
export const OVERLAP_MS: readonly [number, number] = [100, 600];

/** One planned turn: who says which text, and how it joins the turn before. */
export interface PlannedTurn {
  /** Turn number k, from 0. */
  index: number;
  /** Index into the evaluation's texts: `perm[k mod T]`. */
  textIndex: number;
  /** Position of the speaker in the call's `speakers` (k mod n). */
  slot: number;
  /** Silence after the previous turn's speech end (ms); unused for turn 0 and for overlapping turns. */
  gapMs: number;
  /** For an overlapping turn, how long before the previous turn's speech end it starts (ms); else null. */
  overlapMs: number | null;
}

/** One planned call. */
export interface PlannedCall {
  /** The call's number, from 1 (`utterance_id` `call-{n}`). */
  call: number;
  /** The call's speakers (ids from the evaluation's selection), in slot order. */
  speakers: string[];
  turns: PlannedTurn[];
}

/** What a plan is drawn from. */
export interface PlanInput {
  options: ConversationOptions;
  /** The evaluation's seed (default 0). */
  seed: number;
  /** The evaluation's speaker selection (§8), in its order. */
  speakers: readonly string[];
  /** How many texts the evaluation has (T). */
  texts: number;
}

/** Thrown when a selection cannot fill a call: a `validation_failed` domain error (400 over HTTP). */
export class ConversationPlanError extends DomainError {
  constructor(message: string) {
    super('validation_failed', message);
    this.name = 'ConversationPlanError';
  }
}

/** A generator for call `n` alone, unrelated to its neighbours' (splitmix inside createPrng decorrelates). */
function callPrng(seed: number, call: number): () => number {
  return createPrng(((seed >>> 0) ^ Math.imul(call, 0x9e3779b1)) >>> 0);
}

/** A uniform integer in [lo, hi] (inclusive). */
const uniformInt = (random: () => number, lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));

/** A seeded Fisher–Yates permutation of 0..n−1. */
function permutation(random: () => number, n: number): number[] {
  const out = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Plans call `call` (1-based): `speakersPerCall` speakers drawn without replacement from the selection,
 * a permutation of the texts, and for each turn after the first either an overlap (with probability
 * `overlap`, 100..600 ms) or a gap uniform in `gapMs`. Draw order is fixed (speakers, texts, then per turn
 * the overlap coin, the gap and the overlap length), so a plan never changes under a refactor unnoticed.
 */
export function planCall(input: PlanInput, call: number): PlannedCall {
  const { options, seed, speakers, texts } = input;
  const n = options.speakersPerCall;
  if (speakers.length < n) {
    throw new ConversationPlanError(`conversation.speakers_per_call (${n}) exceeds the ${speakers.length} selected speaker${speakers.length === 1 ? '' : 's'}`);
  }
  if (texts < 1) throw new ConversationPlanError('conversation needs at least one text');
  const random = callPrng(seed, call);
  const chosen = permutation(random, speakers.length).slice(0, n).map((i) => speakers[i]!);
  const perm = permutation(random, texts);
  const turns: PlannedTurn[] = [];
  for (let k = 0; k < options.turns; k++) {
    const overlaps = random() < options.overlap;
    const gapMs = uniformInt(random, options.gapMs[0], options.gapMs[1]);
    const overlapMs = uniformInt(random, OVERLAP_MS[0], OVERLAP_MS[1]);
    turns.push({ index: k, textIndex: perm[k % texts]!, slot: k % n, gapMs, overlapMs: k > 0 && overlaps ? overlapMs : null });
  }
  return { call, speakers: chosen, turns };
}

/** Every call of the plan, in order (small: a few numbers per turn). */
export function planConversations(input: PlanInput): PlannedCall[] {
  return Array.from({ length: input.options.calls }, (_, i) => planCall(input, i + 1));
}

/** The texts a planned call's turns say, in turn order: its reference, and what its synthesis is charged (§16.1). */
export function turnTexts(plan: PlannedCall, texts: readonly string[]): string[] {
  return plan.turns.map((t) => texts[t.textIndex]!);
}

/**
 * The code points every call of a plan synthesises: Σ over calls and turns (§16.1), what a conversation
 * evaluation is charged. Only the number of selected speakers matters here, not who they are.
 */
export function conversationCharacters(input: Omit<PlanInput, 'texts'> & { texts: readonly string[] }): number {
  const plan = { ...input, texts: input.texts.length };
  let total = 0;
  for (let call = 1; call <= input.options.calls; call++) for (const t of turnTexts(planCall(plan, call), input.texts)) total += codePoints(t);
  return total;
}
