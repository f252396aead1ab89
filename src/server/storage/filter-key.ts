/** The comparison form of a filter value (Unicode lower case): stored in `*_key` columns, applied to queries. */
export function filterKey(value: string): string {
  return value.normalize('NFC').toLowerCase();
}
