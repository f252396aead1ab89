import type { Command } from '../core/commander.js';
import type { HandlerContext } from '../core/context.js';
import { assertConfigKey, CONFIG_KEYS, validateConfigValue, validateProfile } from '../core/config.js';
import { usageError } from '../core/errors.js';
import { EMBEDDED_BASE_URL, probeService } from '../core/local-server.js';
import { DEFAULT_PROFILE, outputFor, resolveKey, resolveTarget, type GlobalFlags } from '../core/session.js';
import { createClient } from '../../client/client.js';
import { ApiRequestError, NetworkError } from '../../client/errors.js';
import { explained } from '../core/api-errors.js';
import type { Output } from '../core/output.js';
import { examples, flagsOf } from '../core/util.js';
import { describeCommand } from '../command-groups.js';

/**
 * `config set speaker ID` asks the service whether the speaker exists when it is reachable (never
 * starting the local one for it): an unknown id is refused (`Speaker not found: ID`, exit 4), and an
 * unreachable service stores the value with a warning.
 */
async function checkSpeaker(ctx: HandlerContext, flags: GlobalFlags, out: Output, id: string): Promise<void> {
  const target = await resolveTarget(ctx, flags);
  const unchecked = (why: string) => out.warn(`speaker ${id} not checked (${why}); stored as given.`);
  if (target.embedded && !(await probeService(target.baseUrl))) return unchecked(`no service answers at ${target.baseUrl}`);
  const { key } = await resolveKey(ctx, flags, target);
  const client = createClient({ baseUrl: target.baseUrl, apiKey: key, dispatcher: ctx.dispatcher, timeoutMs: 10_000, onLog: (l) => out.debug(l) });
  try {
    await explained({ speakerId: id }, () => client.getSpeaker(id));
  } catch (e) {
    if (e instanceof NetworkError) return unchecked(`${target.baseUrl} is not reachable`);
    if (e instanceof ApiRequestError && (e.status === 401 || e.status === 403 || e.status === 429)) return unchecked(e.detail);
    throw e;
  }
}

/** `voxctl config get|set|unset|list` and `voxctl profile add|use|list|remove`. */
export function registerConfig(program: Command, ctx: HandlerContext): void {
  const config = program
    .command('config')
    .description(describeCommand('config'))
    .addHelpText('after', '\nKeys:\n' + Object.entries(CONFIG_KEYS).map(([k, v]) => `  ${k.padEnd(14)} ${v}`).join('\n'));

  examples(config.command('get').argument('<key>', 'setting name').description('Print one setting'), ['voxctl config get speaker']).action(
    async (key: string, _opts, cmd: Command) => {
      assertConfigKey(key);
      const out = outputFor(ctx, flagsOf(cmd));
      const value = (await ctx.config()).get(key);
      if (out.json) return out.printJson({ [key]: value ?? null });
      if (value !== undefined) out.write(value + '\n');
    },
  );

  examples(config.command('set').argument('<key>', 'setting name').argument('<value>', 'new value').description('Change one setting'), [
    'voxctl config set speaker spk_en-gb-scotland_003',
    'voxctl config set output_format json',
  ]).action(async (key: string, value: string, _opts, cmd: Command) => {
    assertConfigKey(key);
    validateConfigValue(key, value);
    const flags = flagsOf(cmd);
    const out = outputFor(ctx, flags);
    if (key === 'speaker') await checkSpeaker(ctx, flags, out, value);
    await (await ctx.config()).set(key, value);
    out.success(`${key} = ${value}`);
  });

  examples(config.command('unset').argument('<key>', 'setting name').description('Remove one setting'), ['voxctl config unset speaker']).action(
    async (key: string, _opts, cmd: Command) => {
      assertConfigKey(key);
      await (await ctx.config()).set(key, undefined);
      outputFor(ctx, flagsOf(cmd)).success(`${key} unset`);
    },
  );

  examples(config.command('list').description('Print every setting, the current profile and the config file'), ['voxctl config list --json']).action(
    async (_opts, cmd: Command) => {
      const out = outputFor(ctx, flagsOf(cmd));
      const store = await ctx.config();
      const data = { current_profile: store.currentProfile() ?? null, defaults: store.defaults(), profiles: store.profiles(), path: store.path };
      if (out.json) return out.printJson(data);
      out.fields([
        ['current_profile', data.current_profile ?? `(none: local service ${EMBEDDED_BASE_URL})`],
        ...Object.keys(CONFIG_KEYS).map((k) => [k, data.defaults[k as keyof typeof data.defaults]] as [string, unknown]),
        ['config_file', data.path],
      ]);
    },
  );

  const profile = program.command('profile').description(describeCommand('profile'));

  examples(
    profile
      .command('add')
      .argument('<name>', 'profile name')
      .option('--base-url <url>', 'service base URL of this profile (required)')
      .option('--use', 'make it the current profile'),
    ['voxctl profile add prod --base-url https://voxctl.example.com --use', 'voxctl auth login --profile prod'],
  )
    .description('Add (or update) a profile')
    .action(async (name: string, _opts, cmd: Command) => {
      // --base-url is also a global flag: commander hands it to the root, so read the merged value.
      const opts = flagsOf<{ use?: boolean }>(cmd);
      if (!opts.baseUrl) throw usageError("profile add needs --base-url <url>", 'voxctl profile add prod --base-url https://voxctl.example.com');
      validateProfile(name, opts.baseUrl);
      const store = await ctx.config();
      await store.addProfile(name, { base_url: opts.baseUrl.replace(/\/+$/, '') });
      if (opts.use) await store.setCurrentProfile(name);
      outputFor(ctx, flagsOf(cmd)).success(`Profile '${name}' → ${opts.baseUrl}${opts.use ? ' (current)' : ''}`);
    });

  examples(profile.command('use').argument('<name>', `profile name ('${DEFAULT_PROFILE}' = the local service)`).description('Switch the current profile'), [
    'voxctl profile use prod',
    `voxctl profile use ${DEFAULT_PROFILE}`,
  ]).action(async (name: string, _opts, cmd: Command) => {
    const store = await ctx.config();
    const out = outputFor(ctx, flagsOf(cmd));
    if (!store.profiles()[name]) {
      if (name !== DEFAULT_PROFILE) throw usageError(`Unknown profile '${name}'`, 'add it with `voxctl profile add NAME --base-url URL`');
      await store.setCurrentProfile(undefined);
      return out.success(`Using the local service (${EMBEDDED_BASE_URL})`);
    }
    await store.setCurrentProfile(name);
    out.success(`Using profile '${name}' (${store.profiles()[name]!.base_url})`);
  });

  examples(profile.command('list').option('--csv', 'CSV output').description('List profiles'), ['voxctl profile list']).action(
    async (opts: { csv?: boolean }, cmd: Command) => {
      const out = outputFor(ctx, flagsOf(cmd));
      const store = await ctx.config();
      const current = store.currentProfile();
      const rows = Object.entries(store.profiles()).map(([name, p]) => ({ name, base_url: p.base_url, current: name === current }));
      if (!store.profiles()[DEFAULT_PROFILE]) rows.unshift({ name: DEFAULT_PROFILE, base_url: EMBEDDED_BASE_URL, current: current === undefined });
      await out.list({ items: rows }, rows, [
        { header: 'current', get: (r) => (r.current ? '*' : '') },
        { header: 'name', get: (r) => r.name },
        { header: 'base_url', get: (r) => r.base_url },
      ], opts);
    },
  );

  examples(profile.command('remove').argument('<name>', 'profile name').description('Remove a profile and its stored key'), ['voxctl profile remove staging']).action(
    async (name: string, _opts, cmd: Command) => {
      const store = await ctx.config();
      if (!store.profiles()[name]) throw usageError(`Unknown profile '${name}'`);
      await store.removeProfile(name);
      await ctx.keys.delete(name);
      outputFor(ctx, flagsOf(cmd)).success(`Removed profile '${name}'`);
    },
  );
}
