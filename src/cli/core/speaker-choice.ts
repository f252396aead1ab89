// The speaker of a synthesis when the command line names none: `tts say` and `batch submit` share it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VoxClient } from '../../client/index.js';
import type { HandlerContext } from './context.js';
import { usageError } from './errors.js';
import type { Output } from './output.js';

/** How long the catalogue's first speaker is remembered per service (a loop of `tts say` asks once). */
export const FIRST_SPEAKER_TTL_MS = 60 * 60 * 1000;

const firstSpeakerFile = (ctx: HandlerContext) => join(ctx.configDir, 'first-speaker.json');

function rememberedFirstSpeaker(ctx: HandlerContext, baseUrl: string): string | undefined {
  try {
    const hit = (JSON.parse(readFileSync(firstSpeakerFile(ctx), 'utf8')) as Record<string, { id: string; at: number }>)[baseUrl];
    return hit && ctx.clock.now().getTime() - hit.at < FIRST_SPEAKER_TTL_MS ? hit.id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Picks the speaker: --speaker > config `speaker` > the catalogue's first voice (said on stderr). The
 * first voice is remembered per service for an hour, so a script calling `tts say` in a loop costs the
 * service one request per call (DESIGN §7); `forget` drops a remembered one the service no longer has.
 */
export async function chooseSpeaker(ctx: HandlerContext, client: VoxClient, out: Output, flag: string | undefined, options: { forget?: boolean } = {}): Promise<{ id: string; remembered: boolean }> {
  if (flag) return { id: flag, remembered: false };
  const configured = (await ctx.config()).get('speaker');
  if (configured) return { id: configured, remembered: false };
  const known = options.forget ? undefined : rememberedFirstSpeaker(ctx, client.baseUrl);
  if (known) return { id: known, remembered: true };
  const first = (await client.listSpeakers({ limit: 1 })).items[0];
  if (!first) throw usageError('No speaker given and the catalogue is empty', 'pass --speaker ID');
  out.info(`Using speaker ${first.id} (set a default with \`voxctl config set speaker ID\`).`);
  let all: Record<string, { id: string; at: number }> = {};
  try {
    all = JSON.parse(readFileSync(firstSpeakerFile(ctx), 'utf8')) as typeof all;
  } catch {
    // first time
  }
  all[client.baseUrl] = { id: first.id, at: ctx.clock.now().getTime() };
  mkdirSync(ctx.configDir, { recursive: true, mode: 0o700 });
  writeFileSync(firstSpeakerFile(ctx), JSON.stringify(all) + '\n');
  return { id: first.id, remembered: false };
}
