/**
 * The probes of an evaluation (DESIGN §12), checked and completed with their defaults at creation: what
 * is stored (and shown, and copied by a rerun) is the complete form, so a resumed run and a rerun hear
 * exactly the same clips, sentences and terms.
 */
import { validationFailed } from '../../../shared/errors.js';
import { ENTITY_PER_TYPE, ENTITY_TYPES, entitySentences, isEntityType, type EntitySentence, type EntityType } from '../../../shared/entities/index.js';
import { normalizeKeyterms } from '../../../shared/keyterms.js';
import { NON_SPEECH_KINDS, NON_SPEECH_LIMITS, type NonSpeechKind } from '../../../shared/non-speech.js';
import type { EvaluationProbes } from '../../../shared/schemas/evaluations.js';


/** Probes with every default filled in. */
export interface CheckedProbes {
  non_speech?: { clips: number; seconds: number; kinds: NonSpeechKind[] };
  entities?: { types: EntityType[]; per_type: number };
  keyterms?: { terms: string[] };
}

const within = (x: number, r: { min: number; max: number }) => Number.isFinite(x) && x >= r.min && x <= r.max;

/**
 * Checks `probes` (400 with the field named) and fills in the defaults; undefined when none is asked.
 * The non-speech clips are heard under the `clean` condition, which the evaluation must therefore hold.
 */
export function checkProbes(probes: EvaluationProbes | undefined, conditions: readonly string[]): CheckedProbes | undefined {
  if (!probes || Object.keys(probes).length === 0) return undefined;
  const out: CheckedProbes = {};
  if (probes.non_speech) {
    const { clips: c, seconds: s } = NON_SPEECH_LIMITS;
    const clips = probes.non_speech.clips ?? c.default;
    const seconds = probes.non_speech.seconds ?? s.default;
    if (!Number.isInteger(clips) || !within(clips, c)) throw validationFailed(`probes.non_speech.clips must be ${c.min}..${c.max}`);
    if (!within(seconds, s)) throw validationFailed(`probes.non_speech.seconds must be ${s.min}..${s.max}`);
    const kinds = probes.non_speech.kinds ?? [...NON_SPEECH_KINDS];
    if (kinds.length === 0) throw validationFailed('probes.non_speech.kinds must name at least one kind');
    for (const k of kinds) {
      if (!(NON_SPEECH_KINDS as readonly string[]).includes(k)) throw validationFailed(`Unknown non-speech kind: ${k} (expected one of ${NON_SPEECH_KINDS.join(', ')})`);
    }
    if (!conditions.includes('clean')) throw validationFailed('probes.non_speech needs the clean condition: the clips are heard as they are');
    out.non_speech = { clips, seconds, kinds: [...new Set(kinds)] as NonSpeechKind[] };
  }
  if (probes.entities) {
    const { types } = probes.entities;
    const perType = probes.entities.per_type ?? ENTITY_PER_TYPE.default;
    if (types.length === 0) throw validationFailed('probes.entities.types must name at least one type');
    for (const t of types) if (!isEntityType(t)) throw validationFailed(`Unknown entity type: ${t} (expected one of ${ENTITY_TYPES.join(', ')})`);
    if (!Number.isInteger(perType) || !within(perType, ENTITY_PER_TYPE)) throw validationFailed(`probes.entities.per_type must be ${ENTITY_PER_TYPE.min}..${ENTITY_PER_TYPE.max}`);
    out.entities = { types: [...new Set(types)] as EntityType[], per_type: perType };
  }
  if (probes.keyterms) out.keyterms = { terms: normalizeKeyterms(probes.keyterms.terms) };
  return out;
}

/** The seeded entity sentences of the probe (empty without it): they join the evaluation's texts. */
export function probeSentences(probes: CheckedProbes | undefined, seed: number): EntitySentence[] {
  return probes?.entities ? entitySentences(probes.entities.types, probes.entities.per_type, seed) : [];
}

/** The kind of each non-speech clip, in order (the kinds in turn, as the clip generator draws them). */
export function probeClipKinds(probes: CheckedProbes | undefined): NonSpeechKind[] {
  const ns = probes?.non_speech;
  return ns ? Array.from({ length: ns.clips }, (_, i) => ns.kinds[i % ns.kinds.length]!) : [];
}
