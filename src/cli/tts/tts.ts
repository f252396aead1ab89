import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from '../core/commander.js';
import { ApiRequestError } from '../../client/errors.js';
import { Option } from '../core/commander.js';
import type { VoxClient } from '../../client/index.js';
import type { HandlerContext } from '../core/context.js';
import { usageError } from '../core/errors.js';
import type { Output } from '../core/output.js';
import { connect, withSpinner } from '../core/session.js';
import { deliverAudio } from '../core/audio-out.js';
import { explained, withQuotaArithmetic } from '../core/api-errors.js';
import { retryAfter429 } from '../core/retry.js';
import { assertOutput, examples, flagsOf, readInputFile, readStdin } from '../core/util.js';
import { SAMPLE_RATES, type SampleRateHz } from '../../shared/constants.js';
import { describeCommand } from '../command-groups.js';

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

/** `voxctl tts say`: synthesise one text. */
export function registerTts(program: Command, ctx: HandlerContext): void {
  const tts = program.command('tts').description(describeCommand('tts'));
  examples(
    tts
      .command('say')
      .argument('[text]', "text to speak; '-' or nothing with piped stdin reads stdin")
      .option('-f, --file <file>', 'read the text from a UTF-8 file')
      .option('-s, --speaker <id>', 'speaker id (default: config `speaker`)')
      .option('-o, --out <file>', "save the WAV to this file ('-': stdout, when it is not a terminal)")
      .option('--force', 'overwrite an existing output file')
      .option('--play', 'play the audio as well as saving it')
      .addOption(new Option('--sample-rate <hz>', 'resample the output').choices(SAMPLE_RATES.map(String)))
      .description('Synthesise speech; plays it on a terminal, writes the WAV to stdout when piped'),
    [
      'voxctl tts say "Hello there"',
      'voxctl tts say "Hello there" -o hello.wav --speaker spk_en-gb-scotland_003',
      'voxctl tts say hi | aplay',
      'cat script.txt | voxctl tts say - -o script.wav --sample-rate 16000',
    ],
  ).action(async (text: string | undefined, _o, cmd: Command) => {
    const flags = flagsOf<{ file?: string; speaker?: string; out?: string; force?: boolean; play?: boolean; sampleRate?: string }>(cmd);
    if (text !== undefined && flags.file) throw usageError('Give the text as an argument or with --file, not both');
    let input: string;
    if (flags.file) input = (await readInputFile(flags.file)).toString('utf8');
    else if (text === '-' || (text === undefined && !ctx.stdin.isTTY)) input = await readStdin(ctx);
    else input = text ?? '';
    if (text === undefined && input.trim() === '') throw usageError('No text given', 'voxctl tts say "Hello" (or pipe text in, or --file)');
    if (flags.out) assertOutput(ctx, flags.out, { force: flags.force, json: flags.json, what: 'audio' });
    const { client, out } = await connect(ctx, flags, { announce: true });
    const synthesize = (speaker: string) =>
      explained({ speakerId: speaker, text: input }, () =>
        withQuotaArithmetic(client.usage, [...input].length, () =>
          withSpinner(out, 'Synthesising', () =>
            client.synthesize({
              speaker_id: speaker,
              text: input,
              ...(flags.sampleRate ? { sample_rate: Number(flags.sampleRate) as SampleRateHz } : {}),
            }),
          ),
        ),
      );
    let chosen = await chooseSpeaker(ctx, client, out, flags.speaker);
    let result: Awaited<ReturnType<typeof synthesize>>;
    try {
      result = await synthesize(chosen.id);
    } catch (e) {
      // A remembered first speaker the catalogue lost: ask the catalogue again, once.
      if (!(chosen.remembered && e instanceof ApiRequestError && e.status === 404)) throw e;
      chosen = await chooseSpeaker(ctx, client, out, undefined, { forget: true });
      result = await synthesize(chosen.id);
    }
    const speaker = chosen.id;
    const wav = await retryAfter429(ctx, out, () => client.downloadAudio(result.audio_url));
    await deliverAudio(ctx, out, wav, { outFile: flags.out, force: flags.force, play: flags.play, name: 'speech' });
    if (out.json) out.printJson(result);
    else out.info(`${result.duration_seconds.toFixed(3)} s of audio, ${result.characters_used} characters used (speaker ${speaker}).`);
  });
}
