/**
 * The rules of an evaluation's body that every source shares (DESIGN §8.1, §13.2): its name, providers,
 * their configuration and streaming, conditions. Each throws the validation error DESIGN words.
 */
import type { CreateEvaluationRequest } from '../../../shared/schemas/evaluations.js';
import { ALL_PROVIDERS } from '../../../shared/schemas/stt.js';
import { formatCondition, parseCondition } from '../../../shared/conditions.js';
import { validationFailed } from '../../../shared/errors.js';
import { codePoints } from '../../../shared/text-rules.js';
import { EVALUATION_LIMITS } from '../../../shared/constants.js';
import type { Hearing } from './request.js';

/** Checks a list of names: 1..max, distinct, each known; returns them in request order. */
function checkList(values: string[], what: { noun: string; plural: string; max: number; known: (v: string) => string }): string[] {
  if (values.length === 0) throw validationFailed(`At least one ${what.noun} is required`);
  if (values.length > what.max) throw validationFailed(`At most ${what.max} ${what.plural} can be evaluated at once`);
  const seen = new Set<string>();
  return values.map((v) => {
    const canonical = what.known(v);
    if (seen.has(canonical)) throw validationFailed(`Duplicate ${what.noun}: ${v}`);
    seen.add(canonical);
    return canonical;
  });
}

/** `providers` as rule 11 with room for every token at once (1..10). */
export function checkProviders(providers: string[]): string[] {
  return checkList(providers, {
    noun: 'provider',
    plural: 'providers',
    max: EVALUATION_LIMITS.providers,
    known: (p) => {
      if (!ALL_PROVIDERS.includes(p)) throw validationFailed(`Unknown provider: ${p}`);
      return p;
    },
  });
}

/** An evaluation's `name`, when given, is 1..200 code points (of a new evaluation and of a rerun alike). */
export function checkEvaluationName(name: string | undefined): void {
  if (name !== undefined && (codePoints(name) < 1 || codePoints(name) > EVALUATION_LIMITS.name)) {
    throw validationFailed(`Name must be 1 to ${EVALUATION_LIMITS.name} characters`);
  }
}

/**
 * Refuses a provider the server cannot call (`Provider not configured: {name}`, after every name is known):
 * an evaluation must never run only to fail every utterance of a provider (DESIGN §8.1).
 */
export function checkConfigured(providers: readonly string[], isConfigured: (provider: string) => boolean): void {
  for (const p of providers) if (!isConfigured(p)) throw validationFailed(`Provider not configured: ${p}`);
}

/**
 * The mode of an evaluation (DESIGN §13.2): `batch` by default; `streaming` needs every provider to stream
 * (`Provider does not stream: {token}`) and takes `pace` (default 1.0), which batch mode refuses.
 */
export function checkMode(
  body: Pick<CreateEvaluationRequest, 'mode' | 'pace'>,
  providers: readonly string[],
  canStream: (provider: string) => boolean,
): Hearing {
  if ((body.mode ?? 'batch') === 'batch') {
    if (body.pace !== undefined) throw validationFailed('pace applies to streaming mode');
    return { mode: 'batch', pace: null };
  }
  for (const p of providers) if (!canStream(p)) throw validationFailed(`Provider does not stream: ${p}`);
  return { mode: 'streaming', pace: body.pace ?? 1 };
}

/** `conditions` (default `clean`) in canonical form (`noise:5.0` → `noise:5`); `Unknown condition: {c}`. */
export function checkConditions(conditions: string[] | undefined): string[] {
  return checkList(conditions ?? ['clean'], {
    noun: 'condition',
    plural: 'conditions',
    max: EVALUATION_LIMITS.conditions,
    // An unknown condition throws a validation_failed domain error (400).
    known: (c) => formatCondition(parseCondition(c)),
  });
}
