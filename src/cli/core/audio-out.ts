import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HandlerContext } from './context.js';
import type { Output } from './output.js';
import { usageError } from './errors.js';
import { STDOUT_FILE, writeOutput, writeOutputFile } from './util.js';

/** Where audio goes: a file (-o), the player (terminal), or stdout (piped). */
export interface AudioDestination {
  outFile?: string;
  force?: boolean;
  /** Play as well as saving. */
  play?: boolean;
  /** Base name for a temp file when nothing can play it. */
  name: string;
}

/**
 * Delivers WAV bytes (DESIGN §7): never to a terminal. With -o: the file (no clobber without --force) —
 * `-o -` is stdout when it is not a terminal —
 * plus playback with --play. Without -o: played on a terminal (saved to a temp file when no player
 * exists), written to stdout when piped (unless --json, whose output is the API object).
 */
export async function deliverAudio(ctx: HandlerContext, out: Output, wav: Uint8Array, dest: AudioDestination): Promise<string | undefined> {
  const temp = () => {
    const file = join(mkdtempSync(join(tmpdir(), 'voxctl-')), `${dest.name}.wav`);
    writeFileSync(file, wav);
    return file;
  };
  if (dest.outFile === STDOUT_FILE) {
    // Checked before the synthesis too (assertOutput); a terminal never gets the bytes.
    if (ctx.stdout.isTTY) throw usageError('Refusing to write audio to a terminal (-o -)', 'redirect or pipe stdout (`> file.wav`, `| aplay`), or give -o FILE');
    await writeOutput(ctx, STDOUT_FILE, wav, dest.force);
    if (dest.play) await playOrTell(ctx, out, temp());
    return undefined;
  }
  if (dest.outFile) {
    writeOutputFile(dest.outFile, wav, dest.force);
    out.info(`Saved ${dest.outFile}`);
    if (dest.play) await playOrTell(ctx, out, dest.outFile);
    return dest.outFile;
  }
  if (ctx.stdout.isTTY) {
    const file = temp();
    await playOrTell(ctx, out, file);
    return file;
  }
  if (out.json) return undefined;
  await new Promise<void>((resolve, reject) => ctx.stdout.write(wav, (e) => (e ? reject(e) : resolve())));
  return undefined;
}

async function playOrTell(ctx: HandlerContext, out: Output, file: string): Promise<void> {
  let played: boolean;
  try {
    played = await ctx.play(file);
  } catch (e) {
    // A player that exists but fails (no sound device on a server, say) is not worth failing the command.
    out.warn(`could not play the audio (${e instanceof Error ? e.message : String(e)}); it is saved in ${file}`);
    return;
  }
  if (!played) out.info(`No audio player found (install aplay, sox 'play', mpg123 or mplayer); the audio is saved in ${file}`);
}
