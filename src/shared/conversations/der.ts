/**
 * Diarization error rate exactly as NIST `md-eval.pl -c 0.25` (sctk, version 22) scores one file and
 * channel without a UEM (DESIGN §16.4). Followed step by step from the script:
 * 1. the evaluated time is one span, from the earliest reference segment's start to the latest one's end
 *    (`uem_from_rttm`);
 * 2. the span is cut wherever any reference or hypothesis speaker starts or stops; each piece holds the
 *    set of reference and of hypothesis speakers talking (`create_speaker_segs`, ends before starts at
 *    equal times, segments of zero duration ignored);
 * 3. each reference–hypothesis pair's overlap is summed over the pieces of the *evaluated* span that hold
 *    reference speech, and the one-to-one mapping of greatest total overlap is chosen (`map_speakers`);
 * 4. the scored span is the evaluated one minus a no-score collar of ±`collar` s around every reference
 *    segment's start and end (`add_collars_to_uem`);
 * 5. over the scored pieces (duration d, nref and nsys speakers, nmap reference speakers whose mapped
 *    hypothesis speaker talks there): scored speaker time += d·nref, missed += d·max(nref − nsys, 0),
 *    false alarm += d·max(nsys − nref, 0), speaker error += d·(min(nref, nsys) − nmap)
 *    (`score_speaker_segments`). Overlapping speech counts once per speaker.
 * DER = (missed + false alarm + speaker error) ÷ scored speaker time. Over several calls the four times
 * are summed first (md-eval's overall line), each call with its own mapping.
 */
import { minCostAssignment } from './assignment.js';
import type { SpeakerSegment } from './nist.js';

/** md-eval's default collar for DESIGN §16.4 (seconds either side of a reference boundary). */
export const DER_COLLAR = 0.25;

/** The four times of md-eval's speaker diarization report (seconds). */
export interface DerTimes {
  scoredSpeaker: number;
  missed: number;
  falseAlarm: number;
  speakerError: number;
}

/** One call's DER, its times, and the optimal mapping (reference speaker → hypothesis speaker). */
export interface DerResult extends DerTimes {
  /** null when no reference speaker time is scored (md-eval divides by zero there). */
  der: number | null;
  mapping: Map<string, string>;
}

type Span = [number, number];
interface Piece {
  ref: string[];
  sys: string[];
  duration: number;
}

/** The pieces of `spans` between speaker changes, as md-eval's create_speaker_segs cuts them. */
function pieces(spans: readonly Span[], ref: readonly SpeakerSegment[], sys: readonly SpeakerSegment[]): Piece[] {
  // kind: 0 uem, 1 ref, 2 sys; begin: true for a start.
  const events: { t: number; kind: 0 | 1 | 2; begin: boolean; speaker: string }[] = [];
  for (const [b, e] of spans) {
    if (!(e > b + 1e-8)) continue;
    events.push({ t: b, kind: 0, begin: true, speaker: '' }, { t: e, kind: 0, begin: false, speaker: '' });
  }
  for (const [kind, segs] of [[1, ref], [2, sys]] as const) {
    for (const s of segs) {
      if (!(s.end - s.start > 0)) continue;
      events.push({ t: s.start, kind, begin: true, speaker: s.speaker }, { t: s.end, kind, begin: false, speaker: s.speaker });
    }
  }
  events.sort((a, b) => a.t - b.t || Number(a.begin) - Number(b.begin));
  const talking = [new Map<string, number>(), new Map<string, number>()] as const;
  const out: Piece[] = [];
  let evaluating = false;
  let tbeg = 0;
  for (const ev of events) {
    if (evaluating && tbeg < ev.t) {
      out.push({ ref: [...talking[0].keys()], sys: [...talking[1].keys()], duration: ev.t - tbeg });
      tbeg = ev.t;
    }
    if (ev.kind === 0) {
      evaluating = ev.begin;
      if (evaluating) tbeg = ev.t;
      continue;
    }
    const who = ev.kind === 1 ? talking[0] : talking[1];
    const n = (who.get(ev.speaker) ?? 0) + (ev.begin ? 1 : -1);
    if (n > 0) who.set(ev.speaker, n);
    else who.delete(ev.speaker);
  }
  return out;
}

/** The evaluated span minus ±collar around every reference boundary (md-eval's add_collars_to_uem). */
function collared(span: Span, ref: readonly SpeakerSegment[], collar: number): Span[] {
  const events: { t: number; begin: boolean }[] = [{ t: span[0], begin: true }, { t: span[1], begin: false }];
  for (const s of ref) {
    for (const b of [s.start, s.end]) events.push({ t: b - collar, begin: false }, { t: b + collar, begin: true });
  }
  // At equal times md-eval's comparator puts starts first.
  events.sort((a, b) => a.t - b.t || Number(b.begin) - Number(a.begin));
  const out: Span[] = [];
  let evaluate = 0;
  let tbeg = 0;
  for (const ev of events) {
    if (ev.begin) {
      evaluate++;
      if (evaluate === 1) tbeg = ev.t;
    } else {
      evaluate--;
      if (evaluate === 0 && ev.t > tbeg) out.push([tbeg, ev.t]);
    }
  }
  return out;
}

/** The mapping of greatest total overlap over the evaluated pieces holding reference speech. */
function optimalMapping(evaluated: readonly Piece[]): Map<string, string> {
  const overlap = new Map<string, Map<string, number>>();
  const sysNames = new Set<string>();
  for (const p of evaluated) {
    if (p.ref.length === 0) continue;
    for (const r of p.ref) {
      for (const s of p.sys) {
        const row = overlap.get(r) ?? new Map<string, number>();
        row.set(s, (row.get(s) ?? 0) + p.duration);
        overlap.set(r, row);
        sysNames.add(s);
      }
    }
  }
  const refs = [...overlap.keys()].sort();
  const syss = [...sysNames].sort();
  const chosen = minCostAssignment(refs.map((r) => syss.map((s) => -(overlap.get(r)!.get(s) ?? 0))));
  const mapping = new Map<string, string>();
  chosen.forEach((j, i) => {
    if (j >= 0 && (overlap.get(refs[i]!)!.get(syss[j]!) ?? 0) > 0) mapping.set(refs[i]!, syss[j]!);
  });
  return mapping;
}

/** One call's DER as md-eval scores it (see the module comment); segments in seconds. */
export function diarizationError(ref: readonly SpeakerSegment[], sys: readonly SpeakerSegment[], options: { collar?: number } = {}): DerResult {
  const collar = options.collar ?? DER_COLLAR;
  const times: DerTimes = { scoredSpeaker: 0, missed: 0, falseAlarm: 0, speakerError: 0 };
  if (ref.length === 0) return { ...times, der: null, mapping: new Map() };
  let b = Infinity;
  let e = 0;
  for (const s of ref) {
    b = Math.min(b, s.start);
    e = Math.max(e, s.end);
  }
  const span: Span = [b, e];
  const mapping = optimalMapping(pieces([span], ref, sys));
  const scored = pieces(collar > 0 ? collared(span, ref, collar) : [span], ref, sys);
  for (const p of scored) {
    const nref = p.ref.length;
    const nsys = p.sys.length;
    let nmap = 0;
    for (const r of p.ref) {
      const s = mapping.get(r);
      if (s !== undefined && p.sys.includes(s)) nmap++;
    }
    times.scoredSpeaker += p.duration * nref;
    times.missed += p.duration * Math.max(nref - nsys, 0);
    times.falseAlarm += p.duration * Math.max(nsys - nref, 0);
    times.speakerError += p.duration * (Math.min(nref, nsys) - nmap);
  }
  return { ...times, der: derOf(times), mapping };
}

/** DER of summed times: md-eval's overall line over several calls; null when nothing was scored. */
export function derOf(times: DerTimes): number | null {
  return times.scoredSpeaker > 0 ? (times.missed + times.falseAlarm + times.speakerError) / times.scoredSpeaker : null;
}

/** The times of several calls summed (each call keeps its own mapping, as md-eval's files do). */
export function sumDerTimes(results: readonly DerTimes[]): DerTimes {
  const out: DerTimes = { scoredSpeaker: 0, missed: 0, falseAlarm: 0, speakerError: 0 };
  for (const r of results) {
    out.scoredSpeaker += r.scoredSpeaker;
    out.missed += r.missed;
    out.falseAlarm += r.falseAlarm;
    out.speakerError += r.speakerError;
  }
  return out;
}
