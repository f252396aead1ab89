import { Type, type Static } from '@sinclair/typebox';
import { Page, PagingQuery, Timestamp } from './common.js';
import { JOB_STATUSES, SAMPLE_RATES } from '../constants.js';

export const SampleRate = Type.Union(SAMPLE_RATES.map((r) => Type.Literal(r)));

// Text length (MAX_TEXT_CODE_POINTS) and emptiness are checked in the service, with the spec's exact messages.
export const SynthesizeRequest = Type.Object({
  speaker_id: Type.String(),
  text: Type.String(),
  sample_rate: Type.Optional(SampleRate),
});
export type SynthesizeRequest = Static<typeof SynthesizeRequest>;

export const SynthesizeResponse = Type.Object({
  audio_url: Type.String(),
  duration_seconds: Type.Number(),
  characters_used: Type.Integer(),
});
export type SynthesizeResponse = Static<typeof SynthesizeResponse>;

export const BatchItem = Type.Object({ speaker_id: Type.String(), text: Type.String() });
export type BatchItem = Static<typeof BatchItem>;
// The 0 / >MAX_BATCH_ITEMS item counts are checked in the service to give the spec's messages.
export const BatchRequest = Type.Object({ items: Type.Array(BatchItem), sample_rate: Type.Optional(SampleRate) });
export type BatchRequest = Static<typeof BatchRequest>;

export const JobStatus = Type.Union(JOB_STATUSES.map((s) => Type.Literal(s)));
export type JobStatus = Static<typeof JobStatus>;

export const BatchCreated = Type.Object({
  job_id: Type.String(),
  status: JobStatus,
  total_items: Type.Integer(),
  created_at: Timestamp,
});
export type BatchCreated = Static<typeof BatchCreated>;

export const JobResultItem = Type.Object({
  index: Type.Integer(),
  speaker_id: Type.String(),
  status: Type.Union([Type.Literal('success'), Type.Literal('failed')]),
  audio_url: Type.Optional(Type.String()),
  duration_seconds: Type.Optional(Type.Number()),
  error: Type.Optional(Type.String()),
});
export type JobResultItem = Static<typeof JobResultItem>;

/** GET /v1/jobs/{job_id}; `results` only when completed or partial (spec rule 1). */
export const Job = Type.Object({
  job_id: Type.String(),
  status: JobStatus,
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  total_items: Type.Integer(),
  completed_items: Type.Integer(),
  failed_items: Type.Integer(),
  created_at: Timestamp,
  started_at: Type.Optional(Timestamp),
  completed_at: Type.Optional(Timestamp),
  results: Type.Optional(Type.Array(JobResultItem)),
});
export type Job = Static<typeof Job>;

export const JobSummary = Type.Object({
  job_id: Type.String(),
  status: JobStatus,
  progress: Type.Integer(),
  total_items: Type.Integer(),
  created_at: Timestamp,
});
export type JobSummary = Static<typeof JobSummary>;
export const JobPage = Page(JobSummary);
export type JobPage = Static<typeof JobPage>;
export const JobQuery = Type.Composite([Type.Object({ status: Type.Optional(JobStatus) }), PagingQuery]);
export type JobQuery = Static<typeof JobQuery>;

/** POST /v1/audio (upload) response. */
export const AudioUploaded = Type.Object({
  audio_id: Type.String(),
  audio_url: Type.String(),
  duration_seconds: Type.Number(),
});
export type AudioUploaded = Static<typeof AudioUploaded>;
