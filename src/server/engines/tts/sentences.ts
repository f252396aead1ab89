/**
 * Sentence splitting and joining for parallel synthesis: a long text becomes pieces the pool can
 * synthesise on different workers, and the pieces' audio is joined back in order with a short pause.
 */

/** Options of `splitSentences`. */
export interface SplitOptions {
  /** Longest piece in UTF-16 units; longer sentences are cut at commas, then spaces (default 250). */
  maxChars?: number;
}

/** Default longest piece. */
export const MAX_PIECE_CHARS = 250;

// Words that end with a period without ending the sentence (compared lower-case, without the dot).
const ABBREVIATIONS = new Set(
  (
    'mr mrs ms mx dr prof sr jr st vs etc inc ltd co corp no nos fig figs approx dept est mt ft ave blvd rd ' +
    'gen col lt sgt capt cmdr gov sen rep rev hon jan feb mar apr jun jul aug sep sept oct nov dec ' +
    'mon tue tues wed thu thur thurs fri sat sun al cf viz ca vol vols pp ch sec no min max govt univ ' +
    'e.g i.e a.m p.m u.s u.k u.s.a ph.d b.a m.a d.c'
  ).split(' '),
);

const CLOSERS = `"'”’»)]}」』）`;
const CJK_TERMINATORS = '。！？｡';

/** Splits `text` at sentence boundaries and newlines; pieces are trimmed, never empty, in order. */
export function splitSentences(text: string, options: SplitOptions = {}): string[] {
  const maxChars = Math.max(20, options.maxChars ?? MAX_PIECE_CHARS);
  const sentences: string[] = [];
  for (const line of text.split(/\r?\n|\r|\u2028|\u2029/)) sentences.push(...splitLine(line));
  const pieces: string[] = [];
  for (const s of mergeUnspeakable(sentences)) pieces.push(...cutLong(s, maxChars));
  return pieces;
}

/** Sentence boundaries inside one line. */
function splitLine(line: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    let end = -1; // index just after the terminator and its closing quotes/brackets
    if (CJK_TERMINATORS.includes(ch)) {
      end = skipClosers(line, i + 1);
    } else if (ch === '!' || ch === '?' || ch === '.' || ch === '…') {
      let j = i + 1;
      while (j < line.length && '.!?…'.includes(line[j] as string)) j++;
      j = skipClosers(line, j);
      if (j < line.length && !/\s/.test(line[j] as string)) {
        i = j - 1;
        continue; // "3.14", "e.g.x", "?!x": not followed by a space, not a boundary
      }
      const terminators = line.slice(i, j);
      if (isBoundary(line, i, terminators, j)) end = j;
      else i = j - 1;
    }
    if (end >= 0) {
      pushTrimmed(out, line.slice(start, end));
      start = end;
      i = end - 1;
    }
  }
  pushTrimmed(out, line.slice(start));
  return out;
}

function isBoundary(line: string, at: number, terminators: string, after: number): boolean {
  const next = line.slice(after).trimStart();
  if (next === '') return true;
  // A sentence does not start with a lower-case letter: "approx. five", "wait... what".
  if (/^\p{Ll}/u.test(next)) return false;
  if (terminators !== '.') return true;
  const word = /(\S+)$/u.exec(line.slice(0, at))?.[1] ?? '';
  const bare = word.replace(/^[("'“‘[]+/u, '').toLowerCase();
  if (ABBREVIATIONS.has(bare)) return false;
  // Initials ("J. R. R. Tolkien") and dotted abbreviations ("U.S.", "e.g.").
  if (/^\p{L}$/u.test(bare) || /^(\p{L}\.)+\p{L}$/u.test(bare)) return false;
  return true;
}

function skipClosers(s: string, from: number): number {
  let j = from;
  while (j < s.length && CLOSERS.includes(s[j] as string)) j++;
  return j;
}

function pushTrimmed(out: string[], piece: string): void {
  const t = piece.trim();
  if (t) out.push(t);
}

const speakable = (s: string) => /[\p{L}\p{N}]/u.test(s);

/** Pieces with nothing to say ("...", "—") join their neighbour instead of becoming silent pieces. */
function mergeUnspeakable(pieces: string[]): string[] {
  const out: string[] = [];
  let pending = '';
  for (const p of pieces) {
    if (!speakable(p)) {
      if (out.length > 0) out[out.length - 1] += ' ' + p;
      else pending += (pending ? ' ' : '') + p;
      continue;
    }
    out.push(pending ? `${pending} ${p}` : p);
    pending = '';
  }
  if (pending) out.push(pending); // the whole text is punctuation: keep it, the engine decides
  return out;
}

/** Cuts a piece longer than `max` at the last comma/semicolon/colon, else space, else anywhere. */
function cutLong(piece: string, max: number): string[] {
  const out: string[] = [];
  let rest = piece;
  while (rest.length > max) {
    const window = rest.slice(0, max + 1);
    const minCut = Math.floor(max / 3);
    let cut = lastMatch(window, /[,;:，、；：]\s/gu, minCut, 1);
    if (cut < 0) cut = lastMatch(window, /\s/gu, minCut, 0);
    if (cut < 0) cut = max;
    // Never cut a surrogate pair in half.
    if (/[\uDC00-\uDFFF]/.test(rest[cut] ?? '')) cut--;
    pushTrimmed(out, rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  pushTrimmed(out, rest);
  return out;
}

/** End index (match index + `keep`) of the last match at or after `min`, or -1. */
function lastMatch(s: string, re: RegExp, min: number, keep: number): number {
  let found = -1;
  for (const m of s.matchAll(re)) if (m.index >= min) found = m.index + keep;
  return found;
}

/**
 * How many groups a long text aims for. A constant, not a multiple of the worker count: where a text is
 * cut changes its audio (pauses, intonation), and the same text must give the same bytes on every
 * instance whatever its CPU count (DESIGN §4.6). 8 keeps up to 8 workers busy on one long text.
 */
export const PIECE_GROUPS = 8;

/** Options of `groupPieces`. */
export interface GroupOptions {
  /** How many groups to aim for (`PIECE_GROUPS`). */
  parts: number;
  /** Longest group in UTF-16 units. */
  maxChars: number;
}

/**
 * Merges consecutive short pieces so a long text makes about `parts` engine calls instead of one per
 * sentence (each call has a fixed cost), while keeping enough of them to spread over the workers.
 */
export function groupPieces(pieces: string[], options: GroupOptions): string[] {
  const total = pieces.reduce((n, p) => n + p.length + 1, 0);
  const target = Math.min(options.maxChars, Math.ceil(total / Math.max(1, options.parts)));
  const out: string[] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (last !== undefined && last.length + 1 + p.length <= target) {
      // A piece without final punctuation (a line, a cut) gets a period so the engine pauses there.
      out[out.length - 1] = `${/[.!?…。！？]["'”’)\]]*$/u.test(last) ? last : last + '.'} ${p}`;
    } else {
      out.push(p);
    }
  }
  return out;
}

/** Default pause between joined pieces. */
export const PAUSE_MS = 150;

/** Concatenates PCM pieces in order with `pauseMs` of silence between them. */
export function joinPcm(pieces: readonly Int16Array[], sampleRate: number, pauseMs = PAUSE_MS): Int16Array {
  if (pieces.length === 1) return pieces[0] as Int16Array;
  const gap = Math.round((sampleRate * pauseMs) / 1000);
  const total = pieces.reduce((n, p) => n + p.length, 0) + gap * Math.max(0, pieces.length - 1);
  const out = new Int16Array(total); // zero-filled: the gaps are silence
  let at = 0;
  pieces.forEach((p, i) => {
    if (i > 0) at += gap;
    out.set(p, at);
    at += p.length;
  });
  return out;
}
