import type { Db } from '../../storage/db.js';
import type { VoiceBinding } from '../../engines/tts/types.js';
import type { Speaker, SpeakerFacets, SpeakerPage } from '../../../shared/schemas/speakers.js';
import { AGE_BRACKETS } from '../../engines/tts/catalogue.js';
import {
  getSpeaker,
  listSpeakerIds,
  listSpeakers,
  SPEAKER_FILTERS,
  speakerValueCounts,
  type SpeakerFilters,
  type SpeakerRow,
} from './speakers-repository.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';

export type { SpeakerRow, SpeakerFilters };

/** The spec's gender values (matched case-insensitively). */
export const GENDERS = ['Male', 'Female', 'Non-binary'] as const;

/** The detail of a 404 for an unknown speaker (spec's exact message). */
export const SPEAKER_NOT_FOUND = 'Speaker not found';

/** A catalogue speaker with its engine binding, or undefined (synthesis, batch and datasets use this). */
export function findSpeaker(db: Db, id: string): Promise<SpeakerRow | undefined> {
  return getSpeaker(db, id);
}

/** Every catalogue speaker id, for checks that cannot wait on the database (the CSV reader's). */
export function speakerIds(db: Db): Promise<ReadonlySet<string>> {
  return listSpeakerIds(db);
}

/** The engine voice behind a speaker row. */
export function speakerBinding(row: SpeakerRow): VoiceBinding {
  const binding: VoiceBinding = { engine: row.engine, voice: row.voice, pitch: row.pitch, rate: row.rate };
  if (row.variant !== null) binding.variant = row.variant;
  return binding;
}

/** The API shape of a speaker; `sampleUrl` signs the sample's audio id (`smp_{id}`). */
export function toSpeaker(row: SpeakerRow, sampleUrl: (audioId: string) => string): Speaker {
  return {
    id: row.id,
    gender: row.gender,
    region: row.region,
    accent: row.accent,
    age_range: row.age_range,
    native_language: row.native_language,
    engine: row.engine,
    voice: row.voice,
    variant: row.variant,
    sample_audio_url: sampleUrl(`smp_${row.id}`),
  };
}

/** GET /v1/speakers: one page of the catalogue under exact, case-insensitive filters. */
export async function speakerPage(
  db: Db,
  query: SpeakerFilters & { limit: number; offset: number },
  sampleUrl: (audioId: string) => string,
): Promise<SpeakerPage> {
  const filters: SpeakerFilters = {};
  for (const name of SPEAKER_FILTERS) if (query[name] !== undefined) filters[name] = query[name];
  // Gender is the spec's one enumerated filter: an unknown value is a client error, not an empty page.
  if (filters.gender !== undefined && !GENDERS.some((g) => g.toLowerCase() === filters.gender!.toLowerCase())) {
    throw validationFailed(`Invalid gender: '${filters.gender}' (expected Male, Female or Non-binary)`);
  }
  const { rows, total } = await listSpeakers(db, filters, { limit: query.limit, offset: query.offset });
  return {
    items: rows.map((r) => toSpeaker(r, sampleUrl)),
    total,
    limit: query.limit,
    offset: query.offset,
    has_more: query.offset + rows.length < total,
  };
}

/** GET /v1/speakers/{id}: the speaker or 404 `Speaker not found`. */
export async function speakerById(db: Db, id: string, sampleUrl: (audioId: string) => string): Promise<Speaker> {
  const row = await getSpeaker(db, id);
  if (!row) throw new DomainError('speaker_not_found', SPEAKER_NOT_FOUND);
  return toSpeaker(row, sampleUrl);
}

/**
 * GET /v1/speakers/facets: every value each filter accepts, with counts. Gender always lists the spec's
 * three values (a value without speakers shows count 0); age brackets are in age order.
 */
export async function speakerFacets(db: Db): Promise<SpeakerFacets> {
  const facets = {} as SpeakerFacets;
  for (const name of SPEAKER_FILTERS) facets[name] = await speakerValueCounts(db, name);
  for (const g of GENDERS) {
    if (!facets.gender.some((f) => f.value === g)) facets.gender.push({ value: g, count: 0 });
  }
  const order = (v: string) => {
    const i = (AGE_BRACKETS as readonly string[]).indexOf(v);
    return i < 0 ? AGE_BRACKETS.length : i;
  };
  facets.age_range.sort((a, b) => order(a.value) - order(b.value));
  return facets;
}

/** The facets, counted on first use and then kept: the catalogue is seeded by a migration and never changes. */
export function createFacetsCache(db: Db): () => Promise<SpeakerFacets> {
  let facets: Promise<SpeakerFacets> | undefined;
  return () => {
    // A failed count is not kept: the next call tries again.
    facets ??= speakerFacets(db).catch((err: unknown) => {
      facets = undefined;
      throw err;
    });
    return facets;
  };
}
