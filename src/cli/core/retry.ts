import { ApiRequestError } from '../../client/errors.js';
import type { HandlerContext } from './context.js';
import type { Output } from './output.js';

/** The longest total wait on Retry-After before the 429 is passed on (DESIGN §7: bounded). */
export const MAX_RETRY_WAIT_MS = 120_000;

/**
 * Runs `fn`, waiting out a rate-limit 429 (`Retry-After`, with a message on stderr) and trying again,
 * for downloads and `--watch` polling. A quota 429 is not retried (waiting does not renew a quota), and
 * the waits add up to at most `maxWaitMs`; then the 429 is thrown as usual (exit 5).
 */
export async function retryAfter429<T>(ctx: HandlerContext, out: Output, fn: () => Promise<T>, maxWaitMs = MAX_RETRY_WAIT_MS): Promise<T> {
  let waited = 0;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof ApiRequestError) || e.status !== 429 || e.code === 'quota_exceeded') throw e;
      const seconds = Math.max(1, e.retryAfter ?? 1);
      if (waited + seconds * 1000 > maxWaitMs) throw e;
      out.info(`Rate limited by the service; waiting ${seconds} s (Retry-After) before trying again...`);
      out.event('rate_limited', { retry_after_seconds: seconds });
      await ctx.clock.sleep(seconds * 1000);
      waited += seconds * 1000;
    }
  }
}
