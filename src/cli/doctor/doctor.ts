import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Command } from '../core/commander.js';
import { resolveDataDir } from '../../shared/paths.js';
import { VERSION } from '../../shared/version.js';
import type { HandlerContext } from '../core/context.js';
import { CliError } from '../core/errors.js';
import { isAlive, probeHealth, probeService, readServerRecord } from '../core/local-server.js';
import { styled } from '../core/output.js';
import { outputFor, resolveTarget } from '../core/session.js';
import { examples, flagsOf } from '../core/util.js';
import { describeCommand } from '../command-groups.js';

/** One line of the doctor's report. */
export interface Check {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

/** Finds an executable on PATH. */
export function which(name: string, path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The local service recorded in the data dir must run this CLI's version (an old one left running
 * after an upgrade answers with old rules); `voxctl serve restart` fixes it.
 */
export async function localServiceCheck(dataDir: string): Promise<Check> {
  const rec = readServerRecord(dataDir);
  if (!rec || !isAlive(rec.pid)) return { check: 'local service', status: 'ok', detail: 'not running (started on first use)' };
  const answer = await probeService(rec.url, { timeoutMs: 3000 });
  if (!answer) return { check: 'local service', status: 'fail', detail: `pid ${rec.pid} does not answer at ${rec.url}; run \`voxctl serve restart\`` };
  const version = answer.version ?? rec.version;
  if (version !== VERSION) {
    return { check: 'local service', status: 'fail', detail: `${rec.url} runs voxctl ${version}, this CLI is ${VERSION}; run \`voxctl serve restart\`` };
  }
  return { check: 'local service', status: 'ok', detail: `voxctl ${version} at ${rec.url} (pid ${rec.pid})` };
}

/** `voxctl doctor`: engines, PocketSphinx, keychain, server version, data dir. */
export function registerDoctor(program: Command, ctx: HandlerContext): void {
  examples(program.command('doctor').description(describeCommand('doctor')), [
    'voxctl doctor',
    'voxctl doctor --json',
  ]).action(async (_o, cmd: Command) => {
    const flags = flagsOf(cmd);
    const out = outputFor(ctx, flags);
    const checks: Check[] = [];
    const target = await resolveTarget(ctx, flags);
    const health = await probeHealth(target.baseUrl, 3000);
    if (!health) {
      checks.push({ check: 'service', status: target.embedded ? 'warn' : 'fail', detail: `nothing answers at ${target.baseUrl}${target.embedded ? ' (it starts on first use)' : ''}` });
    } else {
      checks.push({
        check: 'service version',
        status: health.version === VERSION ? 'ok' : 'warn',
        detail: health.version === VERSION ? `${health.version} at ${target.baseUrl}` : `service ${health.version}, CLI ${VERSION} (${target.baseUrl})`,
      });
      try {
        const { createClient } = await import('../../client/index.js');
        const h = await createClient({ baseUrl: target.baseUrl, dispatcher: ctx.dispatcher }).health();
        checks.push({ check: 'database', status: h.checks.database === 'ok' ? 'ok' : 'fail', detail: h.checks.database });
        checks.push({ check: 'tts engines', status: h.checks.tts === 'ok' ? 'ok' : 'fail', detail: h.checks.tts });
        for (const [p, s] of Object.entries(h.checks.stt)) {
          checks.push({ check: `stt ${p}`, status: s === 'ok' ? 'ok' : s === 'not_configured' ? 'warn' : 'fail', detail: s });
        }
      } catch (e) {
        checks.push({ check: 'health', status: 'fail', detail: e instanceof Error ? e.message : String(e) });
      }
    }
    const sphinx = which('pocketsphinx_continuous', ctx.env.raw().PATH) ?? which('pocketsphinx', ctx.env.raw().PATH);
    checks.push({
      check: 'pocketsphinx',
      status: sphinx ? 'ok' : 'warn',
      detail: sphinx ?? 'not found: install `pocketsphinx pocketsphinx-en-us` (apt) or `cmu-pocketsphinx` (brew) for local-sphinx',
    });
    const keychain = await ctx.keys.probe(target.profile);
    checks.push({
      check: 'keychain',
      status: keychain ? 'warn' : 'ok',
      detail: keychain ? `unreachable (${keychain}); keys fall back to ${ctx.keys.filePath}` : 'reachable',
    });
    const dataDir = resolveDataDir(undefined, ctx.env.raw());
    const rec = readServerRecord(dataDir);
    checks.push(await localServiceCheck(dataDir));
    let writable = false;
    try {
      accessSync(existsSync(dataDir) ? dataDir : join(dataDir, '..'), constants.W_OK);
      writable = true;
    } catch {
      writable = false;
    }
    checks.push({
      check: 'data dir',
      status: writable ? 'ok' : 'fail',
      detail: `${dataDir}${existsSync(dataDir) ? '' : ' (not created yet)'}${rec ? `; local service pid ${rec.pid} on port ${rec.port}` : ''}${writable ? '' : ' (not writable)'}`,
    });
    checks.push({ check: 'config', status: 'ok', detail: (await ctx.config()).path });
    if (out.json) out.printJson({ version: VERSION, checks });
    else {
      const mark = { ok: styled(out.color.green('ok')), warn: styled(out.color.yellow('warn')), fail: styled(out.color.red('FAIL')) };
      await out.table(checks, [
        { header: 'check', get: (c) => c.check },
        { header: 'status', get: (c) => mark[c.status] },
        { header: 'detail', get: (c) => c.detail },
      ]);
    }
    const failed = checks.filter((c) => c.status === 'fail');
    if (failed.length) throw new CliError(`${failed.length} check(s) failed: ${failed.map((c) => c.check).join(', ')}`);
  });
}
