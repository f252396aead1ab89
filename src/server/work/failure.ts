import { DomainError } from '../../shared/errors.js';
import type { WorkFailure } from './kind.js';

/**
 * The one failure policy of background work: a DomainError is a rule the user can act on (`Speaker not
 * found: spk_…`) and keeps its code and message; anything else is the kind's failure, prefixed, with the
 * first line of the reason only (no stack, no internal paths), at most 300 characters of it.
 */
export function describeFailure(err: unknown, kind: { code: string; prefix: string }): WorkFailure {
  if (err instanceof DomainError) return { code: err.code, message: err.message };
  const reason = err instanceof Error ? err.message : String(err);
  return { code: kind.code, message: `${kind.prefix}: ${reason.split('\n')[0]!.slice(0, 300)}` };
}
