import type { Command } from 'commander';
import type { HandlerContext } from '../context.js';
import { CliError } from '../errors.js';
import { bar } from '../output.js';
import { connect } from '../session.js';
import { examples, flagsOf } from '../util.js';

/** `voxctl usage`, `voxctl whoami`, `voxctl health`. */
export function registerUsage(program: Command, ctx: HandlerContext): void {
  examples(program.command('usage').description('Characters used this billing period, and requests today'), ['voxctl usage', 'voxctl usage --json | jq .characters_used']).action(
    async (_o, cmd: Command) => {
      const { client, out } = await connect(ctx, flagsOf(cmd));
      const u = await client.usage();
      if (out.json) return out.printJson(u);
      const pct = u.characters_limit > 0 ? (100 * u.characters_used) / u.characters_limit : 0;
      const colour = pct >= 90 ? out.color.red : pct >= 70 ? out.color.yellow : out.color.green;
      out.fields([
        ['tier', u.subscription_tier],
        ['period', `${u.period_start} → ${u.period_end}`],
        ['characters', `${u.characters_used.toLocaleString('en-US')} / ${u.characters_limit.toLocaleString('en-US')} (${pct.toFixed(1)}%)`],
        ['requests_today', u.requests_today],
      ]);
      if (out.isTTY) out.write(`${colour(bar(u.characters_used, u.characters_limit, 40))}\n`);
    },
  );

  examples(program.command('whoami').description('The user behind the current key'), ['voxctl whoami', 'voxctl whoami --json']).action(async (_o, cmd: Command) => {
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

  examples(program.command('health').description("The service's health and version (exit 1 when degraded)"), ['voxctl health', 'voxctl health --json']).action(
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
        const state = (v: string) => (v === 'ok' ? out.color.green(v) : out.color.yellow(v));
        out.fields([
          ['status', state(h.status)],
          ['version', h.version],
          ['uptime', `${Math.round(h.uptime_seconds)} s`],
          ['database', state(h.checks.database)],
          ['tts', state(h.checks.tts)],
          ...Object.entries(h.checks.stt).map(([k, v]) => [`stt ${k}`, state(v)] as [string, string]),
        ]);
      }
      if (h.status !== 'ok') throw new CliError(`${target.baseUrl} is ${h.status}`);
    },
  );
}
