/**
 * The probes' CI gates (DESIGN §12.5), one rule for the CLI's exit 7, its JUnit failures and Markdown:
 * `--max-hallucination X` on each provider's non-speech hallucination rate, `--min-entity-accuracy X` on
 * each entity type's accuracy, both on summary rows of group `all`.
 */

/** What the gates read of a summary row. */
export interface ProbeGateRow {
  provider: string;
  condition: string;
  group: string;
  non_speech?: { hallucination_rate: number | null } | null;
  entities?: Record<string, { accuracy: number | null }>;
}

/** A row's hallucination rate above `max` (a row without clips heard fails too); off without `max`. */
export function failsHallucination(row: ProbeGateRow, max: number | undefined): boolean {
  if (max === undefined || row.group !== 'all' || row.non_speech === undefined) return false;
  const rate = row.non_speech?.hallucination_rate ?? null;
  return rate === null || rate > max;
}

/** The entity types of a row whose accuracy is below `min` (none scored fails too); empty without `min`. */
export function entityAccuracyFailures(row: ProbeGateRow, min: number | undefined): string[] {
  if (min === undefined || row.group !== 'all' || !row.entities) return [];
  return Object.entries(row.entities)
    .filter(([, e]) => e.accuracy === null || e.accuracy < min)
    .map(([type]) => type);
}

/** How a row failing a probe gate reads. */
export function probeGateLines(row: ProbeGateRow, gates: { maxHallucination?: number; minEntityAccuracy?: number }): string[] {
  const lines: string[] = [];
  if (failsHallucination(row, gates.maxHallucination)) {
    const rate = row.non_speech?.hallucination_rate ?? null;
    lines.push(`${row.provider}: hallucination rate ${rate === null ? 'n/a (no clip heard)' : rate.toFixed(4)} on non-speech exceeds --max-hallucination ${gates.maxHallucination}`);
  }
  for (const type of entityAccuracyFailures(row, gates.minEntityAccuracy)) {
    const acc = row.entities![type]!.accuracy;
    lines.push(`${row.provider} under ${row.condition}: ${type} accuracy ${acc === null ? 'n/a (none scored)' : acc.toFixed(4)} is below --min-entity-accuracy ${gates.minEntityAccuracy}`);
  }
  return lines;
}
