import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  AccuracyInputError,
  alignWords,
  calculateAccuracy,
  editDistance,
  EMPTY_REFERENCE_MESSAGE,
  round4,
  type AlignmentStep,
} from '../../../src/shared/accuracy.js';
import { normalizeText, whitespaceTokens, wordsOf } from '../../../src/shared/normalize.js';

/** Textbook O(n·m) Levenshtein, the oracle for the bit-parallel implementation. */
function naiveDistance(a: readonly string[], b: readonly string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * The unbanded textbook alignment DP (score cost·K + substitutions, back-pointers preferring diagonal,
 * then up, then left on ties): the oracle that the banded, cut-off implementation must reproduce exactly.
 */
function naiveAlignment(a: readonly string[], b: readonly string[]): AlignmentStep[] {
  const K = a.length + b.length + 1;
  const score: number[][] = [];
  const dir: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    score.push([]);
    dir.push([]);
    for (let j = 0; j <= b.length; j++) {
      if (i === 0 || j === 0) {
        score[i]![j] = (i + j) * K;
        dir[i]![j] = i === 0 ? 3 : 2;
        continue;
      }
      let best = score[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : K + 1);
      let d = 1;
      if (score[i - 1]![j]! + K < best) [best, d] = [score[i - 1]![j]! + K, 2];
      if (score[i]![j - 1]! + K < best) [best, d] = [score[i]![j - 1]! + K, 3];
      score[i]![j] = best;
      dir[i]![j] = d;
    }
  }
  const steps: AlignmentStep[] = [];
  for (let i = a.length, j = b.length; i > 0 || j > 0; ) {
    const d = dir[i]![j];
    if (d === 1) {
      steps.push({ op: a[i - 1] === b[j - 1] ? 'equal' : 'substitute', ref: a[i - 1]!, hyp: b[j - 1]! });
      i--;
      j--;
    } else if (d === 2) steps.push({ op: 'delete', ref: a[--i]!, hyp: null });
    else steps.push({ op: 'insert', ref: null, hyp: b[--j]! });
  }
  return steps.reverse();
}

/** The regex tokenizer `whitespaceTokens` replaced (Unicode White_Space). */
const regexTokens = (text: string): string[] => text.split(/\p{White_Space}+/gu).filter((t) => t.length > 0);

/** Brute force over every alignment: the (cost, substitutions) minimum, to check the tie-break. */
function bestCounts(a: readonly string[], b: readonly string[]): { cost: number; subs: number } {
  const memo = new Map<string, { cost: number; subs: number }>();
  const go = (i: number, j: number): { cost: number; subs: number } => {
    if (i === a.length) return { cost: b.length - j, subs: 0 };
    if (j === b.length) return { cost: a.length - i, subs: 0 };
    const key = `${i},${j}`;
    const hit = memo.get(key);
    if (hit) return hit;
    const d = go(i + 1, j + 1);
    const diag = a[i] === b[j] ? d : { cost: d.cost + 1, subs: d.subs + 1 };
    const del = go(i + 1, j);
    const ins = go(i, j + 1);
    const options = [diag, { cost: del.cost + 1, subs: del.subs }, { cost: ins.cost + 1, subs: ins.subs }];
    const best = options.reduce((x, y) => (y.cost < x.cost || (y.cost === x.cost && y.subs < x.subs) ? y : x));
    memo.set(key, best);
    return best;
  };
  return go(0, 0);
}

const smallWords = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 12 });
const phrase = fc.array(fc.constantFrom('the', 'cat', 'sat', 'on', 'a', 'mat', 'The', 'Cat!', "don't", 'hello,', 'wörld'), {
  maxLength: 15,
});

describe('normalizeText', () => {
  it('applies NFKC, lower case, punctuation removal and white-space collapsing', () => {
    expect(normalizeText('  Hello,   WORLD!  ')).toBe('hello world');
    expect(normalizeText('ﬁne ①')).toBe('fine 1'); // NFKC folds ligatures and circled digits
    expect(normalizeText("Don't 'quote' me")).toBe("don't quote me");
    expect(normalizeText('rock\u2019n\u2019roll')).toBe("rock'n'roll");
    expect(normalizeText('a\u00a0b\u2003c\u0085d\te\nf')).toBe('a b c d e f');
    expect(normalizeText('well-known — "really"?')).toBe('well known really');
    expect(normalizeText('¿Qué tal? ¡Muy bien!')).toBe('qué tal muy bien');
  });

  it('basic v2 (DESIGN §15.6): a hyphen, en or em dash, or slash between two letters is a space', () => {
    expect(calculateAccuracy('He was ill-disposed', 'he was ill disposed')).toMatchObject({ wer: 0, cer: 0, reference_words: 4 });
    expect(calculateAccuracy('cash and/or card', 'cash and or card')).toMatchObject({ wer: 0, reference_words: 4 });
    expect(normalizeText('ill\u2010disposed ill\u2011disposed a\u2013b c\u2014d e--f')).toBe('ill disposed ill disposed a b c d e f');
    expect(normalizeText('ＡＮＤ／ＯＲ')).toBe('and or'); // NFKC first: full-width forms are read as ASCII
    expect(normalizeText('क्या-क्या')).toBe('क्या क्या'); // a combining mark ends a letter
    // only between two letters: elsewhere the mark is other punctuation and goes
    expect(normalizeText('pages 10-20, 1/2 cup, covid-19, x- ray, -dash, slash/')).toBe('pages 1020 12 cup covid19 x ray dash slash');
    expect(calculateAccuracy('pages 10-20', 'pages 10 20').wer).toBeGreaterThan(0);
  });

  it('splits raw tokens on any Unicode white space', () => {
    expect(whitespaceTokens(' a\u3000b\u2028c  ')).toEqual(['a', 'b', 'c']);
  });
});

describe('calculateAccuracy: worked examples', () => {
  it('is zero for texts equal after normalisation', () => {
    const r = calculateAccuracy('The cat sat on the mat.', 'the CAT sat, on the mat');
    expect(r).toEqual({
      wer: 0,
      cer: 0,
      substitutions: 0,
      insertions: 0,
      deletions: 0,
      reference_words: 6,
      hypothesis_words: 6,
      normalizer: { name: 'basic', version: 2 },
    });
  });

  it('counts one substitution, one deletion and one insertion', () => {
    const r = calculateAccuracy('the quick brown fox jumps over', 'the quack brown jumps over it', { alignment: true });
    expect(r.substitutions).toBe(1);
    expect(r.deletions).toBe(1);
    expect(r.insertions).toBe(1);
    expect(r.wer).toBe(0.5);
    expect(r.alignment).toEqual([
      { op: 'equal', ref: 'the', hyp: 'the' },
      { op: 'substitute', ref: 'quick', hyp: 'quack' },
      { op: 'equal', ref: 'brown', hyp: 'brown' },
      { op: 'delete', ref: 'fox', hyp: null },
      { op: 'equal', ref: 'jumps', hyp: 'jumps' },
      { op: 'equal', ref: 'over', hyp: 'over' },
      { op: 'insert', ref: null, hyp: 'it' },
    ]);
  });

  it('prefers the most matches among equal-cost alignments (DESIGN §4.12, as NIST sclite)', () => {
    // "fox jumps" → "jumps high": delete + match + insert costs 2, and so do two substitutions: the match wins.
    expect(calculateAccuracy('fox jumps', 'jumps high')).toMatchObject({ substitutions: 0, insertions: 1, deletions: 1 });
    // "a x" → "y a": insert + match + delete, not two substitutions; both cost 2.
    const r = calculateAccuracy('a x', 'y a', { alignment: true });
    expect(r).toMatchObject({ substitutions: 0, insertions: 1, deletions: 1, wer: 1 });
    expect(r.alignment?.map((s) => s.op)).toEqual(['insert', 'equal', 'delete']);
    // DESIGN's own example: S1 D1 I1, not S3.
    const mat = calculateAccuracy('sat on the mat', 'sad on mat today', { alignment: true });
    expect(mat).toMatchObject({ substitutions: 1, deletions: 1, insertions: 1, wer: 0.75 });
    expect(mat.alignment).toEqual([
      { op: 'substitute', ref: 'sat', hyp: 'sad' },
      { op: 'equal', ref: 'on', hyp: 'on' },
      { op: 'delete', ref: 'the', hyp: null },
      { op: 'equal', ref: 'mat', hyp: 'mat' },
      { op: 'insert', ref: null, hyp: 'today' },
    ]);
  });

  it('reports WER above 1 when insertions are many (not clipped)', () => {
    const r = calculateAccuracy('hello', 'oh hello there my friend');
    expect(r).toMatchObject({ wer: 4, insertions: 4, reference_words: 1, hypothesis_words: 5 });
  });

  it('computes CER over code points of the single-spaced normalised text, rounded to 4 decimals', () => {
    // "kitten" → "sitting": 3 edits over 6 code points.
    expect(calculateAccuracy('kitten', 'sitting').cer).toBe(0.5);
    // Astral characters count once: "😀a" vs "😀b" is one edit over 2 code points.
    expect(calculateAccuracy('😀a', '😀b').cer).toBe(0.5);
    // "abc" vs "abd e": 1 sub + 2 inserted code points (space, e) over 3 → 1.
    expect(calculateAccuracy('abc', 'abd e').cer).toBe(1);
    // 1 edit over 7 code points = 0.142857… → 0.1429.
    expect(calculateAccuracy('abc def', 'abc dxf').cer).toBe(0.1429);
    expect(calculateAccuracy('one two three', 'one three').wer).toBe(0.3333);
  });

  it('treats an empty hypothesis as all deletions', () => {
    expect(calculateAccuracy('a b c', '  ...  ')).toMatchObject({ wer: 1, cer: 1, deletions: 3, hypothesis_words: 0 });
  });

  it('compares raw tokens with normalize:false', () => {
    expect(calculateAccuracy('Hello, world', 'hello world', { normalize: false })).toMatchObject({ substitutions: 1, wer: 0.5 });
    expect(calculateAccuracy('Hello, world', 'hello world').wer).toBe(0);
  });

  it('rejects a reference without words', () => {
    expect(() => calculateAccuracy(' !?. ', 'x')).toThrow(AccuracyInputError);
    expect(() => calculateAccuracy('', 'x')).toThrow(EMPTY_REFERENCE_MESSAGE);
  });

  it('handles a 1,000-word pair in quadratic time', () => {
    const vocab = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    const pair = (n: number) => {
      const ref = Array.from({ length: n }, (_, i) => vocab[(i * 7) % 8]! + (i % 13));
      const hyp = ref.map((w, i) => (i % 11 === 0 ? w + 'x' : w)).filter((_, i) => i % 29 !== 0);
      hyp.splice(n / 2, 0, 'extra', 'words');
      return { ref: ref.join(' '), hyp: hyp.join(' '), hypWords: hyp.length };
    };
    // Best of three, against half the size in the same run: the alignment is O(n·m), so doubling both
    // sides costs ~4x; a slower algorithm costs 8x and more. bench/accuracy.mjs reports the figures.
    const best = (p: ReturnType<typeof pair>) => {
      calculateAccuracy(p.ref, p.hyp); // warm-up
      let ms = Infinity;
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        calculateAccuracy(p.ref, p.hyp);
        ms = Math.min(ms, performance.now() - t0);
      }
      return ms;
    };
    const big = pair(1000);
    const r = calculateAccuracy(big.ref, big.hyp);
    expect(r.reference_words).toBe(1000);
    expect(r.deletions - r.insertions).toBe(1000 - big.hypWords);
    const half = best(pair(500));
    expect(best(big)).toBeLessThan(Math.max(half, 2) * 8);
  });
});

describe('calculateAccuracy: properties', () => {
  it('hits + S + D = N and hits + S + I = H', () => {
    fc.assert(
      fc.property(phrase, phrase, (r, h) => {
        fc.pre(normalizeText(r.join(' ')).length > 0);
        const res = calculateAccuracy(r.join(' '), h.join(' '), { alignment: true });
        const hits = res.alignment!.filter((s) => s.op === 'equal').length;
        expect(hits + res.substitutions + res.deletions).toBe(res.reference_words);
        expect(hits + res.substitutions + res.insertions).toBe(res.hypothesis_words);
      }),
      { numRuns: 500 },
    );
  });

  it('WER is 0 exactly when the texts are equal after normalisation', () => {
    fc.assert(
      fc.property(phrase, phrase, (r, h) => {
        const ref = r.join(' ');
        fc.pre(normalizeText(ref).length > 0);
        const res = calculateAccuracy(ref, h.join(' '));
        expect(res.wer === 0).toBe(normalizeText(ref) === normalizeText(h.join(' ')));
      }),
      { numRuns: 500 },
    );
  });

  it('edit distance is symmetric and matches the textbook DP', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'é', '😀'), { maxLength: 80 }), fc.array(fc.constantFrom('a', 'b', 'c', 'é', '😀'), { maxLength: 80 }), (a, b) => {
        const d = editDistance(a, b);
        expect(d).toBe(editDistance(b, a));
        expect(d).toBe(naiveDistance(a, b));
      }),
      { numRuns: 1000 },
    );
  });

  it('the bit-parallel distance is exact across 32-bit block boundaries', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b'), { minLength: 30, maxLength: 140 }), fc.array(fc.constantFrom('a', 'b'), { minLength: 30, maxLength: 140 }), (a, b) => {
        expect(editDistance(a, b)).toBe(naiveDistance(a, b));
      }),
      { numRuns: 300 },
    );
  });

  it('the banded distance is exact for any bound (a wrong bound falls back to the full matrix)', () => {
    const sym = fc.constantFrom('a', 'b', 'c', ' ');
    fc.assert(
      fc.property(fc.array(sym, { maxLength: 200 }), fc.array(sym, { maxLength: 200 }), fc.nat({ max: 250 }), (a, b, extra) => {
        const d = naiveDistance(a, b);
        expect(editDistance(a, b, d + (extra % 7))).toBe(d);
        expect(editDistance(a, b, extra)).toBe(d);
      }),
      { numRuns: 400 },
    );
  });

  it('the alignment has minimum cost and, among those, the fewest substitutions (most matches)', () => {
    fc.assert(
      fc.property(smallWords, smallWords, (a, b) => {
        const steps = alignWords(a, b);
        const cost = steps.filter((s) => s.op !== 'equal').length;
        const subs = steps.filter((s) => s.op === 'substitute').length;
        expect({ cost, subs }).toEqual(bestCounts(a, b));
        // The alignment replays both sequences in order.
        expect(steps.filter((s) => s.ref !== null).map((s) => s.ref)).toEqual(a);
        expect(steps.filter((s) => s.hyp !== null).map((s) => s.hyp)).toEqual(b);
      }),
      { numRuns: 1000 },
    );
  });

  it('the alignment is exactly that of the unbanded DP, ties included, on longer and skewed inputs', () => {
    const word = fc.constantFrom('a', 'b', 'c', 'd', 'e');
    fc.assert(
      fc.property(fc.array(word, { maxLength: 90 }), fc.array(word, { maxLength: 90 }), (a, b) => {
        expect(alignWords(a, b)).toEqual(naiveAlignment(a, b));
      }),
      { numRuns: 400 },
    );
    // Near-identical pairs: long common stretches, a few edits (the cut-off band is narrow there).
    const edit = fc.record({ at: fc.nat(), op: fc.constantFrom('sub', 'del', 'ins'), w: word });
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 120 }), fc.array(edit, { maxLength: 12 }), (a, edits) => {
        const b = [...a];
        for (const e of edits) {
          const at = e.at % (b.length + 1);
          if (e.op === 'ins') b.splice(at, 0, e.w);
          else if (at < b.length) b.splice(at, 1, ...(e.op === 'sub' ? [e.w] : []));
        }
        expect(alignWords(a, b)).toEqual(naiveAlignment(a, b));
        expect(alignWords(b, a)).toEqual(naiveAlignment(b, a));
      }),
      { numRuns: 400 },
    );
  });

  it('CER is the textbook Levenshtein over code points of the joined words (astral and lone surrogates too)', () => {
    const ch = fc.constantFrom('a', 'b', 'c', 'é', '😀', '😁', '\ud83d', '\ude00', '𝒳', 'ß');
    const token = fc.array(ch, { minLength: 1, maxLength: 6 }).map((cs) => cs.join(''));
    const text = fc.array(token, { minLength: 1, maxLength: 40 }).map((ts) => ts.join(' '));
    fc.assert(
      fc.property(text, fc.oneof(text, fc.constant('')), (ref, hyp) => {
        const res = calculateAccuracy(ref, hyp, { normalize: false });
        const r = Array.from(wordsOf(ref, false).join(' '));
        const h = Array.from(wordsOf(hyp, false).join(' '));
        expect(res.cer).toBe(round4(naiveDistance(r, h) / r.length));
        expect(res.wer).toBe(round4(naiveDistance(wordsOf(ref, false), wordsOf(hyp, false)) / res.reference_words));
      }),
      { numRuns: 500 },
    );
  });

  it('the character distance is exact on long random strings, with and without a bound', () => {
    const ch = fc.constantFrom('a', 'b', 'c', 'd', ' ', '😀', 'é');
    fc.assert(
      fc.property(fc.array(ch, { maxLength: 400 }), fc.array(ch, { maxLength: 400 }), fc.nat({ max: 500 }), (a, b, bound) => {
        const d = naiveDistance(a, b);
        expect(editDistance(a, b)).toBe(d);
        expect(editDistance(a, b, bound)).toBe(d);
        expect(editDistance(a, b, d)).toBe(d);
      }),
      { numRuns: 200 },
    );
  });

  it('the white-space tokenizer equals splitting on \\p{White_Space}', () => {
    const ch = fc.constantFrom('a', 'Z', '\t', '\n', '\v', '\f', '\r', ' ', '\u0085', '\u00a0', '\u1680', '\u2000', '\u200a', '\u200b', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '\u180e', '😀', '\u001f', '\u007f');
    fc.assert(
      fc.property(fc.array(ch, { maxLength: 30 }).map((cs) => cs.join('')), (text) => {
        expect(whitespaceTokens(text)).toEqual(regexTokens(text));
      }),
      { numRuns: 500 },
    );
    for (let c = 0; c < 0x10000; c++) {
      const text = `a${String.fromCharCode(c)}b`;
      if (whitespaceTokens(text).length !== regexTokens(text).length) throw new Error(`U+${c.toString(16)} classified differently`);
    }
  });

  it('WER and CER are rounded to 4 decimals', () => {
    fc.assert(
      fc.property(phrase, phrase, (r, h) => {
        fc.pre(normalizeText(r.join(' ')).length > 0);
        const res = calculateAccuracy(r.join(' '), h.join(' '));
        expect(Math.round(res.wer * 10_000) / 10_000).toBe(res.wer);
        expect(Math.round(res.cer * 10_000) / 10_000).toBe(res.cer);
      }),
    );
  });
});
