import type { Command } from '../core/commander.js';
import { ApiRequestError } from '../../client/errors.js';
import { Option } from '../core/commander.js';
import type { HandlerContext } from '../core/context.js';
import { usageError } from '../core/errors.js';
import { connect, withSpinner } from '../core/session.js';
import { deliverAudio } from '../core/audio-out.js';
import { chooseSpeaker } from '../core/speaker-choice.js';
import { explained, withQuotaArithmetic } from '../core/api-errors.js';
import { retryAfter429 } from '../core/retry.js';
import { assertOutput, examples, flagsOf, readInputFile, readStdin } from '../core/util.js';
import { SAMPLE_RATES } from '../../shared/constants.js';
import { sayOptions, type SayFlags } from './options.js';
import { describeCommand } from '../command-groups.js';

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
    const flags = flagsOf<SayFlags>(cmd);
    const options = sayOptions(text, flags, ctx.stdin.isTTY);
    const source = options.text;
    const input = source.from === 'file' ? (await readInputFile(source.file)).toString('utf8') : source.from === 'stdin' ? await readStdin(ctx) : source.text;
    if (options.textRequired && input.trim() === '') throw usageError('No text given', 'voxctl tts say "Hello" (or pipe text in, or --file)');
    if (options.out) assertOutput(ctx, options.out, { force: options.force, json: flags.json, what: 'audio' });
    const { client, out } = await connect(ctx, flags, { announce: true });
    const synthesize = (speaker: string) =>
      explained({ speakerId: speaker, text: input }, () =>
        withQuotaArithmetic(client.usage, [...input].length, () =>
          withSpinner(out, 'Synthesising', () =>
            client.synthesize({
              speaker_id: speaker,
              text: input,
              ...(options.sampleRate ? { sample_rate: options.sampleRate } : {}),
            }),
          ),
        ),
      );
    let chosen = await chooseSpeaker(ctx, client, out, options.speaker);
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
    await deliverAudio(ctx, out, wav, { outFile: options.out, force: options.force, play: options.play, name: 'speech' });
    if (out.json) out.printJson(result);
    else out.info(`${result.duration_seconds.toFixed(3)} s of audio, ${result.characters_used} characters used (speaker ${speaker}).`);
  });
}
