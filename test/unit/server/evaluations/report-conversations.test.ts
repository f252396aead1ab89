import { describe, expect, it } from 'vitest';
import { renderEvaluationReport } from '../../../../src/server/features/evaluations/report/html.js';
import { PROVIDER_COLOURS } from '../../../../src/server/features/evaluations/report/svg.js';
import type { EvaluationDetail, EvaluationSummaryRow, EvaluationUtterance, ReportCall } from '../../../../src/shared/schemas/evaluations.js';
import { fixtureReport } from './report-fixture.js';

const generatedAt = new Date('2026-11-28T12:00:00Z');
const UNSUPPORTED = { unsupported: true as const };
const conditions = ['clean', 'telephone'];
const providers = ['local-sphinx', 'stt-d'];

/** A summary row of group `all` over the calls, with the §16.4 fields given. */
function row(provider: string, condition: string, extra: Partial<EvaluationSummaryRow>): EvaluationSummaryRow {
  return {
    provider,
    condition,
    group: 'all',
    utterances: 3,
    speakers: 3,
    reference_words: 300,
    substitutions: 10,
    deletions: 5,
    insertions: 3,
    wer: 0.06,
    wer_ci95: [0.04, 0.08],
    cer: null,
    latency_ms: { p50: 1000, p95: 1500 },
    attempted: 3,
    failed_requests: 0,
    audio_seconds: 90,
    cost_usd: null,
    rtfx: 10,
    ...extra,
  };
}

/** A call row of `eval calls`: a diarizing provider's figures, or `unsupported` without diarization. */
function call(n: number, provider: string, condition: string, extra: Partial<EvaluationUtterance> = {}): EvaluationUtterance {
  const diarized = provider === 'stt-d';
  return {
    text_index: n - 1,
    speaker_id: `call-${n}`,
    group: 'all',
    condition,
    provider,
    reference: 'hello there how can I help',
    transcript: 'hello there how can I help',
    wer: 0.1,
    substitutions: 1,
    deletions: 0,
    insertions: 0,
    latency_ms: 900,
    confidence: null,
    error: null,
    determinable: false,
    audio_url: null,
    utterance_id: `call-${n}`,
    cpwer: diarized ? 0.125 : UNSUPPORTED,
    der: diarized ? 0.0625 : UNSUPPORTED,
    speakers: 2,
    speakers_found: diarized ? 2 : null,
    dropped_turns: 0,
    ...extra,
  };
}

const turns = [
  { speaker: 'S1', start: 0.2, end: 2.5, text: 'hello thanks for calling' },
  { speaker: 'S2', start: 3.1, end: 5.0, text: 'hi <script>alert(1)</script> my order' },
  { speaker: 'S1', start: 5.6, end: 8.0, text: 'let me look at that' },
];

/** Three calls: stt-d labels S1 as `B` and S2 as `A` under clean (another label, `Z`, under telephone); call 3 failed on stt-d. */
const calls: ReportCall[] = [1, 2, 3].map((n) => ({
  utterance_id: `call-${n}`,
  turns,
  hypotheses: [
    ...conditions.map((condition) => ({ provider: 'local-sphinx', condition, diarized: false, segments: [] })),
    ...(n === 3
      ? []
      : [
          {
            provider: 'stt-d',
            condition: 'clean',
            diarized: true,
            segments: [
              { speaker: 'B', start: 0.25, end: 2.4 },
              { speaker: 'A', start: 3.2, end: 4.9 },
              { speaker: 'B', start: 5.7, end: 7.9 },
              { speaker: 'C', start: 8.5, end: 9.0 },
            ],
          },
          { provider: 'stt-d', condition: 'telephone', diarized: true, segments: [{ speaker: 'Z', start: 0.2, end: 8 }] },
        ]),
  ],
}));

function conversationReport(): string {
  const base = fixtureReport();
  const utterances = [1, 2, 3].flatMap((n) =>
    conditions.flatMap((condition) =>
      providers.map((p) =>
        n === 3 && p === 'stt-d' && condition === 'clean'
          ? call(n, p, condition, { transcript: null, wer: null, cpwer: null, der: null, speakers_found: null, error: { code: 'timeout', message: 'no answer' } })
          : n === 2 && p === 'stt-d'
            ? call(n, p, condition, { speakers_found: 3 })
            : call(n, p, condition),
      ),
    ),
  );
  const evaluation: EvaluationDetail = {
    ...base.evaluation,
    name: 'Support calls',
    providers,
    provider_labels: { 'local-sphinx': 'local-sphinx · en-us', 'stt-d': 'stt-d · deepgram nova-3' },
    conditions,
    group_by: 'gender',
    conversation: { calls: 3, turns: 3, speakers_per_call: 2, gap_ms: [200, 800], overlap: 0 },
    summary: [
      row('local-sphinx', 'clean', { der: UNSUPPORTED, der_ci95: UNSUPPORTED, cpwer: UNSUPPORTED, cpwer_ci95: UNSUPPORTED, speaker_count_accuracy: UNSUPPORTED, dropped_turns: 1 }),
      row('local-sphinx', 'telephone', { der: UNSUPPORTED, der_ci95: UNSUPPORTED, cpwer: UNSUPPORTED, cpwer_ci95: UNSUPPORTED, speaker_count_accuracy: UNSUPPORTED, dropped_turns: 2 }),
      row('stt-d', 'clean', { utterances: 2, failed_requests: 1, wer: 0.0512, der: 0.1234, der_ci95: [0.05, 0.2], cpwer: 0.0876, cpwer_ci95: [0.06, 0.11], speaker_count_accuracy: 0.5, dropped_turns: 0 }),
      row('stt-d', 'telephone', { der: null, der_ci95: null, cpwer: 0.3, cpwer_ci95: null, speaker_count_accuracy: 0.6667, dropped_turns: 4 }),
    ],
    comparisons: [],
  };
  return renderEvaluationReport({ evaluation, utterances, generatedAt, calls });
}

const section = (page: string) => page.match(/<section id="conversations"[\s\S]*?<\/section>/)?.[0] ?? '';
const tableRow = (s: string, provider: string, condition: string) => s.match(new RegExp(`<tr data-provider="${provider}" data-condition="${condition}">([\\s\\S]*?)</tr>`))?.[1] ?? '';
const cells = (tr: string) => [...tr.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
const lane = (svg: string, key: string) => svg.match(new RegExp(`<g class="lane" ${key}>([\\s\\S]*?)</g>`))?.[1] ?? '';
const segments = (g: string) =>
  [...g.matchAll(/<rect class="seg"[^>]* fill="([^"]+)" data-speaker="([^"]+)" data-start="([^"]+)" data-end="([^"]+)"/g)].map((m) => ({ fill: m[1], speaker: m[2], start: m[3], end: m[4] }));

describe('report: the Conversations panel (DESIGN §16.6)', () => {
  it('tables WER, cpWER and DER with their intervals, the speaker-count accuracy and dropped turns per provider × condition', () => {
    const s = section(conversationReport());
    expect(s).toContain('<h2 id="conv-h">Conversations</h2>');
    expect(s).toContain('3 synthetic call(s) of 3 turns between 2 speakers');
    expect(cells(tableRow(s, 'stt-d', 'clean'))).toEqual([
      'stt-d · deepgram nova-3',
      'clean',
      '2',
      '0.0512',
      '0.0400 – 0.0800',
      '0.0876',
      '0.0600 – 0.1100',
      '0.1234',
      '0.0500 – 0.2000',
      '50.0% (1 of 2)',
      '0',
    ]);
    // Without diarization every speaker metric is unsupported; WER and dropped turns are still measured.
    expect(cells(tableRow(s, 'local-sphinx', 'clean'))).toEqual(['local-sphinx · en-us', 'clean', '3', '0.0600', '0.0400 – 0.0800', 'unsupported', 'unsupported', 'unsupported', 'unsupported', 'unsupported', '1']);
    // Null is "not measured", never a zero.
    expect(cells(tableRow(s, 'stt-d', 'telephone')).slice(5, 11)).toEqual(['0.3000', 'not measured', 'not measured', 'not measured', '66.7% (2 of 3)', '4']);
    // A report of short utterances has no such panel.
    expect(renderEvaluationReport({ ...fixtureReport(), generatedAt })).not.toContain('id="conversations"');
  });

  it('draws call 1 open: the reference turns and each provider’s segments under clean, coloured by the speaker DER pairs them with', () => {
    const s = section(conversationReport());
    const first = s.split('<details')[0]!;
    const svg = first.match(/<svg class="chart timeline" data-call="call-1"[\s\S]*?<\/svg>/)?.[0] ?? '';
    expect(svg).not.toBe('');
    expect(first).toContain('call-1 · 3 turns · 2 speakers · 8.0 s');
    const reference = segments(lane(svg, 'data-lane="reference"'));
    expect(reference.map((r) => [r.speaker, r.start, r.end])).toEqual([
      ['S1', '0.20', '2.50'],
      ['S2', '3.10', '5.00'],
      ['S1', '5.60', '8.00'],
    ]);
    const [s1, s2] = PROVIDER_COLOURS;
    expect(reference.map((r) => r.fill)).toEqual([s1, s2, s1]);
    const heard = segments(lane(svg, 'data-lane="hypothesis" data-provider="stt-d"'));
    // Clean only (the telephone hearing's `Z` is not drawn); B is paired with S1, A with S2, C with no one.
    expect(heard.map((h) => [h.speaker, h.start, h.end, h.fill])).toEqual([
      ['B', '0.25', '2.40', s1],
      ['A', '3.20', '4.90', s2],
      ['B', '5.70', '7.90', s1],
      ['C', '8.50', '9.00', PROVIDER_COLOURS[2]],
    ]);
    expect(svg).not.toContain('data-speaker="Z"');
    expect(lane(svg, 'data-lane="hypothesis" data-provider="local-sphinx"')).toContain('unsupported: no diarization');
    expect(segments(lane(svg, 'data-lane="hypothesis" data-provider="local-sphinx"'))).toEqual([]);
    // The turn's words are in its tooltip, escaped.
    expect(svg).toContain('Reference · S2 · 3.10–5.00 s: hi &#60;script&#62;alert(1)&#60;/script&#62; my order');
    // The call's own figures under its timeline.
    expect(first).toMatch(/<tr data-provider="stt-d"><td>stt-d · deepgram nova-3<\/td><td class="num">0\.1000<\/td><td class="num">0\.1250<\/td><td class="num">0\.0625<\/td><td class="num">2 of 2<\/td>/);
  });

  it('folds the other calls in <details>; a failed hearing is a lane that says so', () => {
    const page = conversationReport();
    expect(page).not.toMatch(/<script/i);
    const s = section(page);
    const folded = [...s.matchAll(/<details class="call" data-call="([^"]+)">([\s\S]*?)<\/details>/g)];
    expect(folded.map((m) => m[1])).toEqual(['call-2', 'call-3']);
    const third = folded[1]![2]!;
    expect(third).toContain('<summary>call-3 · 3 turns · 2 speakers · 8.0 s</summary>');
    expect(lane(third, 'data-lane="hypothesis" data-provider="stt-d"')).toContain('not heard: the request failed or has not run');
    expect(third).toContain('no transcript (timeout)');
    expect(segments(lane(folded[0]![2]!, 'data-lane="hypothesis" data-provider="stt-d"'))).toHaveLength(4);
  });
});
