import type { Command } from '../core/commander.js';
import type { HandlerContext } from '../core/context.js';
import { CliError } from '../core/errors.js';
import { bar, styled } from '../core/output.js';
import { terminalText } from '../core/safe-text.js';
import type { RateLimitHeaders } from '../../client/index.js';
import type { Usage } from '../../shared/schemas/users.js';
import { TIER_LIMITS } from '../../shared/tier-limits.js';
import { connect } from '../core/session.js';
import { examples, flagsOf } from '../core/util.js';
import { describeCommand } from '../command-groups.js';

const n = (v: number) => v.toLocaleString('en-US');

/** Request limits as `voxctl usage` shows them (the API's usage object has none). */
export interface RequestLimits {
  per_minute: { limit: number; used: number; remaining: number } | null;
  per_day: { limit: number | null; used: number; remaining: number | null };
}

/**
 * Minute and day request limits, used and left: the minute window from the answer's X-RateLimit headers
 * (Remaining is the smaller of minute and day left, so it is the minute's whenever the day does not
 * bind), the day window from the tier's table and `requests_today`.
 */
export function requestLimits(u: Usage, headers: RateLimitHeaders | undefined): RequestLimits {
  const perDay: number | null = TIER_LIMITS[u.subscription_tier].perDay;
  const dayLeft = perDay === null ? null : Math.max(0, perDay - u.requests_today);
  const minuteLeft = headers ? headers.remaining : undefined;
  return {
    per_minute: headers && minuteLeft !== undefined ? { limit: headers.limit, used: Math.max(0, headers.limit - minuteLeft), remaining: minuteLeft } : null,
    per_day: { limit: perDay, used: u.requests_today, remaining: dayLeft },
  };
}

/** `voxctl usage`, `voxctl whoami`, `voxctl health`. */
export function registerUsage(program: Command, ctx: HandlerContext): void {
  examples(program.command('usage').description(describeCommand('usage')), ['voxctl usage', 'voxctl usage --json | jq .characters_used']).action(
    async (_o, cmd: Command) => {
      const { client, out } = await connect(ctx, flagsOf(cmd));
      const u = await client.usage();
      const limits = requestLimits(u, client.lastRateLimit());
      if (out.json) return out.printJson({ ...u, rate_limits: limits });
      const pct = u.characters_limit > 0 ? (100 * u.characters_used) / u.characters_limit : 0;
      const colour = pct >= 90 ? out.color.red : pct >= 70 ? out.color.yellow : out.color.green;
      out.fields([
        ['tier', u.subscription_tier],
        ['period', `${u.period_start} → ${u.period_end}`],
        ['characters', `${u.characters_used.toLocaleString('en-US')} / ${u.characters_limit.toLocaleString('en-US')} (${pct.toFixed(1)}%)`],
        ['requests_today', u.requests_today],
        ['requests/minute', limits.per_minute ? `${n(limits.per_minute.used)} / ${n(limits.per_minute.limit)} used, ${n(limits.per_minute.remaining)} left` : 'unknown (the service sent no rate-limit headers)'],
        ['requests/day', limits.per_day.limit === null ? `${n(limits.per_day.used)} used, unlimited` : `${n(limits.per_day.used)} / ${n(limits.per_day.limit)} used, ${n(limits.per_day.remaining ?? 0)} left`],
      ]);
      if (out.isTTY) out.write(`${colour(bar(u.characters_used, u.characters_limit, 40))}\n`);
    },
  );

  examples(program.command('whoami').description(describeCommand('whoami')), ['voxctl whoami', 'voxctl whoami --json']).action(async (_o, cmd: Command) => {
    const { client, out, target } = await connect(ctx, flagsOf(cmd));
    const me = await client.me();
    if (out.json) return out.printJson(me);
    out.fields([
      ['id', me.id],
      ['email', me.email],
      ['name', me.name],
      ['tier', me.subscription_tier],
      ['created_at', me.created_at],
      ['target', `${target.baseUrl} (profile ${target.profile})`],
    ]);
  });

  examples(program.command('health').description(describeCommand('health')), ['voxctl health', 'voxctl health --json']).action(
    async (_o, cmd: Command) => {
      const { client, out, target } = await connect(ctx, flagsOf(cmd), { auth: false });
      const h = await client.health().catch(async (e: unknown) => {
        // A degraded service answers 503 with the same body: show it rather than a bare error.
        const { ApiRequestError } = await import('../../client/errors.js');
        if (e instanceof ApiRequestError && e.status === 503) throw new CliError(`${target.baseUrl} is degraded: ${e.detail}`);
        throw e;
      });
      if (out.json) out.printJson(h);
      else {
        const state = (v: string) => styled(v === 'ok' ? out.color.green(v) : out.color.yellow(terminalText(v)));
        out.fields([
          ['status', state(h.status)],
          ['version', h.version],
          ['uptime', `${Math.round(h.uptime_seconds)} s`],
          ['database', state(h.checks.database)],
          ['tts', state(h.checks.tts)],
          ...Object.entries(h.checks.stt).map(([k, v]) => [`stt ${k}`, state(v)] as [string, unknown]),
        ]);
      }
      if (h.status !== 'ok') throw new CliError(`${target.baseUrl} is ${h.status}`);
    },
  );
}
