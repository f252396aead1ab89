/**
 * Turns an uploaded archive into a corpus (DESIGN §10.1-10.3), all or nothing. The archive is extracted
 * into the upload's own folder under `{dataDir}/tmp/corpora` (a tar as it is received, `receive.ts`), its
 * layout and every manifest line checked, every audio file decoded on the decoding pool's threads (most
 * while the archive is still arriving, `decodes.ts`) and moved into the blob store under names derived from
 * a `corpus_uploads` row committed first,
 * made durable together once all are written; then the corpus, its audio rows and its utterances are
 * inserted, and the upload row deleted, in one transaction. A rejected upload removes its blobs and row; a
 * killed one is cleaned at the next start (`recovery.ts`). The folder is always removed.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../clock.js';
import type { Db } from '../../storage/db.js';
import type { AudioBlobStore } from '../../storage/blobs/index.js';
import type { AudioRow } from '../audio/index.js';
import { deleteCorpusUpload, insertCorpus, insertCorpusUpload, type CorpusRow, type CorpusUtteranceRow } from './repository.js';
import { CORPUS_LIMITS } from '../../../shared/constants.js';
import { CORPUS_MESSAGES, folderFiles, parseCorpus, type CorpusUtterance } from '../../../shared/corpus/index.js';
import { validationFailed } from '../../../shared/errors.js';
import type { DecodePool } from '../../audio/decode-pool.js';
import { decodeAudioFiles, FileDecodeError, type FileDecodeLimits } from '../../audio/file-decode.js';
import { createUploadDecodes, type DecodeResult, type UploadDecodes } from './decodes.js';
import { roundedDuration, wavAroundPcm } from '../../audio/wav.js';
import { DEFAULT_EXTRACT_LIMITS, type ExtractLimits } from './archive.js';
import { extractReceived, type ReceivedArchive } from './receive.js';
import { corpusView } from './views.js';
import type { Corpus } from '../../../shared/schemas/corpora.js';

/** Every limit of an upload; DESIGN's by default, lowered by tests (`runtime.corpora.limits`). */
export interface CorpusLimits extends ExtractLimits {
  /** Largest archive received (413 past it). */
  archiveBytes: number;
  maxUtterances: number;
  maxAudioBytes: number;
  maxAudioSeconds: number;
}

export const DEFAULT_CORPUS_LIMITS: CorpusLimits = {
  ...DEFAULT_EXTRACT_LIMITS,
  archiveBytes: CORPUS_LIMITS.archiveBytes,
  maxUtterances: CORPUS_LIMITS.utterances,
  maxAudioBytes: CORPUS_LIMITS.audioBytes,
  maxAudioSeconds: CORPUS_LIMITS.audioSeconds,
};

/** Where uploads keep their archive and extracted files, and the limits they run under. */
export interface CorpusSettings {
  /** `{dataDir}/tmp/corpora`: one folder per upload, named `{pid}-{random}`. */
  tmpRoot: string;
  limits: CorpusLimits;
}

/** What an upload needs from the runtime. */
export interface CorpusDeps {
  db: Db;
  blobs: AudioBlobStore;
  clock: Clock;
  /** The instance writing (recorded with the upload so a peer can tell a dead writer). */
  instanceId: string;
  settings: CorpusSettings;
}

/**
 * The folder of one upload: a received zip goes to `archive`, extracted files under `files`, and `decodes`
 * turns them into WAV files under `decoded` as they come; `remove` stops the decoding and deletes it all.
 */
export interface UploadDir {
  path: string;
  archive: string;
  files: string;
  decodes: UploadDecodes;
  remove(): Promise<void>;
}

/** The per-file limits of an utterance (`recorded` calls: those of DESIGN §16.5, which are wider). */
function fileLimits(limits: CorpusLimits, calls: boolean): FileDecodeLimits {
  // A recorded call (DESIGN §16.5) runs hours where an utterance runs minutes.
  return calls
    ? { maxBytes: Math.max(limits.maxAudioBytes, CORPUS_LIMITS.callBytes), maxSeconds: Math.max(limits.maxAudioSeconds, CORPUS_LIMITS.callSeconds) }
    : { maxBytes: limits.maxAudioBytes, maxSeconds: limits.maxAudioSeconds };
}

/**
 * Creates a fresh upload folder (its name starts with this process's pid, for the start-up clean-up) whose
 * files are decoded on `pool` as they are extracted.
 */
export async function openUploadDir(settings: CorpusSettings, pool: DecodePool): Promise<UploadDir> {
  const path = join(settings.tmpRoot, `${process.pid}-${randomBytes(8).toString('hex')}`);
  await mkdir(path, { recursive: true, mode: 0o700 });
  const files = join(path, 'files');
  const decodes = createUploadDecodes(pool, { filesDir: files, outDir: join(path, 'decoded'), early: fileLimits(settings.limits, false) });
  return {
    path,
    archive: join(path, 'archive'),
    files,
    decodes,
    remove: async () => {
      await decodes.close();
      await rm(path, { recursive: true, force: true });
    },
  };
}

/** What a decoded utterance leaves behind: its blob and the numbers its rows record. */
interface StoredAudio {
  bytes: number;
  sampleRate: number;
  durationSeconds: number;
}

/** Name of the blob of utterance `index` of an upload (also its audio id + `.wav`). */
export const uploadBlobName = (prefix: string, index: number): string => `${prefix}${index}.wav`;

/** Blob writes kept in flight while the next files' outcomes are awaited. */
const PUTS_IN_FLIGHT = 4;

/** Files asked of the upload's decoding ahead of the one stored next. */
const ASKED_AHEAD = 64;

/** Files per ffmpeg run (M4A): it pays its start-up once per batch (see audio/file-decode.ts). */
const FFMPEG_BATCH = 16;

/**
 * Decodes every utterance's file and stores it as WAV, in manifest order: files are asked of the upload's
 * decoding a window ahead (those decoded while the archive arrived are ready, the rest queue on the
 * pool), each decoded WAV file is moved into the blob store as its turn comes, and runs of files only
 * ffmpeg reads go to one ffmpeg run each. The first refusal in manifest order stops the decoding still to
 * do and is thrown once the writes in flight end.
 */
async function decodeAll(
  deps: CorpusDeps,
  o: { dir: UploadDir; root: string; prefix: string; utterances: readonly CorpusUtterance[]; calls: boolean; signal?: AbortSignal },
): Promise<StoredAudio[]> {
  const limits = fileLimits(deps.settings.limits, o.calls);
  const n = o.utterances.length;
  const out: StoredAudio[] = new Array(n);
  const stop = new AbortController();
  const signal = o.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal;
  const failures = new Map<number, unknown>();
  const writing = new Set<Promise<void>>();
  const refuse = (i: number, err: FileDecodeError) => failures.set(i, decodeMessage(err, o.utterances[i]!.audio_path.slice(o.root.length), o.calls));
  const store = async (i: number, write: (name: string) => Promise<void>, audio: StoredAudio) => {
    const put: Promise<void> = write(uploadBlobName(o.prefix, i))
      .then(() => void (out[i] = audio))
      .catch((err: unknown) => void failures.set(i, err))
      .finally(() => writing.delete(put));
    writing.add(put);
    if (writing.size >= PUTS_IN_FLIGHT) await Promise.race(writing);
  };
  // Made durable together before the corpus commits (`sync` in createCorpusFromArchive), not one by one.
  const moveIn = (file: string) => (name: string) =>
    deps.blobs.putFile ? deps.blobs.putFile(name, file, { durable: false }) : readFile(file).then((bytes) => deps.blobs.put(name, bytes, { durable: false }));
  // Files are asked for a window ahead of the one stored next: the pool stays fed, and a manifest of
  // 20,000 lines does not queue 20,000 files at once.
  const outcomes: Promise<DecodeResult>[] = [];
  const outcomeOf = (i: number): Promise<DecodeResult> => {
    for (let j = outcomes.length; j < Math.min(n, i + ASKED_AHEAD); j++) {
      const asked = o.dir.decodes.outcome(o.utterances[j]!.audio_path, limits, signal);
      // Those past a refusal are never awaited: their rejection (the stop) is expected.
      void asked.catch(() => undefined);
      outcomes.push(asked);
    }
    return outcomes[i]!;
  };
  try {
    for (let i = 0; i < n && failures.size === 0 && !o.signal?.aborted; ) {
      const { outcome, file } = await outcomeOf(i);
      if (outcome instanceof FileDecodeError) {
        refuse(i, outcome);
        break;
      }
      if (outcome !== 'ffmpeg') {
        await store(i, moveIn(file), { bytes: outcome.bytes, sampleRate: outcome.sampleRate, durationSeconds: roundedDuration(outcome.frames, outcome.sampleRate) });
        i++;
        continue;
      }
      let end = i + 1;
      while (end < n && end - i < FFMPEG_BATCH && (await outcomeOf(end)).outcome === 'ffmpeg') end++;
      const first = i;
      const scratch = join(o.dir.path, 'ffmpeg');
      await mkdir(scratch, { recursive: true });
      await decodeAudioFiles(
        o.utterances.slice(first, end).map((u) => join(o.dir.files, u.audio_path)),
        { scratch, limits, signal },
        async (k, result) => {
          if (failures.size > 0) return;
          if (result instanceof FileDecodeError) return void refuse(first + k, result);
          const wav = wavAroundPcm(result.pcm, result.sampleRate);
          await store(first + k, (name) => deps.blobs.put(name, wav, { durable: false }), {
            bytes: wav.byteLength,
            sampleRate: result.sampleRate,
            durationSeconds: roundedDuration(result.pcm.length, result.sampleRate),
          });
        },
      );
      i = end;
    }
  } finally {
    stop.abort();
    await Promise.all(writing);
  }
  o.signal?.throwIfAborted();
  if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
  return out;
}

function decodeMessage(err: FileDecodeError, path: string, call: boolean) {
  if (err.reason === 'too_long') return validationFailed(call ? CORPUS_MESSAGES.callTooLong(path) : CORPUS_MESSAGES.audioTooLong(path));
  if (err.reason === 'too_big') return validationFailed(call ? CORPUS_MESSAGES.callTooBig(path) : CORPUS_MESSAGES.audioTooBig(path));
  if (err.reason === 'needs_ffmpeg') return validationFailed(CORPUS_MESSAGES.m4aNeedsFfmpeg(path));
  return validationFailed(CORPUS_MESSAGES.corruptAudio(path));
}

/** Removes what an upload wrote to the blob store and its upload row (a failed or abandoned upload). */
export async function discardUpload(db: Db, blobs: AudioBlobStore, upload: { id: string; audio_prefix: string; planned: number }): Promise<void> {
  for (let i = 0; i < upload.planned; i++) await blobs.delete(uploadBlobName(upload.audio_prefix, i));
  await deleteCorpusUpload(db, upload.id);
}

/**
 * Builds the corpus of the archive `received` into `dir` (`receiveArchive`) for `userId` (the name already
 * checked) and returns its view. Throws DESIGN §10.3's errors with nothing stored; the caller removes `dir`.
 */
export async function createCorpusFromArchive(
  deps: CorpusDeps,
  input: { userId: string; name: string; dir: UploadDir; received: ReceivedArchive; signal?: AbortSignal },
): Promise<Corpus> {
  const { signal } = input;
  const filesDir = input.dir.files;
  const files = await extractReceived(input.received, input.dir, deps.settings.limits, signal);
  signal?.throwIfAborted();
  const parsed = await parseCorpus(files, folderFiles(filesDir), { maxUtterances: deps.settings.limits.maxUtterances });
  signal?.throwIfAborted();

  const key = randomBytes(12).toString('base64url');
  const corpusId = `cor_${key}`;
  const upload = { id: corpusId, audio_prefix: `aud_c${key}_`, planned: parsed.utterances.length };
  // Recorded (committed) before the first blob: whatever happens next, the blobs can be found again.
  await insertCorpusUpload(deps.db, {
    ...upload,
    owner: deps.instanceId,
    host: hostname(),
    pid: process.pid,
    created_at: deps.clock.now().toISOString(),
  });
  try {
    const stored = await decodeAll(deps, {
      dir: input.dir,
      root: parsed.root,
      prefix: upload.audio_prefix,
      utterances: parsed.utterances,
      calls: parsed.layout === 'stm',
      signal,
    });
    signal?.throwIfAborted();
    const now = deps.clock.now().toISOString();
    const audio: AudioRow[] = stored.map((s, i) => ({
      id: `${upload.audio_prefix}${i}`,
      user_id: input.userId,
      kind: 'upload',
      path: uploadBlobName(upload.audio_prefix, i),
      format: 'wav',
      bytes: s.bytes,
      duration_seconds: s.durationSeconds,
      sample_rate: s.sampleRate,
      created_at: now,
    }));
    const utterances: CorpusUtteranceRow[] = parsed.utterances.map((u, i) => ({
      corpus_id: corpusId,
      idx: i,
      utterance_id: u.utterance_id,
      speaker: u.speaker,
      reference: u.reference,
      duration_seconds: stored[i]!.durationSeconds,
      metadata: JSON.stringify(u.metadata),
      audio_id: audio[i]!.id,
      sample_rate: stored[i]!.sampleRate,
      segments: u.segments ? JSON.stringify(u.segments) : null,
    }));
    const total = stored.reduce((sum, s) => sum + s.durationSeconds, 0);
    const row: CorpusRow = {
      id: corpusId,
      user_id: input.userId,
      name: input.name,
      layout: parsed.layout,
      utterance_count: utterances.length,
      speaker_count: new Set(parsed.utterances.map((u) => u.speaker).filter((s) => s !== null)).size,
      total_duration_seconds: Math.round(total * 1000) / 1000,
      metadata_fields: JSON.stringify(parsed.metadata_fields),
      created_at: now,
    };
    // Nothing committed may name a blob a crash could still lose.
    await deps.blobs.sync?.(audio.map((a) => a.path));
    signal?.throwIfAborted();
    await deps.db.transaction(async () => {
      await insertCorpus(deps.db, row, audio, utterances);
      await deleteCorpusUpload(deps.db, corpusId);
    });
    return corpusView(row);
  } catch (err) {
    await discardUpload(deps.db, deps.blobs, upload).catch(() => {
      // The row stays: the next start (or a peer) removes the blobs it names.
    });
    throw err;
  }
}
