import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderedParams, toPositional } from '../../../../src/server/storage/sql/placeholders.js';

// The PostgreSQL seam rewrites `?` / `@name` to `$n` (issue 32 item 6): nothing PostgreSQL reads as text,
// an identifier, a comment or an operator may be touched.
describe('toPositional', () => {
  it.each([
    ['a block comment', 'SELECT /* why? @not */ ?', 'SELECT /* why? @not */ $1'],
    ['a nested block comment', 'SELECT /* a /* b? */ c? */ ?', 'SELECT /* a /* b? */ c? */ $1'],
    ['a dollar-quoted string', "SELECT $$it's ? and @x$$, ?", "SELECT $$it's ? and @x$$, $1"],
    ['a tagged dollar quote holding $$', 'DO $fn$ BEGIN PERFORM $$?$$; END $fn$; SELECT ?', 'DO $fn$ BEGIN PERFORM $$?$$; END $fn$; SELECT $1'],
    ['jsonb ?| and ?&', "SELECT tags ?| ARRAY['a'] AND tags ?& ARRAY['b'] AND id = ?", "SELECT tags ?| ARRAY['a'] AND tags ?& ARRAY['b'] AND id = $1"],
    ['a string with a doubled quote', "SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"],
    ['an escape string', "SELECT E'a\\' ?', ?", "SELECT E'a\\' ?', $1"],
    ['a quoted identifier', 'SELECT "we?ird""@x" FROM t WHERE id = ?', 'SELECT "we?ird""@x" FROM t WHERE id = $1'],
    ['a line comment', 'SELECT ? -- and ?\n, ?', 'SELECT $1 -- and ?\n, $2'],
    ["PostgreSQL's own $n", 'SELECT $1, $2', 'SELECT $1, $2'],
    ['text search and containment operators', 'SELECT a @@ b, a <@ b, a @> b, j @? p', 'SELECT a @@ b, a <@ b, a @> b, j @? p'],
    ['a $ inside an identifier', 'SELECT a$b$c, ?', 'SELECT a$b$c, $1'],
    ['compact SQL', 'UPDATE t SET a=?,b=? WHERE id=?', 'UPDATE t SET a=$1,b=$2 WHERE id=$3'],
  ])('leaves %s alone', (_what, sql, text) => {
    expect(toPositional(sql).text).toBe(text);
  });

  it('numbers named parameters once per name, in order of first use', () => {
    expect(toPositional("SELECT @b, @a, @b, '@c' /* @d */ FROM t")).toEqual({ text: "SELECT $1, $2, $1, '@c' /* @d */ FROM t", names: ['b', 'a'] });
  });

  it('refuses a statement mixing ? and @name (their numbers would collide)', () => {
    expect(() => toPositional('SELECT ?, @a')).toThrow(/either \? or @name/);
    expect(() => toPositional('SELECT @a, ?')).toThrow(/either \? or @name/);
  });

  it('orders named values for the statement', () => {
    const p = toPositional('SELECT @b, @a, @b');
    expect(orderedParams(p, { a: 1, b: 2 })).toEqual([2, 1]);
    expect(() => orderedParams(p, { a: 1 })).toThrow('Missing named parameter @b');
  });

  // Model: a statement is a sequence of pieces the rewriter must copy as they are, separated by
  // placeholders; the expected text is the same pieces with `$1, $2, …` in place of the placeholders.
  const free = fc.string({ unit: fc.constantFrom('a', ' ', '?', '@', "'", '"', '$', '*', '/', '-', '\n', '|', '&', 'x', '1') });
  const word = fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/);
  const opaque = fc.oneof(
    free.map((s) => `'${s.replaceAll("'", "''")}'`),
    free.map((s) => `"${s.replaceAll('"', '""')}"`),
    free.map((s) => `/* ${s.replaceAll('*/', '* /').replaceAll('/*', '/ *')} */`),
    free.map((s) => `-- ${s.replaceAll('\n', ' ')}\n`),
    fc.tuple(fc.constantFrom('', 'fn', 'body_1'), free).map(([tag, s]) => `$${tag}$${s.replaceAll(`$${tag}$`, '')}$${tag}$`),
    fc.constantFrom('?|', '?&', '@@', '<@', '@>', ' = ', ', ', ' ', '::text', 'x'),
    word,
  );
  const separator = fc.constantFrom(' ', ', ', '(', ')', '=');

  it('copies strings, identifiers, comments, dollar quotes and ? operators exactly, numbering only the ? placeholders', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.array(opaque, { maxLength: 3 }), fc.boolean(), separator), { maxLength: 8 }), (parts) => {
        let sql = '';
        let expected = '';
        let n = 0;
        for (const [pieces, placeholder, sep] of parts) {
          const text = pieces.join(' ');
          sql += `${sep}${text}${sep}`;
          expected += `${sep}${text}${sep}`;
          if (placeholder) {
            sql += ' ? ';
            expected += ` $${++n} `;
          }
        }
        expect(toPositional(sql)).toEqual({ text: expected });
      }),
      { numRuns: 500 },
    );
  });

  it('numbers @names by first use and leaves the same opaque pieces alone', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.array(opaque, { maxLength: 3 }), fc.option(fc.constantFrom('a', 'b', 'user_id')), separator), { maxLength: 8 }), (parts) => {
        let sql = '';
        let expected = '';
        const names: string[] = [];
        for (const [pieces, name, sep] of parts) {
          const text = pieces.join(' ');
          sql += `${sep}${text}${sep}`;
          expected += `${sep}${text}${sep}`;
          if (name !== null) {
            if (!names.includes(name)) names.push(name);
            sql += ` @${name} `;
            expected += ` $${names.indexOf(name) + 1} `;
          }
        }
        expect(toPositional(sql)).toEqual(names.length > 0 ? { text: expected, names } : { text: expected });
      }),
      { numRuns: 500 },
    );
  });
});
