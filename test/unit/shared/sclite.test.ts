import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { calculateAccuracy } from '../../../src/shared/accuracy.js';
import { createPrng } from '../../../src/shared/stats.js';

// NIST sclite (Debian `sctk`, in scripts/test.mjs's REQUIRED list) is the reference scorer DESIGN §4.12's
// tie-break follows; the Debian package keeps it off PATH.
const SCLITE = ['/usr/lib/sctk/bin/sclite', '/usr/bin/sclite'].find((p) => existsSync(p));

interface Counts {
  substitutions: number;
  deletions: number;
  insertions: number;
}

/** Scores every pair with sclite and reads each utterance's S/D/I from its SGML alignment. */
function scliteCounts(pairs: readonly [string, string][], dir: string): Counts[] {
  const trn = (side: 0 | 1) => pairs.map((p, i) => `${p[side]} (spk_${String(i).padStart(5, '0')})\n`).join('');
  writeFileSync(join(dir, 'ref.trn'), trn(0));
  writeFileSync(join(dir, 'hyp.trn'), trn(1));
  const sgml = execFileSync(SCLITE!, ['-r', join(dir, 'ref.trn'), 'trn', '-h', join(dir, 'hyp.trn'), 'trn', '-i', 'spu_id', '-o', 'sgml', 'stdout'], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  const out: Counts[] = [];
  for (const m of sgml.matchAll(/<PATH id="\(spk_(\d+)\)"[^>]*>\n([^\n]*)\n<\/PATH>/g)) {
    const ops = m[2]!.split(':').map((s) => s[0]);
    out[Number(m[1])] = {
      substitutions: ops.filter((o) => o === 'S').length,
      deletions: ops.filter((o) => o === 'D').length,
      insertions: ops.filter((o) => o === 'I').length,
    };
  }
  return out;
}

describe('word alignment against NIST sclite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-sclite-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sclite is installed (npm test installs sctk)', () => {
    expect(SCLITE, 'install the Debian package sctk').toBeDefined();
  });

  /** `count` pairs over a `vocabulary`-word vocabulary; `related`: the hypothesis is the reference with random edits (as ASR output is). */
  function randomPairs(seed: number, count: number, vocabulary: number, related: boolean): [string, string][] {
    const random = createPrng(seed);
    const word = () => `w${Math.floor(random() * vocabulary)}`;
    const text = () => Array.from({ length: 1 + Math.floor(random() * 25) }, word);
    return Array.from({ length: count }, () => {
      const ref = text();
      if (!related) return [ref.join(' '), text().join(' ')];
      const hyp = [...ref];
      for (let e = Math.floor(random() * (ref.length / 2 + 1)); e > 0; e--) {
        const at = Math.floor(random() * (hyp.length + 1));
        const op = random();
        if (op < 0.4) hyp.splice(at, 1, word());
        else if (op < 0.7) hyp.splice(at, 1);
        else hyp.splice(at, 0, word());
      }
      return [ref.join(' '), hyp.join(' ') || word()];
    });
  }

  const ours = (ref: string, hyp: string): Counts => {
    const { substitutions, deletions, insertions } = calculateAccuracy(ref, hyp, { normalize: false });
    return { substitutions, deletions, insertions };
  };

  it('S/D/I equal those of sclite on 1,200 transcript-like pairs, ties included', () => {
    // Small vocabularies make equal-cost alignments common; the hypothesis is an edited reference.
    const pairs = [...randomPairs(1, 400, 4, true), ...randomPairs(2, 400, 8, true), ...randomPairs(3, 400, 30, true)];
    pairs.push(['sat on the mat', 'sad on mat today'], ['fox jumps', 'jumps high']);
    const expected = scliteCounts(pairs, dir);
    expect(expected.filter(Boolean)).toHaveLength(pairs.length);
    const disagreements = pairs.flatMap(([ref, hyp], i) => {
      const mine = ours(ref, hyp);
      return JSON.stringify(mine) === JSON.stringify(expected[i]) ? [] : [{ ref, hyp, mine, sclite: expected[i] }];
    });
    expect(disagreements).toEqual([]);
    expect(expected.at(-2)).toEqual({ substitutions: 1, deletions: 1, insertions: 1 });
  });

  it('on unrelated texts sclite differs only where its 3/3/4 weights pick a costlier alignment', () => {
    // sclite minimises 3·(D + I) + 4·S, not the edit distance: with many substitutions that can prefer an
    // alignment of more edits (higher WER). DESIGN §4.12 keeps the minimum edit distance; everywhere the
    // edit distances agree, so does the breakdown.
    const pairs = [...randomPairs(4, 300, 4, false), ...randomPairs(5, 300, 50, false)];
    const expected = scliteCounts(pairs, dir);
    let differing = 0;
    pairs.forEach(([ref, hyp], i) => {
      const mine = ours(ref, hyp);
      const theirs = expected[i]!;
      const cost = (c: Counts) => c.substitutions + c.deletions + c.insertions;
      const weight = (c: Counts) => 3 * (c.deletions + c.insertions) + 4 * c.substitutions;
      if (cost(theirs) === cost(mine)) expect(mine).toEqual(theirs);
      else {
        differing++;
        expect(cost(theirs)).toBeGreaterThan(cost(mine));
        expect(weight(theirs)).toBeLessThanOrEqual(weight(mine));
      }
    });
    expect(differing).toBeLessThan(pairs.length / 4);
  });
});
