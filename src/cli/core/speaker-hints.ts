// What to say when no speaker matches the filters: `speakers list|pick` and `eval run --filter` share it.
import type { SpeakerFacets, SpeakerQuery } from '../../shared/schemas/speakers.js';
import type { Output } from './output.js';
import { closestValues } from './suggest.js';

/** The catalogue's filters, in the order the CLI lists them. */
export const FILTERS = ['gender', 'region', 'accent', 'age_range', 'native_language'] as const;

/** The command-line flag of each filter, as the guidance names it. */
const FLAG_OF: Record<(typeof FILTERS)[number], string> = {
  gender: '--gender',
  region: '--region',
  accent: '--accent',
  age_range: '--age-range',
  native_language: '--native-language',
};

/**
 * An empty result is not left as a bare table header: stderr says which filter value no speaker has,
 * with the closest values the catalogue does have (its facets), or that the values exist but never
 * together. Still exit 0 — an empty list is an answer.
 */
export async function explainNoMatch(
  out: Output,
  filters: Omit<SpeakerQuery, 'limit' | 'offset'>,
  facets: () => Promise<SpeakerFacets>,
  /** How the command line wrote a filter (`--accent 'x'`; `eval run` says `--filter accent=x`). */
  written: (filter: (typeof FILTERS)[number], value: string) => string = (f, v) => `${FLAG_OF[f]} '${v}'`,
): Promise<void> {
  const given = FILTERS.filter((f) => filters[f] !== undefined).map((f) => [f, filters[f]!] as const);
  if (given.length === 0) return out.warn('The speaker catalogue is empty.');
  const known = await facets().catch(() => undefined);
  const unknown = given
    .filter(([f, v]) => known && !(known[f] ?? []).some((x) => x.value.toLowerCase() === v.toLowerCase()))
    .map(([f, v]) => {
      const closest = closestValues(v, (known?.[f] ?? []).map((x) => x.value));
      return `no speaker has ${written(f, v)}${closest.length ? ` (closest: ${closest.join(', ')})` : ''}`;
    });
  const all = 'every value: `voxctl speakers facets`';
  if (unknown.length) out.warn(`No speakers match: ${unknown.join('; ')}; ${all}.`);
  else out.warn(`No speakers match ${given.map(([f, v]) => written(f, v)).join(' and ')} together (each value exists on its own); drop a filter, or see ${all}.`);
}
