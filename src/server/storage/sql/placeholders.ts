import type { SqlParam, SqlParams } from './types.js';

/** A statement rewritten for PostgreSQL: `$n` placeholders and, for named parameters, their order. */
export interface PositionalSql {
  text: string;
  /** Names in `$n` order when the statement used `@name`; undefined for `?` statements. */
  names?: string[];
}

// No library does this job: `named-placeholders` (mysql2's) knows MySQL quoting, not dollar quotes or
// PostgreSQL's `?` operators; the real PostgreSQL parsers (pgsql-parser, sql-parser-cst) reject or would
// have to be taught our `?` parameters, and parsing every statement to rename its parameters is more than
// this needs. What is needed is PostgreSQL's lexical structure, which is small: the scanner below follows
// scan.l for everything that can hide a `?` or `@` — strings, quoted identifiers, comments, dollar quotes.

/** `?` followed by one of these is one of PostgreSQL's `?` operators (jsonb `?|` `?&`, geometric `?-` `?-|` `?#` `?||`). */
const AFTER_QUESTION_OPERATOR = new Set('|&-#');
const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;

/**
 * Rewrites the `?` and `@name` placeholders of a statement written once for both dialects to PostgreSQL's
 * `$1, $2, …`. Left exactly as they are: string constants (`'…'` with `''`, `E'…'` with backslash escapes),
 * quoted identifiers, `--` and (nested) `/* *\/` comments, dollar-quoted strings (`$$…$$`, `$tag$…$tag$`),
 * PostgreSQL's own `$n` parameters and the operators that contain `?` or `@` (`?|`, `?&`, `?-`, `?#`, `@?`,
 * `@@`, `<@`, `@>`). So jsonb's bare key-exists `?` cannot be written here: use `jsonb_exists(col, ?)`. A name
 * used twice gets one number, as in SQLite; one statement uses one kind of placeholder.
 */
export function toPositional(sql: string): PositionalSql {
  let out = '';
  let copied = 0;
  let positional = 0;
  const names: string[] = [];
  const replace = (from: number, to: number, text: string) => {
    out += sql.slice(copied, from) + text;
    copied = to;
  };
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === "'") i = skipString(sql, i, isEscapeString(sql, i));
    else if (c === '"') i = skipQuoted(sql, i, '"');
    else if (c === '-' && next === '-') i = skipLineComment(sql, i);
    else if (c === '/' && next === '*') i = skipBlockComment(sql, i);
    else if (c === '$' && dollarTag(sql, i) !== undefined) i = skipDollarQuoted(sql, i, dollarTag(sql, i)!);
    else if (IDENT_START.test(c)) i = skipIdentifier(sql, i);
    else if (c === '?') {
      if (next !== undefined && AFTER_QUESTION_OPERATOR.has(next)) i += 2;
      else if (sql[i - 1] === '@') i += 1;
      else {
        if (names.length > 0) throw mixed(sql);
        replace(i, i + 1, `$${++positional}`);
        i += 1;
      }
    } else if (c === '@' && next !== undefined && IDENT_START.test(next) && sql[i - 1] !== '@' && sql[i - 1] !== '<') {
      if (positional > 0) throw mixed(sql);
      const end = skipIdentifier(sql, i + 1);
      const name = sql.slice(i + 1, end);
      let at = names.indexOf(name);
      if (at === -1) at = names.push(name) - 1;
      replace(i, end, `$${at + 1}`);
      i = end;
    } else i += 1;
  }
  out += sql.slice(copied);
  return names.length > 0 ? { text: out, names } : { text: out };
}

const mixed = (sql: string) => new TypeError(`A statement uses either ? or @name placeholders, not both: ${sql.slice(0, 80)}`);

/** An `E'…'` (or `e'…'`) string, where a backslash escapes the next character; not when the E ends a longer word. */
function isEscapeString(sql: string, quote: number): boolean {
  const prefix = sql[quote - 1];
  return (prefix === 'E' || prefix === 'e') && !IDENT_CHAR.test(sql[quote - 2] ?? ' ');
}

/** Index after the string constant opening at `start`; an unterminated one runs to the end. */
function skipString(sql: string, start: number, backslashEscapes: boolean): number {
  for (let i = start + 1; i < sql.length; i++) {
    const c = sql[i];
    if (backslashEscapes && c === '\\') i++;
    else if (c === "'") {
      if (sql[i + 1] === "'") i++;
      else return i + 1;
    }
  }
  return sql.length;
}

function skipQuoted(sql: string, start: number, quote: string): number {
  for (let i = start + 1; i < sql.length; i++) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i++;
      else return i + 1;
    }
  }
  return sql.length;
}

function skipLineComment(sql: string, start: number): number {
  const end = sql.indexOf('\n', start);
  return end === -1 ? sql.length : end;
}

/** PostgreSQL's block comments nest (SQLite's do not, but a `/*` inside one is no SQL we write). */
function skipBlockComment(sql: string, start: number): number {
  let depth = 0;
  for (let i = start; i < sql.length; i++) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i++;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i++;
      if (depth === 0) return i + 1;
    }
  }
  return sql.length;
}

/**
 * The tag of a dollar quote opening at `start` (`$$` → '', `$fn$` → 'fn'), or undefined: `$1` is a
 * parameter, and a `$` inside an identifier (`a$b`) was consumed with the identifier.
 */
function dollarTag(sql: string, start: number): string | undefined {
  let i = start + 1;
  if (sql[i] === '$') return '';
  if (!IDENT_START.test(sql[i] ?? '')) return undefined;
  while (i < sql.length && /[A-Za-z0-9_\u0080-\uffff]/.test(sql[i]!)) i++;
  return sql[i] === '$' ? sql.slice(start + 1, i) : undefined;
}

function skipDollarQuoted(sql: string, start: number, tag: string): number {
  const delimiter = `$${tag}$`;
  const end = sql.indexOf(delimiter, start + delimiter.length);
  return end === -1 ? sql.length : end + delimiter.length;
}

/** Index after an identifier or keyword (so `E` of `CASE'x'`-like text or a `$` in `a$b` is not misread). */
function skipIdentifier(sql: string, start: number): number {
  let i = start + 1;
  while (i < sql.length && IDENT_CHAR.test(sql[i]!)) i++;
  return i;
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
