/**
 * Word rewrites of the `whisper-en` normaliser (DESIGN §8.6), one token at a time: fillers dropped,
 * contractions expanded (possessives kept: `mario's` stays), titles spelled out, British spellings made
 * American. Every output word is a fixed point, so normalising twice changes nothing.
 */
import { BRITISH_TO_AMERICAN } from './british-american.js';

/** Hesitations a transcript may or may not write down. */
const FILLERS = ['uh', 'uhh', 'um', 'umm', 'hmm', 'hmmm', 'mm', 'mmm', 'mhm', 'er', 'erm', 'ah', 'ahh'];

/** Whole-word rewrites: irregular contractions, `'s` after pronouns (is, not a possessive), titles. */
const WORDS: Record<string, string> = {
  "won't": 'will not',
  "can't": 'can not',
  "shan't": 'shall not',
  "ain't": 'is not',
  "let's": 'let us',
  "y'all": 'you all',
  "it's": 'it is',
  "he's": 'he is',
  "she's": 'she is',
  "that's": 'that is',
  "what's": 'what is',
  "there's": 'there is',
  "here's": 'here is',
  "who's": 'who is',
  "where's": 'where is',
  "how's": 'how is',
  "when's": 'when is',
  "why's": 'why is',
  mr: 'mister',
  mrs: 'missus',
  ms: 'miss',
  dr: 'doctor',
  prof: 'professor',
  jr: 'junior',
  sr: 'senior',
};

/** Regular contraction endings (`n't` keeps its stem: `don't` → `do not`). */
const ENDINGS: readonly [string, string][] = [
  ["n't", 'not'],
  ["'re", 'are'],
  ["'ve", 'have'],
  ["'ll", 'will'],
  ["'m", 'am'],
];

let spellings: Map<string, string> | undefined;
let rewrites: Map<string, readonly string[]> | undefined;

/** The British → American table, parsed on first use. */
function americanSpellings(): Map<string, string> {
  if (!spellings) {
    spellings = new Map();
    for (const line of BRITISH_TO_AMERICAN.split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0) spellings.set(line.slice(0, space), line.slice(space + 1));
    }
  }
  return spellings;
}

/** Fillers (→ no word), whole-word rewrites and spellings in one map: one lookup per ordinary token. */
function wordRewrites(): Map<string, readonly string[]> {
  if (!rewrites) {
    rewrites = new Map();
    for (const [british, american] of americanSpellings()) rewrites.set(british, [american]);
    for (const [word, expansion] of Object.entries(WORDS)) rewrites.set(word, expansion.split(' '));
    for (const filler of FILLERS) rewrites.set(filler, []);
  }
  return rewrites;
}

/** The British → American pairs of the table (for tests and documentation). */
export function britishToAmerican(): ReadonlyMap<string, string> {
  return americanSpellings();
}

/**
 * Appends the rewrite of one lower-case token to `out` (the words before it): nothing for a filler, one or
 * more words for a contraction or title, the American spelling of a British one (possessive kept), else
 * the token itself.
 */
export function rewriteWord(token: string, out: string[]): void {
  const rewrite = wordRewrites().get(token);
  if (rewrite !== undefined) {
    // `mm` after a number is millimetres, not a hesitation (`20 mm`)
    if (rewrite.length === 0 && token === 'mm' && /\d$/.test(out[out.length - 1] ?? '')) out.push(token);
    for (const w of rewrite) out.push(w);
    return;
  }
  if (token.indexOf("'") > 0) {
    for (const [ending, expansion] of ENDINGS) {
      if (token.length > ending.length && token.endsWith(ending)) {
        out.push(token.slice(0, token.length - ending.length), expansion);
        return;
      }
    }
    if (token.endsWith("'s")) {
      const american = americanSpellings().get(token.slice(0, -2));
      out.push(american === undefined ? token : `${american}'s`);
      return;
    }
  }
  out.push(token);
}
