/**
 * The transcript as the entity matcher reads it: lower case, NFKC, `a.m.`/`p.m.` as words, thousands
 * separators inside numerals dropped, and tokens that keep the written forms entities come in (`2:30`,
 * `3/4/2027`, `2027-03-04`, `12.50`, `21st`) together with the symbols between them (`$`, `,`, `-`).
 * The general normaliser (rule 12) is no use here: it breaks exactly these forms (`10:00 am` → `1000 am`).
 */

/** One token and whether white space stood right before it (`415.555` vs `415. 555`). */
export interface Token {
  text: string;
  spaced: boolean;
}

// Written forms first (dates, times, ordinals), then letters mixed with digits (`ab7x2`), numbers, words.
const TOKEN =
  /\d{4}-\d{2}-\d{2}|\d{1,2}\/\d{1,2}\/\d{2,4}|\d{1,2}:\d{2}|\d+(?:st|nd|rd|th)\b|(?=[a-z\d]*\d)(?=[a-z\d]*[a-z])[a-z\d]+|\d+(?:\.\d+)?|[a-z]+(?:'[a-z]+)*|[^\s\p{L}\p{N}]/gu;

/** Tokenises a transcript for the entity matcher (pure; never throws). */
export function entityTokens(transcript: string): Token[] {
  const text = transcript
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    // `a.m.`, `a. m.`, `am` glued to a number (`2pm`), as one word
    .replace(/\b([ap])\s*\.\s*m\b\.?/g, ' $1m ')
    .replace(/(\d)\s*([ap]m)\b/g, '$1 $2')
    // `1,250,000` → `1250000` (a thousands separator, not a list)
    .replace(/(\d),(?=\d{3}(?!\d))/g, '$1')
    // `twenty-five`, `x-ray`: one number, one word
    .replace(/\bx-ray\b/g, 'xray')
    .replace(/([a-z])-(?=[a-z])/g, '$1 ');
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const at = m.index ?? 0;
    out.push({ text: m[0], spaced: at === 0 || /\s/.test(text[at - 1]!) });
  }
  return out;
}

/** The token texts alone (what the spelled-number reader takes). */
export const texts = (tokens: readonly Token[]): string[] => tokens.map((t) => t.text);
