/** The datasets feature as its routes use it: CSV datasets created, listed and shown (DESIGN §4.10). */
import type { Db } from '../../storage/db.js';
import type { Clock } from '../../clock.js';
import type { Dataset, DatasetCreated, DatasetPage } from '../../../shared/schemas/datasets.js';
import type { AudioLinkFor } from '../audio/index.js';
import { speakerIds } from '../synthesis/index.js';
import type { CsvDatasetRow } from './csv-dataset.js';
import { createDataset, datasetPage, datasetView, parseDatasetLanguage, parseDatasetName, parseGenerateAudio } from './datasets.js';

/** The text fields of an upload, as the multipart form gave them. */
export interface DatasetFields {
  name?: string;
  generate_audio?: string;
  language?: string;
}

/** What the datasets routes call. */
export interface DatasetsFeature {
  /** The catalogue's speaker ids, to check a CSV's `speaker_id` cells while it streams. */
  speakerIds(): Promise<ReadonlySet<string>>;
  /**
   * Checks the form's fields (name, generate_audio, language, in that order) and creates the dataset of
   * the parsed rows; a dataset with audio queues its job and wakes the job runner.
   */
  create(userId: string, fields: DatasetFields, rows: () => CsvDatasetRow[]): Promise<DatasetCreated>;
  page(userId: string, paging: { limit: number; offset: number }): Promise<DatasetPage>;
  /** One dataset of `userId` with its rows' audio links; `dataset_not_found` otherwise. */
  view(userId: string, id: string, link: AudioLinkFor): Promise<Dataset>;
}

/** Binds the dataset rules to the database, the clock and the job runner (called once, by the composition root). */
export function createDatasetsFeature(deps: { db: Db; clock: Clock; wakeJobs: () => void }): DatasetsFeature {
  const { db, clock } = deps;
  return {
    speakerIds: () => speakerIds(db),
    async create(userId, fields, rows) {
      const name = parseDatasetName(fields.name);
      const generateAudio = parseGenerateAudio(fields.generate_audio);
      const language = await parseDatasetLanguage(db, fields.language);
      // The rows last: a form whose fields are wrong says so before its file is judged (the order scripts know).
      const created = await createDataset({ db, now: clock.now() }, { userId, name, generateAudio, rows: rows(), language });
      if (created.job_id) deps.wakeJobs();
      return created;
    },
    page: (userId, paging) => datasetPage(db, { userId, ...paging }),
    view: (userId, id, link) => datasetView(db, { userId, id, urlFor: link }),
  };
}
