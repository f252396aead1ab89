/**
 * NIST RTTM and STM (DESIGN §16.2, §16.5), the formats md-eval, sclite, pyannote and dscore read. Times
 * are seconds with 3 decimals. RTTM: `SPEAKER {file} 1 {start} {duration} <NA> <NA> {speaker} <NA> <NA>`;
 * STM: `{file} {channel} {speaker} {start} {end} [<label>] {words}`, `;;` lines are comments.
 */

/** A speaker segment in seconds. */
export interface SpeakerSegment {
  speaker: string;
  start: number;
  end: number;
}

/** An STM segment: a speaker segment with its words. */
export interface StmSegment extends SpeakerSegment {
  file: string;
  channel: string;
  /** The optional `<…>` label field, without its brackets' content parsed. */
  label: string | null;
  words: string;
}

/** Seconds as NIST files write them: 3 decimals. */
export const seconds3 = (s: number): string => (Math.round(s * 1000) / 1000).toFixed(3);
/** A segment's duration as written: end and start rounded to the ms first, so start + duration = end. */
export const duration3 = (s: { start: number; end: number }): string => (Math.max(0, Math.round(s.end * 1000) - Math.round(s.start * 1000)) / 1000).toFixed(3);

/** A speaker or file name as one whitespace-free field (vendor labels may hold spaces). */
export const nistField = (name: string): string => name.trim().replace(/\s+/g, '_') || '<NA>';

/** One RTTM file: a SPEAKER line per segment, in order of start. */
export function writeRttm(file: string, segments: readonly SpeakerSegment[]): string {
  const f = nistField(file);
  return [...segments]
    .sort((a, b) => a.start - b.start || a.end - b.end)
    .map((s) => `SPEAKER ${f} 1 ${seconds3(s.start)} ${duration3(s)} <NA> <NA> ${nistField(s.speaker)} <NA> <NA>\n`)
    .join('');
}

/**
 * The segments an RTTM file states, as md-eval reads them: times taken as written, end = start + duration
 * (the same double arithmetic, so scores computed from a parse agree with md-eval's to the last bit that
 * matters). Only SPEAKER lines; comments (`#`, `;`) and blank lines skipped.
 */
export function parseRttm(text: string): Map<string, SpeakerSegment[]> {
  const out = new Map<string, SpeakerSegment[]>();
  text.split('\n').forEach((line, i) => {
    if (/^\s*([#;]|$)/.test(line)) return;
    const f = line.trim().split(/\s+/);
    if (f.length < 9) throw new RangeError(`RTTM line ${i + 1}: expected at least 9 fields`);
    if (f[0]!.toUpperCase() !== 'SPEAKER') return;
    const start = Number(f[3]!.replace('*', ''));
    const duration = f[4] === '<NA>' ? 0 : Number(f[4]!.replace('*', ''));
    if (!Number.isFinite(start) || !Number.isFinite(duration) || duration < 0) throw new RangeError(`RTTM line ${i + 1}: bad start or duration`);
    const segments = out.get(f[1]!) ?? [];
    segments.push({ speaker: f[7]!, start, end: start + duration });
    out.set(f[1]!, segments);
  });
  return out;
}

/** One STM file of a call: a line per segment, in order of start. */
export function writeStm(file: string, segments: readonly { speaker: string; start: number; end: number; words: string }[]): string {
  const f = nistField(file);
  return [...segments]
    .sort((a, b) => a.start - b.start || a.end - b.end)
    .map((s) => `${f} 1 ${nistField(s.speaker)} ${seconds3(s.start)} ${seconds3(s.end)} ${s.words.replace(/\s+/g, ' ').trim()}\n`)
    .join('');
}

/** Thrown for an STM line that is not one; the message names the line (1-based). */
export class StmFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StmFormatError';
  }
}

/**
 * STM segments in file order. A line is `file channel speaker start end [<label>] words…`; `;;` lines and
 * blank lines are skipped; `start` ≤ `end`, both finite and not negative.
 */
export function parseStm(text: string): StmSegment[] {
  const out: StmSegment[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (/^\s*(;;|$)/.test(line)) return;
    const m = /^\s*(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)(?:\s+(<[^>]*>))?(?:\s+(.*))?$/.exec(line);
    if (!m) throw new StmFormatError(`STM line ${i + 1}: expected file, channel, speaker, start and end`);
    const start = Number(m[4]);
    const end = Number(m[5]);
    if (!Number.isFinite(start) || !Number.isFinite(end) || start < 0 || end < start) {
      throw new StmFormatError(`STM line ${i + 1}: start and end must be seconds with start <= end`);
    }
    out.push({ file: m[1]!, channel: m[2]!, speaker: m[3]!, start, end, label: m[6] ?? null, words: (m[7] ?? '').trim() });
  });
  return out;
}
