import type { SqlParam, SqlParams } from './types.js';

/** A statement rewritten for PostgreSQL: `$n` placeholders and, for named parameters, their order. */
export interface PositionalSql {
  text: string;
  /** Names in `$n` order when the statement used `@name`; undefined for `?` statements. */
  names?: string[];
}

/**
 * Rewrites `?` and `@name` placeholders to PostgreSQL's `$1, $2, …`, leaving quoted strings, quoted
 * identifiers and comments alone. A name used twice gets one number, as in SQLite.
 */
export function toPositional(sql: string): PositionalSql {
  let out = '';
  let n = 0;
  const names: string[] = [];
  let named = false;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = closingQuote(sql, i, c);
      out += sql.slice(i, end + 1);
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === '?') {
      out += `$${++n}`;
    } else if (c === '@' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      named = true;
      let j = i + 1;
      while (j < sql.length && /\w/.test(sql[j]!)) j++;
      const name = sql.slice(i + 1, j);
      let at = names.indexOf(name);
      if (at === -1) at = names.push(name) - 1;
      out += `$${at + 1}`;
      i = j - 1;
    } else {
      out += c;
    }
  }
  return named ? { text: out, names } : { text: out };
}

function closingQuote(sql: string, start: number, quote: string): number {
  for (let i = start + 1; i < sql.length; i++) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i++;
      else return i;
    }
  }
  return sql.length - 1;
}

/** The values of `params` in the order `positional` wants them. */
export function orderedParams(positional: PositionalSql, params: SqlParams | undefined): SqlParam[] {
  if (!params) return [];
  if (Array.isArray(params)) return params as SqlParam[];
  const byName = params as Readonly<Record<string, SqlParam | undefined>>;
  return (positional.names ?? []).map((name) => {
    const v = byName[name];
    if (v === undefined) throw new TypeError(`Missing named parameter @${name}`);
    return v;
  });
}
