import { randomBytes } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import { getDataset, insertDataset, listDatasetRows, listDatasets, type DatasetRecord } from './repository.js';
import type { Dataset, DatasetCreated, DatasetPage, DatasetSummary } from '../../../shared/schemas/datasets.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';
import { countSpeakers, listSpeakers, speakerValueCounts } from '../synthesis/index.js';
import { assertActiveSubscription } from '../accounts/index.js';
import { enqueueJob, newJobId } from '../jobs/index.js';
import type { CsvDatasetRow } from './csv-dataset.js';
import { codePoints } from '../../../shared/text-rules.js';
import { DATASET_LIMITS } from '../../../shared/constants.js';

/** Longest dataset name, in characters. */
export const MAX_DATASET_NAME = DATASET_LIMITS.nameCodePoints;

/** A fresh dataset id (`dst_` + 20 url-safe chars). */
export const newDatasetId = (): string => `dst_${randomBytes(15).toString('base64url')}`;

/** `name` must be 1..200 characters after trimming; returns the trimmed name. */
export function parseDatasetName(value: string | undefined): string {
  if (value === undefined) throw validationFailed("Missing required field 'name'");
  const name = value.trim();
  const length = codePoints(name);
  if (length < 1 || length > MAX_DATASET_NAME) throw validationFailed(`name must be 1 to ${MAX_DATASET_NAME} characters`);
  return name;
}

/** `generate_audio`: true|false|1|0 (absent = false); anything else is a 400. */
export function parseGenerateAudio(value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw validationFailed('generate_audio must be one of true, false, 1, 0');
}

/** The native language random dataset speakers are drawn from when the upload names none (DESIGN §4.10). */
export const DEFAULT_DATASET_LANGUAGE = 'English';

/**
 * The upload's optional `language` part as the catalogue spells it (case-insensitive match on the
 * speakers' `native_language`; default English). A language no speaker has is a 400.
 */
export async function parseDatasetLanguage(db: Db, value: string | undefined): Promise<string> {
  const wanted = (value ?? DEFAULT_DATASET_LANGUAGE).trim();
  const match = (await speakerValueCounts(db, 'native_language')).find((v) => v.value.toLowerCase() === wanted.toLowerCase());
  if (!match || wanted === '') throw validationFailed(`Unknown language: ${value ?? DEFAULT_DATASET_LANGUAGE}`);
  return match.value;
}

/** Draws random speakers among those whose native language is `language` (English text gets an English voice). */
async function speakerDrawer(db: Db, language: string, random: () => number = Math.random): Promise<() => string> {
  const ids = (await listSpeakers(db, { native_language: language }, { limit: await countSpeakers(db), offset: 0 })).rows.map((r) => r.id);
  return () => {
    const id = ids[Math.min(ids.length - 1, Math.floor(random() * ids.length))];
    if (id === undefined) throw new Error(`No speaker has native language ${language}`);
    return id;
  };
}

const toSummary = (ds: DatasetRecord): DatasetSummary => ({
  dataset_id: ds.id,
  name: ds.name,
  row_count: ds.row_count,
  created_at: ds.created_at,
});

/**
 * Stores a validated dataset in one transaction (all rows or none). Empty speaker cells get a random
 * speaker of the upload's language (`parseDatasetLanguage`), recorded on the row. With `generateAudio` the rows' characters are reserved and a
 * `pending` job covers every row, in the same transaction (429 or 403 store nothing).
 */
export async function createDataset(
  deps: { db: Db; now: Date; random?: () => number },
  input: { userId: string; name: string; generateAudio: boolean; rows: CsvDatasetRow[]; language?: string },
): Promise<DatasetCreated> {
  const { db, now } = deps;
  if (input.generateAudio) await assertActiveSubscription(db, input.userId);
  // The catalogue is read only when a row leaves its speaker to chance.
  const draw = input.rows.some((r) => r.speakerId === undefined)
    ? await speakerDrawer(db, input.language ?? DEFAULT_DATASET_LANGUAGE, deps.random)
    : undefined;
  const rows = input.rows.map((r, idx) => ({
    idx,
    text: r.text,
    speaker_id: r.speakerId ?? draw!(),
  }));
  // Ids are drawn before the transaction: its body may run again (PostgreSQL retries).
  const datasetId = newDatasetId();
  const jobId = newJobId();
  return db.transaction(async () => {
    const job = input.generateAudio
      ? await enqueueJob(db, {
          id: jobId,
          userId: input.userId,
          items: rows.map((r) => ({ speakerId: r.speaker_id, text: r.text })),
          sampleRate: null,
          now,
        })
      : undefined;
    const ds: DatasetRecord = {
      id: datasetId,
      user_id: input.userId,
      name: input.name,
      row_count: rows.length,
      job_id: job?.id ?? null,
      created_at: now.toISOString(),
    };
    await insertDataset(db, ds, rows);
    return job ? { ...toSummary(ds), job_id: job.id } : toSummary(ds);
  });
}

/** A page of the user's datasets, newest first. */
export async function datasetPage(db: Db, q: { userId: string; limit: number; offset: number }): Promise<DatasetPage> {
  const { rows, total } = await listDatasets(db, q);
  return { items: rows.map(toSummary), total, limit: q.limit, offset: q.offset, has_more: q.offset + rows.length < total };
}

/** One dataset with its rows; a row has `audio_url` once its job item succeeded. */
export async function datasetView(db: Db, q: { userId: string; id: string; urlFor: (audioId: string) => string }): Promise<Dataset> {
  const ds = await getDataset(db, q.id, q.userId);
  if (!ds) throw new DomainError('dataset_not_found', 'Dataset not found');
  const view: Dataset = {
    ...toSummary(ds),
    rows: (await listDatasetRows(db, ds)).map((r) =>
      r.audio_id
        ? { index: r.idx, text: r.text, speaker_id: r.speaker_id, audio_url: q.urlFor(r.audio_id) }
        : { index: r.idx, text: r.text, speaker_id: r.speaker_id },
    ),
  };
  if (ds.job_id) view.job_id = ds.job_id;
  return view;
}
