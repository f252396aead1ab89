import { randomUUID } from 'node:crypto';
import { DomainError } from '../../shared/errors.js';
import { isDatabaseError } from '../storage/sql/errors.js';
import type { WorkFailure } from './kind.js';

/** A failure as the claim loop records it; `requestId` when it is an internal one, logged under that id. */
export interface DescribedFailure extends WorkFailure {
  /** Set for a database error: the id of the `work_item_failed` line that carries the cause (DESIGN §14.10). */
  requestId?: string;
}

/** An id in the format of request ids (`req_` + 32 hex): a user quotes it, an operator finds the line. */
const newRequestId = (): string => `req_${randomUUID().replaceAll('-', '')}`;

/**
 * The one failure policy of background work: a DomainError is a rule the user can act on (`Speaker not
 * found: spk_…`) and keeps its code and message; a database error (a constraint, a lock — the database
 * reachable) is `{prefix}: internal error (request {id})`, its message kept for the log line of that id and
 * never shown (it names tables and constraints); anything else is the kind's failure, prefixed, with the
 * first line of the reason only (no stack, no internal paths), at most 300 characters of it.
 */
export function describeFailure(err: unknown, kind: { code: string; prefix: string }): DescribedFailure {
  if (err instanceof DomainError) return { code: err.code, message: err.message };
  if (isDatabaseError(err)) {
    const requestId = newRequestId();
    return { code: kind.code, message: `${kind.prefix}: internal error (request ${requestId})`, requestId };
  }
  const reason = err instanceof Error ? err.message : String(err);
  return { code: kind.code, message: `${kind.prefix}: ${reason.split('\n')[0]!.slice(0, 300)}` };
}
