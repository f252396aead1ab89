import { ApiRequestError } from '../../client/errors.js';

/** What a command knows about its request, to make the service's terse errors actionable. */
export interface RequestContext {
  /** The speaker the request named (the spec's 404 says only `Speaker not found`). */
  speakerId?: string;
  /** The text sent, to show its length when it is too long. */
  text?: string;
}

/** The same API error with another `detail` (status, code, request id and rate-limit hints kept). */
export function withDetail(e: ApiRequestError, detail: string): ApiRequestError {
  return new ApiRequestError({
    status: e.status,
    detail,
    code: e.code,
    requestId: e.requestId,
    retryAfter: e.retryAfter,
    rateLimitReset: e.rateLimitReset,
    errors: e.errors,
  });
}

/**
 * Adds what the CLI knows to a service error (DESIGN §7 / issue 9): the speaker id to `Speaker not
 * found`, and the text's length plus a pointer to `batch submit` to an over-long text.
 */
export function explainApiError(e: unknown, context: RequestContext): unknown {
  if (!(e instanceof ApiRequestError)) return e;
  // The bare detail only: a batch line's detail already names its speaker.
  if (e.code === 'speaker_not_found' && e.detail === 'Speaker not found' && context.speakerId) return withDetail(e, `Speaker not found: ${context.speakerId}`);
  if (e.code === 'text_too_long' && context.text !== undefined) {
    const length = [...context.text].length;
    return withDetail(e, `${e.detail} (this text has ${length}); split it into several texts and use \`voxctl batch submit FILE\``);
  }
  return e;
}

/** Runs `fn` and rethrows its service error with `context` added (see explainApiError). */
export async function explained<T>(context: RequestContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw explainApiError(e, context);
  }
}

/** A quota 429 with what the CLI knows: the characters the request needed and those left this period. */
export class QuotaExceededError extends ApiRequestError {
  readonly charactersNeeded: number;
  /** Left this billing period (undefined when the usage could not be read). */
  readonly charactersLeft: number | undefined;
  readonly charactersLimit: number | undefined;

  constructor(e: ApiRequestError, needed: number, usage: { characters_used: number; characters_limit: number } | undefined) {
    super({ status: e.status, detail: e.detail, code: e.code, requestId: e.requestId, retryAfter: e.retryAfter, rateLimitReset: e.rateLimitReset, errors: e.errors });
    this.charactersNeeded = needed;
    this.charactersLimit = usage?.characters_limit;
    this.charactersLeft = usage ? Math.max(0, usage.characters_limit - usage.characters_used) : undefined;
  }

  /** `this needs 1234 characters; 56 of 10000 are left this billing period`. */
  get arithmetic(): string {
    const left = this.charactersLeft === undefined ? '' : `; ${this.charactersLeft} of ${this.charactersLimit} are left this billing period`;
    return `this needs ${this.charactersNeeded} characters${left}`;
  }
}

/**
 * Runs `fn` (a request that consumes `needed` characters); a quota 429 comes back as a
 * QuotaExceededError saying how many characters were needed and how many are left (one
 * `GET /v1/users/usage`, only then). The service's message itself is kept as it is.
 */
export async function withQuotaArithmetic<T>(usage: () => Promise<{ characters_used: number; characters_limit: number }>, needed: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof ApiRequestError) || e.code !== 'quota_exceeded') throw e;
    throw new QuotaExceededError(e, needed, await usage().catch(() => undefined));
  }
}
