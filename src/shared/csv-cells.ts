/**
 * CSV cells carry data, not formulas (DESIGN §17.6; OWASP "CSV injection"): a spreadsheet runs a cell
 * that begins with `=`, `+`, `-` or `@` (and, after a tab or carriage return some of them strip, the
 * same), so such a text cell is written behind a `'`. What decides is the value's type, not its look:
 * a number (`-5`, `-0.0123`) is never touched, a text is always judged — a transcript or a speaker name
 * that reads `-5` is text, and a spreadsheet must show it as written. One rule for every CSV the CLI
 * writes and the service serves.
 */

// What a spreadsheet may take for the start of a formula.
const FORMULA_START = /^[=+\-@\t\r]/;

/** One CSV cell as written: a text that a spreadsheet would run gets a leading `'`; anything else is returned as it is. */
export function csvCell<T>(value: T): T | string {
  return typeof value === 'string' && FORMULA_START.test(value) ? `'${value}` : value;
}

/** A CSV record with each cell through `csvCell`. */
export function csvRecord(values: readonly unknown[]): unknown[] {
  return values.map((v) => csvCell(v));
}
