// `voxctl eval run --corpus … --dry-run` (DESIGN §15.8): what an evaluation of recorded speech would cost
// before it runs — recordings, audio minutes and dollars per provider — creating nothing: an uploaded
// corpus is read from its view (its decoded duration), a folder on this machine from its manifests and its
// audio headers, without uploading it.
import { join } from 'node:path';
import type { VoxClient } from '../../client/index.js';
import { EVALUATION_LIMITS } from '../../shared/constants.js';
import type { ParsedCorpus } from '../../shared/corpus/index.js';
import type { CreateEvaluationRequest } from '../../shared/schemas/evaluations.js';
import { headerSeconds } from './audio-length.js';
import type { Output } from '../core/output.js';
import type { ProviderView } from '../core/stt-providers.js';
import { CHARACTERS_PER_SECOND, costOf, costText, lengthFactor, printProviderRows, probeClips, providerRows, type DryRunProvider } from './dry-run.js';

/** What `eval run --corpus … --dry-run` prints (`--json`: this object). */
export interface CorpusDryRun {
  dry_run: true;
  /** The corpus evaluated: an uploaded one (`corpus_id`) or a folder of this machine (`path`). */
  corpus: { corpus_id: string | null; path: string | null; name: string; layout: string; utterances: number; speakers: number };
  /** Recordings the evaluation hears: the corpus's, or the `--sample` size when smaller. */
  recordings: number;
  conditions: string[];
  providers: DryRunProvider[];
  utterances: number;
  /** Recorded speech is not synthesised: a corpus evaluation charges no characters (DESIGN §10.4). */
  characters: 0;
  audio_minutes: number;
  /** How the audio minutes were found: measured, or in part estimated (said in words). */
  audio_minutes_estimate: string;
  cost_usd: number | null;
  unpriced_providers: string[];
  within_limits: boolean;
}

/** A corpus as the dry run needs it: its counts and the seconds of its audio, with how they were found. */
interface CorpusSize {
  corpus: CorpusDryRun['corpus'];
  seconds: number;
  how: string;
}

/** An uploaded corpus: the service decoded every file, so its duration is exact. */
async function uploadedSize(client: VoxClient, id: string): Promise<CorpusSize> {
  const c = await client.getCorpus(id);
  const corpus = { corpus_id: c.corpus_id, path: null, name: c.name, layout: c.layout, utterances: c.utterances, speakers: c.speakers };
  return { corpus, seconds: c.total_duration_seconds, how: 'the decoded length of its recordings' };
}

/**
 * A folder of this machine: the lengths WAV and FLAC headers declare; MP3, OGG and M4A state none, so each
 * is estimated from its transcript at the synthesised-speech rate, and the text says how many were.
 */
async function folderSize(path: string, name: string, parsed: ParsedCorpus): Promise<CorpusSize> {
  let seconds = 0;
  let estimated = 0;
  for (const u of parsed.utterances) {
    const exact = await headerSeconds(join(path, u.audio_path)).catch(() => undefined);
    if (exact === undefined) estimated++;
    seconds += exact ?? [...u.reference].length / CHARACTERS_PER_SECOND;
  }
  const speakers = new Set(parsed.utterances.map((u) => u.speaker).filter((s) => s !== null)).size;
  const n = parsed.utterances.length;
  const how =
    estimated === 0
      ? 'read from the headers of its audio files'
      : `read from the headers of ${n - estimated} of ${n} audio files; the other ${estimated} (MP3, OGG or M4A state no length) estimated at ${CHARACTERS_PER_SECOND} characters per second of their transcripts`;
  return { corpus: { corpus_id: null, path, name, layout: parsed.layout, utterances: n, speakers }, seconds, how };
}

/**
 * Works out the dry run of a corpus evaluation: `body.corpus_id` names an uploaded corpus, unless `folder`
 * (a path checked and parsed by `prepareUpload`) is given. A `--sample` smaller than the corpus is priced
 * at its share of the corpus's length: which recordings it holds, the service draws from the seed.
 */
export async function corpusDryRun(
  client: VoxClient,
  input: { body: Omit<CreateEvaluationRequest, 'providers'>; providers: readonly string[]; known: readonly ProviderView[]; folder?: { path: string; name: string; parsed: ParsedCorpus } },
): Promise<CorpusDryRun> {
  const { body, providers, known, folder } = input;
  const size = folder ? await folderSize(folder.path, folder.name, folder.parsed) : await uploadedSize(client, body.corpus_id!);
  const all = size.corpus.utterances;
  const recordings = Math.min(all, body.sample?.size ?? all);
  const share = all === 0 ? 0 : recordings / all;
  const conditions = body.conditions ?? ['clean'];
  const { clips, minutes: clipMinutes } = probeClips(body);
  const minutes = (size.seconds * share * lengthFactor(conditions)) / 60 + clipMinutes;
  const perProvider = recordings * conditions.length + clips;
  const rows = providerRows(providers, known, { utterances: perProvider, minutes });
  const sampled = recordings < all ? `; the sample's share (${recordings} of ${all} recordings) of the corpus's ${Math.round(size.seconds / 6) / 10} minutes` : '';
  return {
    dry_run: true,
    corpus: size.corpus,
    recordings,
    conditions,
    providers: rows,
    utterances: perProvider * providers.length,
    characters: 0,
    audio_minutes: Math.round(minutes * providers.length * 100) / 100,
    audio_minutes_estimate: `${size.how}${sampled}`,
    ...costOf(rows),
    within_limits: perProvider * providers.length <= EVALUATION_LIMITS.utterances,
  };
}

/** Prints a corpus dry run: the object under --json, else a few lines and the per-provider table. */
export async function printCorpusDryRun(out: Output, d: CorpusDryRun): Promise<void> {
  if (out.json) return out.printJson(d);
  const n = (x: number) => x.toLocaleString('en-US');
  const c = d.corpus;
  out.fields([
    ['corpus', c.corpus_id ? `${c.name} (${c.corpus_id})` : `${c.path} (a folder, not uploaded)`],
    ['layout', `${c.layout}, ${n(c.utterances)} recordings, ${n(c.speakers)} named speakers`],
    ['utterances', `${n(d.utterances)} = ${n(d.recordings)} recordings × ${d.conditions.length} conditions × ${d.providers.length} providers`],
    ['characters', '0 (recorded speech is not synthesised)'],
    ['audio minutes', `${d.audio_minutes} sent to the providers, ${d.audio_minutes_estimate}`],
    ['cost', costText(d)],
  ]);
  await printProviderRows(out, d);
}
