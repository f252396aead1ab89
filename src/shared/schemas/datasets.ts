import { Type, type Static } from '@sinclair/typebox';
import { Page, Timestamp } from './common.js';

export const DatasetRow = Type.Object({
  index: Type.Integer(),
  text: Type.String(),
  speaker_id: Type.String(),
  audio_url: Type.Optional(Type.String()),
});
export type DatasetRow = Static<typeof DatasetRow>;

export const DatasetSummary = Type.Object({
  dataset_id: Type.String(),
  name: Type.String(),
  row_count: Type.Integer(),
  created_at: Timestamp,
});
export type DatasetSummary = Static<typeof DatasetSummary>;

/** POST /v1/datasets/upload → 201; `job_id` only with generate_audio. */
export const DatasetCreated = Type.Composite([DatasetSummary, Type.Object({ job_id: Type.Optional(Type.String()) })]);
export type DatasetCreated = Static<typeof DatasetCreated>;

export const Dataset = Type.Composite([
  DatasetSummary,
  Type.Object({ job_id: Type.Optional(Type.String()), rows: Type.Array(DatasetRow) }),
]);
export type Dataset = Static<typeof Dataset>;

export const DatasetPage = Page(DatasetSummary);
export type DatasetPage = Static<typeof DatasetPage>;
