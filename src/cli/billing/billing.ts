import type { Command } from '../core/commander.js';
import type { HandlerContext } from '../core/context.js';
import { styled } from '../core/output.js';
import { terminalText } from '../core/safe-text.js';
import { connect } from '../core/session.js';
import { examples, flagsOf } from '../core/util.js';
import { describeCommand } from '../command-groups.js';

/** `voxctl billing portal|subscription`. */
export function registerBilling(program: Command, ctx: HandlerContext): void {
  const billing = program.command('billing').description(describeCommand('billing'));

  examples(billing.command('portal').option('--open', 'open it in the browser').description('Print a link to the billing portal (valid 24 h; each opening starts its own session)'), [
    'voxctl billing portal --open',
  ]).action(async (_o, cmd: Command) => {
    const flags = flagsOf<{ open?: boolean }>(cmd);
    const { client, out } = await connect(ctx, flags);
    const portal = await client.billingPortal();
    if (out.json) out.printJson(portal);
    else out.write(portal.url + '\n');
    if (flags.open && !(await ctx.openUrl(portal.url))) out.warn(`could not open a browser; open ${portal.url} yourself.`);
    else out.info(`Valid until ${portal.expires_at}.`);
  });

  examples(billing.command('subscription').description('Tier, status and current period'), ['voxctl billing subscription --json']).action(
    async (_o, cmd: Command) => {
      const { client, out } = await connect(ctx, flagsOf(cmd));
      const s = await client.subscription();
      if (out.json) return out.printJson(s);
      out.fields([
        ['tier', s.tier],
        ['status', styled(s.status === 'active' ? out.color.green(s.status) : out.color.red(terminalText(s.status)))],
        ['period', `${s.current_period_start} → ${s.current_period_end}`],
        ['cancel_at_period_end', s.cancel_at_period_end ? 'yes' : 'no'],
      ]);
    },
  );
}
