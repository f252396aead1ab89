import { createHash } from 'node:crypto';
import type { Db } from '../../storage/db.js';
import type { EvaluationGroupBy, EvaluationSpeakers } from '../../../shared/schemas/evaluations.js';
import { getSpeaker, listSpeakers, type SpeakerRow } from '../synthesis/index.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';

import { EVALUATION_LIMITS } from '../../../shared/constants.js';

/** Most explicit speaker ids of one evaluation (DESIGN §8.1). */
export const MAX_SPEAKER_IDS = EVALUATION_LIMITS.speakerIds;
/** Group of an evaluation when `ids` are given without `group_by`. */
export const DEFAULT_GROUP_BY: EvaluationGroupBy = 'accent';

/** A selected speaker and its value of the evaluation's `group_by`. */
export interface SelectedSpeaker {
  speakerId: string;
  group: string;
}

/** The chosen speakers and the grouping they were chosen by. */
export interface SpeakerSelection {
  groupBy: EvaluationGroupBy;
  speakers: SelectedSpeaker[];
}

// The whole catalogue is ~2,400 rows; one page that holds any filter's matches.
const WHOLE_CATALOGUE = { limit: 1_000_000, offset: 0 };

/** Checks the shape of `speakers` (exactly one of `ids` / `filter`, counts, duplicates) without lookups. */
export function checkSpeakerSpec(spec: EvaluationSpeakers): void {
  if ((spec.ids === undefined) === (spec.filter === undefined)) throw validationFailed('Provide exactly one of speakers.ids or speakers.filter');
  if (spec.ids) {
    if (spec.ids.length === 0) throw validationFailed('Speakers must contain at least one id');
    if (spec.ids.length > MAX_SPEAKER_IDS) throw validationFailed(`Speakers exceed maximum of ${MAX_SPEAKER_IDS} ids`);
    const seen = new Set<string>();
    for (const id of spec.ids) {
      if (seen.has(id)) throw validationFailed(`Duplicate speaker: ${id}`);
      seen.add(id);
    }
  } else if (spec.group_by === undefined || spec.per_group === undefined) {
    throw validationFailed('speakers.group_by and speakers.per_group are required with speakers.filter');
  }
}

/**
 * Resolves `speakers` to catalogue rows: the given ids (404 `Speaker not found: {id}`), or `per_group`
 * speakers for each value of `group_by` among the filter's matches, chosen by a seeded hash rank — the
 * same request always picks the same voices, whatever the order of the catalogue.
 */
export async function selectSpeakers(db: Db, spec: EvaluationSpeakers): Promise<SpeakerSelection> {
  checkSpeakerSpec(spec);
  const groupBy = spec.group_by ?? DEFAULT_GROUP_BY;
  if (spec.ids) {
    const speakers: SelectedSpeaker[] = [];
    for (const id of spec.ids) {
      const row = await getSpeaker(db, id);
      if (!row) throw new DomainError('speaker_not_found', `Speaker not found: ${id}`);
      speakers.push({ speakerId: row.id, group: groupValue(row, groupBy) });
    }
    return { groupBy, speakers };
  }
  const { rows } = await listSpeakers(db, spec.filter ?? {}, WHOLE_CATALOGUE);
  if (rows.length === 0) throw validationFailed('No speakers match the filter');
  const seed = spec.seed ?? 0;
  const byGroup = new Map<string, { row: SpeakerRow; rank: string }[]>();
  for (const row of rows) {
    const group = groupValue(row, groupBy);
    let members = byGroup.get(group);
    if (!members) byGroup.set(group, (members = []));
    members.push({ row, rank: rankOf(seed, row.id) });
  }
  const speakers: SelectedSpeaker[] = [];
  for (const group of [...byGroup.keys()].sort()) {
    const chosen = byGroup.get(group)!.sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0)).slice(0, spec.per_group);
    for (const c of chosen) speakers.push({ speakerId: c.row.id, group });
  }
  return { groupBy, speakers };
}

/** A speaker's value of `groupBy` (`engine` is the TTS engine that voices it). */
export function groupValue(row: SpeakerRow, groupBy: EvaluationGroupBy): string {
  return row[groupBy];
}

const rankOf = (seed: number, id: string): string => createHash('sha256').update(`${seed}:${id}`).digest('hex');
