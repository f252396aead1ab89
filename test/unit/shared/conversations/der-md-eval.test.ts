import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { derOf, diarizationError, parseRttm, sumDerTimes, writeRttm, type SpeakerSegment } from '../../../../src/shared/conversations/index.js';
import { createPrng } from '../../../../src/shared/stats.js';

// NIST md-eval (Debian `sctk`) is the reference DER scorer DESIGN §16.4 names; Debian keeps it off PATH.
const MD_EVAL = '/usr/lib/sctk/bin/md-eval.pl';

interface MdEval {
  der: number;
  scoredSpeaker: number;
  missed: number;
  falseAlarm: number;
  speakerError: number;
}

const seg = (speaker: string, start: number, end: number): SpeakerSegment => ({ speaker, start, end });

describe('DER against NIST md-eval.pl -c 0.25', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-md-eval-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;

  /** Writes both RTTMs (several files at once when given several calls), runs md-eval and reads its overall lines. */
  function mdEval(calls: readonly { ref: SpeakerSegment[]; hyp: SpeakerSegment[] }[]): { md: MdEval; ref: string; hyp: string } {
    const ref = calls.map((c, i) => writeRttm(`call-${i + 1}`, c.ref)).join('');
    const hyp = calls.map((c, i) => writeRttm(`call-${i + 1}`, c.hyp)).join('');
    const r = join(dir, `ref-${++n}.rttm`);
    const h = join(dir, `hyp-${n}.rttm`);
    writeFileSync(r, ref);
    writeFileSync(h, hyp);
    const out = execFileSync('perl', [MD_EVAL, '-c', '0.25', '-r', r, '-s', h], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const secs = (label: string) => Number(new RegExp(`${label} =\\s*([\\d.]+) secs`).exec(out)![1]);
    const der = Number(/OVERALL SPEAKER DIARIZATION ERROR = ([\d.]+) percent/.exec(out)![1]) / 100;
    return {
      md: { der, scoredSpeaker: secs('SCORED SPEAKER TIME'), missed: secs('MISSED SPEAKER TIME'), falseAlarm: secs('FALARM SPEAKER TIME'), speakerError: secs(' SPEAKER ERROR TIME') },
      ref,
      hyp,
    };
  }

  /** voxctl's DER of each call read back from the exported RTTM, summed as md-eval's overall line is. */
  function voxctl(ref: string, hyp: string) {
    const refs = parseRttm(ref);
    const hyps = parseRttm(hyp);
    const results = [...refs].map(([file, segs]) => diarizationError(segs, hyps.get(file) ?? []));
    const times = sumDerTimes(results);
    return { ...times, der: derOf(times)!, results };
  }

  function agree(calls: { ref: SpeakerSegment[]; hyp: SpeakerSegment[] }[]) {
    const { md, ref, hyp } = mdEval(calls);
    const ours = voxctl(ref, hyp);
    expect(Math.abs(ours.der - md.der), `DER voxctl ${ours.der} md-eval ${md.der}`).toBeLessThanOrEqual(0.001);
    for (const k of ['scoredSpeaker', 'missed', 'falseAlarm', 'speakerError'] as const) {
      expect(Math.abs(ours[k] - md[k]), k).toBeLessThanOrEqual(0.0051); // md-eval prints 2 decimals
    }
    return { md, ours };
  }

  it('md-eval.pl is installed (npm test installs sctk)', () => {
    expect(existsSync(MD_EVAL), 'install the Debian package sctk').toBe(true);
  });

  const twoTurns = [seg('S1', 0, 2), seg('S2', 2.5, 4.5)];

  it('collar: boundaries 0.2 s off cost nothing, 0.4 s off cost 0.15 s each side', () => {
    const inside = agree([{ ref: twoTurns, hyp: [seg('a', 0.2, 2.2), seg('b', 2.7, 4.3)] }]);
    expect(inside.md.der).toBe(0);
    expect(inside.ours.der).toBe(0);
    const outside = agree([{ ref: twoTurns, hyp: [seg('a', 0.4, 2.4), seg('b', 2.9, 4.1)] }]);
    expect(outside.md.der).toBeGreaterThan(0);
  });

  it('overlap: two reference speakers at once count twice; a hypothesis with one of them misses the other', () => {
    const ref = [seg('S1', 0, 3), seg('S2', 2, 5.5)];
    const { ours } = agree([{ ref, hyp: [seg('a', 0, 3), seg('b', 3, 5.5)] }]);
    expect(ours.missed).toBeGreaterThan(0.4); // 2.25..2.75 is outside every collar: 0.5 s of S2 missed
    agree([{ ref, hyp: [seg('a', 0, 3), seg('b', 2, 5.5)] }]);
  });

  it('a missed speaker: three reference speakers, two found', () => {
    const ref = [seg('S1', 0, 3), seg('S2', 3.5, 6), seg('S3', 6.5, 9), seg('S1', 9.5, 11)];
    const { ours } = agree([{ ref, hyp: [seg('a', 0, 3), seg('b', 3.5, 9), seg('a', 9.5, 11)] }]);
    expect(ours.speakerError).toBeGreaterThan(1);
  });

  it('false alarms: speech in a reference pause and an extra hypothesis speaker', () => {
    const ref = [seg('S1', 0, 3), seg('S2', 6, 9)];
    const { ours } = agree([{ ref, hyp: [seg('a', 0, 3), seg('c', 3.8, 5.2), seg('b', 6, 9), seg('d', 7, 8)] }]);
    expect(ours.falseAlarm).toBeGreaterThan(2);
  });

  it('a speaker swap halfway through the call', () => {
    const ref = [seg('S1', 0, 2), seg('S2', 2.5, 4.5), seg('S1', 5, 7), seg('S2', 7.5, 9.5)];
    const { ours } = agree([{ ref, hyp: [seg('a', 0, 2), seg('b', 2.5, 4.5), seg('b', 5, 7), seg('a', 7.5, 9.5)] }]);
    expect(ours.speakerError).toBeGreaterThan(2.9);
  });

  it('agrees on random calls, one at a time and all at once (md-eval overall line)', () => {
    const random = createPrng(34);
    const calls: { ref: SpeakerSegment[]; hyp: SpeakerSegment[] }[] = [];
    // Ref speakers never overlap themselves (md-eval refuses it); hypothesis speakers likewise.
    const speakerTrack = (name: string, from: number, to: number): SpeakerSegment[] => {
      const out: SpeakerSegment[] = [];
      let t = from + random() * 2;
      while (t < to) {
        const len = 0.2 + random() * 3;
        out.push(seg(name, Math.round(t * 1000) / 1000, Math.round((t + len) * 1000) / 1000));
        t += len + 0.05 + random() * 3;
      }
      return out;
    };
    for (let c = 0; c < 12; c++) {
      const nRef = 2 + Math.floor(random() * 3);
      const nHyp = 1 + Math.floor(random() * 5);
      const ref = Array.from({ length: nRef }, (_, i) => speakerTrack(`S${i + 1}`, 0, 30)).flat();
      const hyp = Array.from({ length: nHyp }, (_, i) => speakerTrack(`h${i}`, 0, 32)).flat();
      calls.push({ ref, hyp });
      agree([{ ref, hyp }]);
    }
    agree(calls);
  });
});
