import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editDistance } from '../../../../src/shared/accuracy.js';
import { cpWer, minCostAssignment } from '../../../../src/shared/conversations/index.js';

/** cpWER by its definition: every one-to-one pairing (partial included) tried, unpaired words all errors. */
function bruteForce(ref: Map<string, string[]>, hyp: Map<string, string[]>): number {
  const rs = [...ref.keys()];
  const hs = [...hyp.keys()];
  let best = Infinity;
  const walk = (i: number, used: Set<string>, errors: number) => {
    if (i === rs.length) {
      let total = errors;
      for (const h of hs) if (!used.has(h)) total += hyp.get(h)!.length;
      best = Math.min(best, total);
      return;
    }
    walk(i + 1, used, errors + ref.get(rs[i]!)!.length); // this reference speaker unpaired
    for (const h of hs) {
      if (used.has(h)) continue;
      used.add(h);
      walk(i + 1, used, errors + editDistance(ref.get(rs[i]!)!, hyp.get(h)!));
      used.delete(h);
    }
  };
  walk(0, new Set(), 0);
  return best;
}

const words = fc.array(fc.constantFrom('yes', 'no', 'account', 'card', 'number', 'please', 'thanks'), { maxLength: 12 });
const speakers = (prefix: string, max: number) =>
  fc.array(words, { minLength: 1, maxLength: max }).map((groups) => new Map(groups.map((g, i) => [`${prefix}${i}`, g] as const)));

describe('cpWER', () => {
  it('equals the brute-force minimum over pairings (up to 4 reference and 5 hypothesis speakers)', () => {
    fc.assert(
      fc.property(speakers('S', 4), speakers('h', 5), (ref, hyp) => {
        expect(cpWer(ref, hyp).errors).toBe(bruteForce(ref, hyp));
      }),
      { numRuns: 300, seed: 34 },
    );
  });

  it('swapped labels cost nothing; one speaker for everything costs the other speaker all deleted', () => {
    const ref = new Map([
      ['S1', ['hello', 'how', 'can', 'i', 'help']],
      ['S2', ['my', 'card', 'is', 'lost']],
    ]);
    const swapped = cpWer(ref, new Map([['B', ['hello', 'how', 'can', 'i', 'help']], ['A', ['my', 'card', 'is', 'lost']]]));
    expect(swapped).toMatchObject({ errors: 0, referenceWords: 9, cpwer: 0 });
    expect(swapped.pairing.get('S1')).toBe('B');
    const merged = cpWer(ref, new Map([['A', ['hello', 'how', 'can', 'i', 'help', 'my', 'card', 'is', 'lost']]]));
    expect(merged.errors).toBe(4 + 4); // S1 vs everything: 4 insertions; S2 unpaired: 4 deletions
  });
});

describe('minCostAssignment', () => {
  it('finds the cheapest pairing of any rectangular matrix', () => {
    const matrix = fc.integer({ min: 1, max: 5 }).chain((r) => fc.integer({ min: 1, max: 5 }).chain((c) => fc.array(fc.array(fc.integer({ min: -50, max: 50 }), { minLength: c, maxLength: c }), { minLength: r, maxLength: r })));
    fc.assert(
      fc.property(matrix, (m) => {
        const chosen = minCostAssignment(m);
        const cols = chosen.filter((j) => j >= 0);
        expect(new Set(cols).size).toBe(cols.length);
        expect(cols.length).toBe(Math.min(m.length, m[0]!.length));
        const cost = chosen.reduce((s, j, i) => s + (j >= 0 ? m[i]![j]! : 0), 0);
        // brute force over injective maps from the smaller side
        let best = Infinity;
        const rows = m.length;
        const colsN = m[0]!.length;
        const walk = (i: number, used: Set<number>, acc: number, skips: number) => {
          if (i === rows) return void (best = Math.min(best, acc));
          if (skips > 0) walk(i + 1, used, acc, skips - 1);
          for (let j = 0; j < colsN; j++) {
            if (used.has(j)) continue;
            used.add(j);
            walk(i + 1, used, acc + m[i]![j]!, skips);
            used.delete(j);
          }
        };
        walk(0, new Set(), 0, Math.max(0, rows - colsN));
        expect(cost).toBe(best);
      }),
      { numRuns: 300, seed: 34 },
    );
  });
});
