import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { charactersUsed, espeakSpeaker, fliteSpeaker, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { fakeProvidersConfig, pollEvaluation } from '../helpers/evaluations.js';
import { testBackend } from '../helpers/postgres.js';
import { startFakeVendor, type FakeSpeakerWord, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { parseStm } from '../../src/shared/conversations/index.js';
import { plannedCalls } from '../../src/server/features/evaluations/conversations/create.js';
import { checkConversation } from '../../src/shared/conversations/options.js';
import type { EvaluationSummaryRow, EvaluationUtterance } from '../../src/shared/schemas/evaluations.js';

// Synthetic conversations end to end (DESIGN §16): calls of twelve turns built by the real voices, heard
// whole by PocketSphinx (no diarization: WER only) and by a diarizing Deepgram fake on loopback; each call's
// truth exported as NIST RTTM/STM and the DER of every call checked against NIST's md-eval on the exports.
// Runs against a real server process on SQLite (sqlite project) and PostgreSQL (postgres project). What the
// backend changes is what is stored and read back, so the PostgreSQL pass hears fewer calls and only the
// fake: PocketSphinx decoding whole calls (minutes of CPU) is the recogniser's subject, tested on SQLite.

const MD_EVAL = '/usr/lib/sctk/bin/md-eval.pl';
const TEXTS = [
  'Good morning, thank you for calling the support line.',
  'I would like to change the address on my account.',
  'Of course, can you tell me your account number please?',
  'It is four five six seven eight nine.',
  'Thank you, I have found your account.',
  'What is the new address you would like to use?',
];

const ON_POSTGRES = testBackend() === 'postgres';
const CALLS = ON_POSTGRES ? 3 : 6;
const PROVIDERS = ON_POSTGRES ? ['stt-b'] : ['local-sphinx', 'stt-b'];
const callIds = Array.from({ length: CALLS }, (_, i) => `call-${i + 1}`);

let s: TestServer;
let deepgram: FakeVendor;
let speakers: string[];
const dir = mkdtempSync(join(tmpdir(), 'voxctl-calls-'));
const text = async (path: string) => {
  const r = await fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${s.key}` } });
  return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
};

beforeAll(async () => {
  deepgram = await startFakeVendor('deepgram');
  const configPath = fakeProvidersConfig(dir, { 'stt-b': { adapter: 'deepgram', model: 'nova-3', fake: deepgram } });
  s = await startTestServer({ options: { configPath } });
  await promoteToEnterprise(s);
  speakers = [await fliteSpeaker(s.runtime.db, 'slt'), await espeakSpeaker(s.runtime.db)];
});
afterAll(async () => {
  await s?.close();
  await deepgram?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** md-eval -c 0.25 on one call's exported reference and hypothesis RTTM: its overall DER. */
function mdEvalDer(ref: string, hyp: string, name: string): number {
  const r = join(dir, `${name}.ref.rttm`);
  const h = join(dir, `${name}.hyp.rttm`);
  writeFileSync(r, ref);
  writeFileSync(h, hyp);
  const out = execFileSync('perl', [MD_EVAL, '-c', '0.25', '-r', r, '-s', h], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return Number(/OVERALL SPEAKER DIARIZATION ERROR = ([\d.]+) percent/.exec(out)![1]) / 100;
}

/** A perfect diarizer's words for a call: each turn's words spread over its exact extent, speakers renamed. */
function oracleWords(stm: string): FakeSpeakerWord[] {
  return parseStm(stm).flatMap((seg) => {
    const words = seg.words.split(' ');
    const step = (seg.end - seg.start) / words.length;
    // S1 → 7, S2 → 3: the labels a vendor picks are arbitrary; DER and cpWER map them optimally.
    const speaker = seg.speaker === 'S1' ? 7 : 3;
    return words.map((w, i) => ({ text: w, speaker, start: seg.start + i * step, end: i === words.length - 1 ? seg.end : seg.start + (i + 1) * step }));
  });
}

describe(`a conversation evaluation of ${CALLS} calls × 12 turns (DESIGN §16)`, () => {
  const conversation = { calls: CALLS, turns: 12, speakers_per_call: 2, overlap: 0.2 };
  let id: string;
  let items: EvaluationUtterance[];

  it('charges Σ turn code points, runs every call on every provider and summarises with group all only', async () => {
    const used = await charactersUsed(s);
    const created = await call(s, 'POST', '/v1/evaluations', {
      key: s.key,
      json: { texts: TEXTS, speakers: { ids: speakers }, providers: PROVIDERS, conversation },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.total_utterances).toBe(CALLS * PROVIDERS.length);
    id = created.body.evaluation_id;
    const planned = plannedCalls({ texts: TEXTS, speakers: speakers.map((speakerId) => ({ speakerId, group: 'x' })), seed: 0, options: checkConversation(conversation) });
    expect((await charactersUsed(s)) - used).toBe(planned.reduce((a, c) => a + c.characters, 0));

    // Calls of half a minute decoded by PocketSphinx: minutes on a busy machine, so the test waits as long as the poll.
    const detail = await pollEvaluation(s, id, { timeoutMs: 600_000 });
    expect(detail).toMatchObject({ status: 'completed', completed_utterances: CALLS * PROVIDERS.length, group_by: 'call', conversation: { calls: CALLS, turns: 12, speakers_per_call: 2, gap_ms: [200, 800], overlap: 0.2 } });
    expect(detail.summary.map((r: EvaluationSummaryRow) => [r.provider, r.group, r.speakers, r.utterances])).toEqual(PROVIDERS.map((p) => [p, 'all', CALLS, CALLS]));
    const fake = detail.summary.find((r: EvaluationSummaryRow) => r.provider === 'stt-b');
    // PocketSphinx has no diarization: WER only, never a DER that was not measured.
    if (!ON_POSTGRES) expect(detail.summary[0]).toMatchObject({ provider: 'local-sphinx', der: { unsupported: true }, cpwer: { unsupported: true }, speaker_count_accuracy: { unsupported: true } });
    expect(typeof fake.der).toBe('number');
    expect(typeof fake.cpwer).toBe('number');
    // The fake answers one speaker's few words for each call: one speaker found of two, most speech missed.
    expect(fake.speaker_count_accuracy).toBe(0);
    expect(fake.der).toBeGreaterThan(0.5);
    expect(fake.dropped_turns).toBeGreaterThan(0);

    const page = await call(s, 'GET', `/v1/evaluations/${id}/utterances?limit=100`, { key: s.key });
    items = page.body.items;
    expect(items.map((u) => u.utterance_id)).toEqual(callIds.flatMap((c) => PROVIDERS.map(() => c)));
    expect(items.map((u) => u.reference)).toEqual(planned.flatMap((c) => PROVIDERS.map(() => c.reference)));
  }, 660_000);

  if (!ON_POSTGRES) it('decodes each whole call with PocketSphinx without dropping or repeating stretches', () => {
    for (const u of items.filter((x) => x.provider === 'local-sphinx')) {
      expect(u, JSON.stringify(u)).toMatchObject({ error: null, der: { unsupported: true }, cpwer: { unsupported: true }, speakers: 2, speakers_found: null, loop: false });
      // Long-form decoding: a dropped stretch shows as a run of deletions, a repeated one as insertions.
      expect(u.wer).toBeLessThan(0.6);
      expect(u.dropped_turns).toBeLessThanOrEqual(2);
      expect(u.insertions! / (u.substitutions! + u.deletions! + u.insertions! + 1)).toBeLessThan(0.5);
    }
  });

  it('exports each call’s truth as RTTM and STM, and md-eval scores the exports as voxctl did', async () => {
    for (let n = 1; n <= CALLS; n++) {
      const rttm = await text(`/v1/evaluations/${id}/calls/${n}/reference.rttm`);
      expect([rttm.status, rttm.type]).toEqual([200, 'text/plain; charset=utf-8']);
      const lines = rttm.body.trim().split('\n');
      expect(lines).toHaveLength(12);
      for (const l of lines) expect(l).toMatch(new RegExp(`^SPEAKER call-${n} 1 \\d+\\.\\d{3} \\d+\\.\\d{3} <NA> <NA> S[12] <NA> <NA>$`));
      expect(lines[0]).toContain(' S1 ');
      const stm = await text(`/v1/evaluations/${id}/calls/${n}/reference.stm`);
      const segs = parseStm(stm.body);
      expect(segs).toHaveLength(12);
      const call = items.find((u) => u.utterance_id === `call-${n}` && u.provider === 'stt-b')!;
      // The whole-call reference is the turns' words in order of start.
      expect(segs.map((x) => x.words).join(' ')).toBe(call.reference);
      const hyp = await text(`/v1/evaluations/${id}/calls/${n}/hypothesis.rttm?provider=stt-b&condition=clean`);
      expect(hyp.status, hyp.body).toBe(200);
      expect(Math.abs(mdEvalDer(rttm.body, hyp.body, `call-${n}`) - (call.der as number)), `call ${n}`).toBeLessThanOrEqual(0.001);
    }
    if (!ON_POSTGRES) {
      const sphinxHyp = await text(`/v1/evaluations/${id}/calls/1/hypothesis.rttm?provider=local-sphinx`);
      expect([sphinxHyp.status, sphinxHyp.body]).toEqual([200, '']);
    }
    expect((await text(`/v1/evaluations/${id}/calls/${CALLS + 1}/reference.rttm`)).status).toBe(404);
    expect((await text(`/v1/evaluations/${id}/calls/1/hypothesis.rttm`)).status).toBe(400);
    expect((await text(`/v1/evaluations/${id}/calls/1/hypothesis.rttm?provider=nope`)).status).toBe(400);
  });

  it('draws the report’s Conversations panel from the stored truth and segments: call 1 open, the others folded (DESIGN §16.6)', async () => {
    const detail = await call(s, 'GET', `/v1/evaluations/${id}`, { key: s.key });
    const page = await fetch(detail.body.report_url);
    expect(page.status).toBe(200);
    const panel = (await page.text()).match(/<section id="conversations"[\s\S]*?<\/section>/)?.[0] ?? '';
    expect(panel).toContain('<table id="conversation-metrics">');
    expect([...panel.matchAll(/<details class="call" data-call="(call-\d+)">/g)].map((m) => m[1])).toEqual(callIds.slice(1));
    const svg = panel.match(/<svg class="chart timeline" data-call="call-1"[\s\S]*?<\/svg>/)?.[0] ?? '';
    const lane = (key: string) => svg.match(new RegExp(`<g class="lane" ${key}>([\\s\\S]*?)</g>`))?.[1] ?? '';
    const starts = (g: string) => [...g.matchAll(/data-speaker="([^"]+)" data-start="([^"]+)"/g)].map((m) => [m[1], m[2]]);
    const rttmStarts = (rttm: string) => rttm.trim().split('\n').filter(Boolean).map((l) => l.split(' ')).map((f) => [f[7], Number(f[3]).toFixed(2)]);
    expect(starts(lane('data-lane="reference"'))).toEqual(rttmStarts((await text(`/v1/evaluations/${id}/calls/1/reference.rttm`)).body));
    const hyp = (await text(`/v1/evaluations/${id}/calls/1/hypothesis.rttm?provider=stt-b&condition=clean`)).body;
    expect(starts(lane('data-lane="hypothesis" data-provider="stt-b"'))).toEqual(rttmStarts(hyp));
    if (!ON_POSTGRES) expect(lane('data-lane="hypothesis" data-provider="local-sphinx"')).toContain('unsupported: no diarization');
  });

  it('scores a perfect diarizer of the same calls 0 on WER, cpWER and DER: the truth is exact', async () => {
    // The same texts, speakers, seed and options build the same calls: the fake answers each call's truth.
    const truthByAudio = new Map<string, FakeSpeakerWord[]>();
    for (let n = 1; n <= 2; n++) {
      const stm = await text(`/v1/evaluations/${id}/calls/${n}/reference.stm`);
      const u = items.find((x) => x.utterance_id === `call-${n}` && x.provider === 'stt-b')!;
      const wav = Buffer.from(await (await fetch(u.audio_url!)).arrayBuffer());
      truthByAudio.set(createHash('sha256').update(wav).digest('hex'), oracleWords(stm.body));
    }
    deepgram.speakerWordsFor = (body) => truthByAudio.get(createHash('sha256').update(body).digest('hex'));
    const created = await call(s, 'POST', '/v1/evaluations', { key: s.key, json: { texts: TEXTS, speakers: { ids: speakers }, providers: ['stt-b'], conversation: { ...conversation, calls: 2 } } });
    expect(created.status, created.text).toBe(201);
    const detail = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 300_000 });
    expect(detail.summary[0]).toMatchObject({ wer: 0, cpwer: 0, der: 0, speaker_count_accuracy: 1, dropped_turns: 0, speakers: 2 });
    const calls = await call(s, 'GET', `/v1/evaluations/${created.body.evaluation_id}/utterances`, { key: s.key });
    for (const u of calls.body.items) expect(u).toMatchObject({ wer: 0, cpwer: 0, der: 0, speakers: 2, speakers_found: 2, dropped_turns: 0 });
  }, 360_000);
});
