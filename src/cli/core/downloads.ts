import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VoxClient } from '../../client/index.js';
import type { HandlerContext } from './context.js';
import { CliError, usageError } from './errors.js';
import type { Output } from './output.js';
import { retryAfter429 } from './retry.js';
import { csvRecord } from '../../shared/csv-cells.js';

/** One entry of a download: a batch result or a dataset row, with its global index. */
export interface DownloadItem {
  index: number;
  speaker_id: string;
  /** Known for datasets and for `submit --download`; empty for `batch download`. */
  text: string;
  status: string;
  audio_url?: string;
  duration_seconds?: number | null;
}

/** Options of `downloadAll`. */
export interface DownloadOptions {
  /** Overwrite existing files (and the manifest). */
  force?: boolean;
  /** Keep files that are already complete WAVs; fetch the rest (resume after an interruption). */
  skipExisting?: boolean;
}

/** What a download did: files fetched, files kept, and the manifest path. */
export interface DownloadSummary {
  directory: string;
  saved: number;
  skipped: number;
  manifest: string;
}

/** The columns of `manifest.csv` (DESIGN §7). */
export const MANIFEST_COLUMNS = ['index', 'speaker_id', 'text', 'file', 'duration_seconds', 'status'] as const;

/** `{index}.wav` zero-padded to the width of the largest index: `000.wav` … `149.wav` for 150 items. */
export function fileNameFor(index: number, largestIndex: number): string {
  return `${String(index).padStart(String(largestIndex).length, '0')}.wav`;
}

/**
 * True when `file` is a whole RIFF/WAVE file: its header's RIFF size matches the file's size. An
 * interrupted write never leaves such a file under the final name (files are renamed into place),
 * but a copy truncated by other means is fetched again.
 */
export function isCompleteWav(file: string): boolean {
  try {
    const size = statSync(file).size;
    if (size < 44) return false;
    const head = readFileSync(file).subarray(0, 12);
    return head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WAVE' && head.readUInt32LE(4) + 8 === size;
  } catch {
    return false;
  }
}

/**
 * Saves every successful item as a zero-padded WAV in `dir` and writes `manifest.csv` for all items.
 * Existing files are refused before anything is fetched unless `force` or `skipExisting`; each file is
 * written to `.part` and renamed, so an interrupted run leaves only whole files and `--skip-existing`
 * resumes it. A 429 on a signed URL is waited out (Retry-After, bounded).
 */
export async function downloadAll(
  ctx: HandlerContext,
  client: VoxClient,
  out: Output,
  items: readonly DownloadItem[],
  dir: string,
  options: DownloadOptions = {},
): Promise<DownloadSummary> {
  const largest = Math.max(0, ...items.map((i) => i.index));
  const manifestPath = join(dir, 'manifest.csv');
  const planned = items.map((item) => ({ item, file: item.status === 'success' && item.audio_url ? fileNameFor(item.index, largest) : '' }));
  if (!options.force && !options.skipExisting) {
    const clashes = planned.filter((p) => p.file && existsSync(join(dir, p.file))).map((p) => p.file);
    if (existsSync(manifestPath)) clashes.push('manifest.csv');
    if (clashes.length > 0) {
      throw usageError(
        `${dir} already holds ${clashes.length} of the files to write (${clashes.slice(0, 3).join(', ')}${clashes.length > 3 ? ', …' : ''})`,
        'pass --skip-existing to keep complete files and fetch the rest (resume), or --force to overwrite',
      );
    }
  }
  mkdirSync(dir, { recursive: true });
  let saved = 0;
  let skipped = 0;
  const toFetch = planned.filter((p) => p.file);
  for (const [n, { item, file }] of toFetch.entries()) {
    const path = join(dir, file);
    if (options.skipExisting && !options.force && isCompleteWav(path)) {
      skipped++;
      continue;
    }
    const wav = await retryAfter429(ctx, out, () => client.downloadAudio(item.audio_url!));
    try {
      writeFileSync(`${path}.part`, wav);
      renameSync(`${path}.part`, path);
    } catch (e) {
      throw new CliError(`Cannot write ${path}: ${(e as Error).message}`, { cause: e });
    }
    saved++;
    if (out.stderrTTY && !out.quiet && !out.json) out.stderr.write(`\r\x1b[2KDownloading ${n + 1}/${toFetch.length}`);
  }
  if (out.stderrTTY && !out.quiet && !out.json && saved > 0) out.stderr.write('\r\x1b[2K');
  const { stringify } = await import('csv-stringify/sync');
  // A text a spreadsheet would run as a formula is written behind a `'` (DESIGN §17.6).
  const rows = planned.map(({ item, file }) => csvRecord([item.index, item.speaker_id, item.text, file, item.duration_seconds ?? '', item.status]));
  writeFileSync(`${manifestPath}.part`, stringify(rows, { header: true, columns: [...MANIFEST_COLUMNS] }));
  renameSync(`${manifestPath}.part`, manifestPath);
  return { directory: dir, saved, skipped, manifest: manifestPath };
}
