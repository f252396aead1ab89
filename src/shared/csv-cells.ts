/**
 * CSV cells carry data, not formulas (DESIGN §17.6; OWASP "CSV injection"): a spreadsheet runs a cell
 * that begins with `=`, `+`, `-` or `@` (and, after a tab or carriage return some of them strip, the
 * same), so such a text cell is written behind a `'`. Numbers are never touched — `-5` or `-0.0123` is a
 * value a spreadsheet reads as a number, never a command. One rule for every CSV the CLI writes and the
 * service serves.
 */

// What a spreadsheet may take for the start of a formula.
const FORMULA_START = /^[=+\-@\t\r]/;
// A plain decimal number, as JavaScript prints one (`-5`, `+1.5`, `1e-7`): data, whatever its sign.
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** One CSV cell as written: a text that a spreadsheet would run gets a leading `'`; anything else is returned as it is. */
export function csvCell<T>(value: T): T | string {
  return typeof value === 'string' && FORMULA_START.test(value) && !NUMBER.test(value) ? `'${value}` : value;
}

/** A CSV record with each cell through `csvCell`. */
export function csvRecord(values: readonly unknown[]): unknown[] {
  return values.map((v) => csvCell(v));
}
