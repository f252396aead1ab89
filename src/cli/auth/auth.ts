import type { Command } from '../core/commander.js';
import { createClient } from '../../client/index.js';
import { ApiRequestError } from '../../client/errors.js';
import type { HandlerContext } from '../core/context.js';
import { CliError, ExitCode, usageError } from '../core/errors.js';
import { announceTarget, ensureEmbedded, outputFor, resolveKey, resolveTarget, warnFallback } from '../core/session.js';
import { canPrompt, examples, flagsOf, readStdin } from '../core/util.js';
import { describeCommand } from '../command-groups.js';

/** `voxctl auth login|logout|status|token`: the key of the current profile. */
export function registerAuth(program: Command, ctx: HandlerContext): void {
  const auth = program.command('auth').description(describeCommand('auth'));

  examples(
    auth
      .command('login')
      .description('Validate an API key against the service and store it in the OS keychain')
      .option('--with-token', 'read the key from stdin instead of prompting'),
    ['voxctl auth login', 'echo "$VOX_KEY" | voxctl auth login --with-token --profile prod', 'voxctl auth login --insecure-storage'],
  ).action(async (_opts, cmd: Command) => {
    const flags = flagsOf<{ withToken?: boolean }>(cmd);
    const out = outputFor(ctx, flags);
    const target = await resolveTarget(ctx, flags);
    if (target.embedded) await ensureEmbedded(ctx, flags, out, target, { provision: false });
    let key: string;
    if (flags.withToken) {
      key = (await readStdin(ctx)).trim();
      if (!key) throw usageError('No key on stdin', 'pipe the key in: echo "$KEY" | voxctl auth login --with-token');
    } else if (canPrompt(ctx)) {
      announceTarget(out, target);
      key = (await ctx.prompt.password(`API key for ${target.baseUrl}:`)).trim();
      if (!key) throw usageError('No key entered');
    } else {
      throw usageError('No key given and no terminal to ask on', 'pipe the key in with --with-token');
    }
    const client = createClient({ baseUrl: target.baseUrl, apiKey: key, dispatcher: ctx.dispatcher, onLog: (l) => out.debug(l) });
    let user;
    try {
      user = await client.me();
    } catch (e) {
      if (e instanceof ApiRequestError && e.status === 401) {
        throw new CliError(`Key rejected by ${target.baseUrl}: ${e.detail}`, { exitCode: ExitCode.auth, hint: 'check the key, or create one with `voxctl keys create`' });
      }
      throw e;
    }
    announceTarget(out, target);
    const saved = await ctx.keys.set(target.profile, key, { insecure: flags.insecureStorage });
    if (saved.keychainError) warnFallback(out, saved.keychainError, ctx.keys.filePath);
    if (out.json) return out.printJson(user);
    out.success(
      `Logged in to ${target.baseUrl} as ${user.email} (${user.subscription_tier}); key stored in ${saved.storage === 'keychain' ? 'the OS keychain' : ctx.keys.filePath} for profile '${target.profile}'.`,
    );
  });

  examples(auth.command('logout').description("Remove the current profile's key from the keychain and the key file"), [
    'voxctl auth logout',
    'voxctl auth logout --profile prod',
  ]).action(async (_opts, cmd: Command) => {
    const flags = flagsOf(cmd);
    const out = outputFor(ctx, flags);
    const target = await resolveTarget(ctx, flags);
    announceTarget(out, target);
    const result = await ctx.keys.delete(target.profile);
    if (result.keychainError) out.warn(`keychain unreachable (${result.keychainError}); only the key file was checked.`);
    if (out.json) return out.printJson({ profile: target.profile, removed: result.removed });
    if (result.removed) out.success(`Removed the key of profile '${target.profile}'.`);
    else out.info(`No key stored for profile '${target.profile}'.`);
  });

  examples(auth.command('status').description('Show who you are, the target, and where the key comes from'), [
    'voxctl auth status',
    'voxctl auth status --json',
  ]).action(async (_opts, cmd: Command) => {
    const flags = flagsOf(cmd);
    const out = outputFor(ctx, flags);
    const target = await resolveTarget(ctx, flags);
    if (target.embedded && flags.autostart !== false) await ensureEmbedded(ctx, flags, out, target);
    const { key, source } = await resolveKey(ctx, flags, target);
    // The one probe `doctor` asks too (a failure met while reading the key is part of its answer).
    const keychain = await ctx.keys.probe(target.profile);
    let user: Awaited<ReturnType<ReturnType<typeof createClient>['me']>> | undefined;
    let state: 'ok' | 'no_key' | 'rejected' | 'unreachable' = 'no_key';
    let problem: string | undefined;
    if (key) {
      try {
        user = await createClient({ baseUrl: target.baseUrl, apiKey: key, dispatcher: ctx.dispatcher, onLog: (l) => out.debug(l) }).me();
        state = 'ok';
      } catch (e) {
        if (e instanceof ApiRequestError && (e.status === 401 || e.status === 403)) {
          state = 'rejected';
          problem = e.detail;
        } else {
          state = 'unreachable';
          problem = e instanceof Error ? e.message : String(e);
        }
      }
    }
    const report = {
      profile: target.profile,
      base_url: target.baseUrl,
      base_url_source: target.baseUrlSource,
      key_source: source ?? null,
      keychain: keychain ? 'unreachable' : 'ok',
      keychain_error: keychain ?? null,
      state,
      user: user ?? null,
    };
    if (out.json) out.printJson(report);
    else {
      out.fields([
        ['Target', `${target.baseUrl} (profile ${target.profile}, from ${target.baseUrlSource})`],
        ['Key', source ? `from ${describeSource(source)}` : 'none'],
        ['Keychain', keychain ? `unreachable (${keychain}); keys are kept in ${ctx.keys.filePath}` : 'reachable'],
        ['Status', statusText(state, problem)],
        ...(user ? ([['User', `${user.email}${user.name ? ` (${user.name})` : ''} · ${user.id}`], ['Tier', user.subscription_tier]] as [string, string][]) : []),
      ]);
    }
    if (state === 'no_key') {
      throw new CliError(keychain ? 'Not logged in: no key found, and the keychain is unreachable' : 'Not logged in', { exitCode: ExitCode.auth, hint: 'run voxctl auth login' });
    }
    if (state === 'rejected') throw new CliError(`Key rejected by the server: ${problem}`, { exitCode: ExitCode.auth, hint: 'run voxctl auth login' });
    if (state === 'unreachable') throw new CliError(`Cannot check the key: ${problem}`, { hint: 'check with `voxctl serve status`' });
  });

  examples(auth.command('token').description('Print the API key of the current profile (for scripts)'), [
    'curl -H "Authorization: Bearer $(voxctl auth token)" http://127.0.0.1:7723/v1/users/me',
  ]).action(async (_opts, cmd: Command) => {
    const flags = flagsOf(cmd);
    const target = await resolveTarget(ctx, flags);
    const { key } = await resolveKey(ctx, flags, target);
    if (!key) throw new CliError(`No API key for profile '${target.profile}'`, { exitCode: ExitCode.auth, hint: 'run voxctl auth login' });
    ctx.stdout.write(key + '\n');
  });
}

function describeSource(source: string): string {
  return { flag: '--api-key', env: 'VOXCTL_API_KEY', keychain: 'the OS keychain', file: 'the key file (insecure storage)' }[source] ?? source;
}

function statusText(state: string, problem: string | undefined): string {
  if (state === 'ok') return 'logged in';
  if (state === 'rejected') return `key rejected by the server (${problem})`;
  if (state === 'unreachable') return `service unreachable (${problem})`;
  return 'not logged in';
}
