/**
 * Audio conditions of evaluations (DESIGN §8.1): the one place their text form is parsed, validated and
 * written back. Pure and free of TypeBox so the CLI can check `--conditions` before any request.
 */

import { DomainError } from './errors.js';

/** A degradation applied to synthesised audio before it is transcribed. */
export type AudioCondition = { kind: 'clean' } | { kind: 'telephone' } | { kind: 'noise'; snrDb: number } | { kind: 'speed'; factor: number };

/** The accepted range of `noise:{snr}` in dB and of `speed:{factor}` (DESIGN §8.1). */
export const NOISE_SNR_RANGE = { min: -10, max: 40 } as const;
export const SPEED_FACTOR_RANGE = { min: 0.5, max: 2 } as const;

/** A condition string that is not one of DESIGN §8.1's forms; the message is the API's 400 detail. */
export class ConditionError extends DomainError {
  constructor(readonly condition: string) {
    super('validation_failed', `Unknown condition: ${condition}`);
    this.name = 'ConditionError';
  }
}

// Plain decimal numbers only: no exponents, hex, spaces or signs other than a leading minus.
const NUMBER = /^-?\d+(?:\.\d+)?$/;

function numberIn(text: string, range: { min: number; max: number }): number | undefined {
  if (!NUMBER.test(text)) return undefined;
  const value = Number(text);
  return value >= range.min && value <= range.max ? value : undefined;
}

/**
 * Parses `clean`, `telephone`, `noise:{snr}` (−10..40 dB) or `speed:{factor}` (0.5..2.0); anything else,
 * an out-of-range number included, throws `ConditionError` (`Unknown condition: {text}`).
 */
export function parseCondition(text: string): AudioCondition {
  if (text === 'clean' || text === 'telephone') return { kind: text };
  const colon = text.indexOf(':');
  const kind = text.slice(0, colon);
  const arg = text.slice(colon + 1);
  if (colon > 0 && kind === 'noise') {
    const snrDb = numberIn(arg, NOISE_SNR_RANGE);
    if (snrDb !== undefined) return { kind, snrDb };
  } else if (colon > 0 && kind === 'speed') {
    const factor = numberIn(arg, SPEED_FACTOR_RANGE);
    if (factor !== undefined) return { kind, factor };
  }
  throw new ConditionError(text);
}

/** A number in plain decimal notation (String() switches to exponents below 1e-6, which parseCondition refuses). */
function plain(n: number): string {
  const text = String(n === 0 ? 0 : n);
  return text.includes('e') ? n.toFixed(20).replace(/\.?0+$/, '') : text;
}

/** The canonical text of a condition (`noise:5`, `speed:1.5`): what `parseCondition` reads back to it. */
export function formatCondition(c: AudioCondition): string {
  switch (c.kind) {
    case 'noise':
      return `noise:${plain(c.snrDb)}`;
    case 'speed':
      return `speed:${plain(c.factor)}`;
    default:
      return c.kind;
  }
}
