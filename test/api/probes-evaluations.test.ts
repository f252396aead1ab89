// Probes in evaluations (DESIGN §12) over real loopback HTTP: non-speech clips heard by every provider,
// entity sentences joining the texts, loops, and the keyterm second pass — on local-sphinx and three
// loopback vendor fakes: one that answers the same sentence to everything (so it "speaks" on every
// clip), one that loops, and one that honours boosting.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, type Reply } from '../helpers/core-http.js';
import { charactersUsed, fliteSpeaker, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { fakeProvidersConfig, pollEvaluation } from '../helpers/evaluations.js';
import { FAKE_TRANSCRIPT, startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { entitySentences } from '../../src/shared/entities/index.js';

type Json = Reply['body'];
const TEXT = 'Call the Acme office.';
const LOOP = 'thank you thank you thank you thank you thank you';

let s: TestServer;
let talker: FakeVendor;
let looper: FakeVendor;
let booster: FakeVendor;
let dir: string;
let flite: string;
const post = (json: unknown) => call(s, 'POST', '/v1/evaluations', { key: s.key, json });
const body = (over: Record<string, unknown> = {}) => ({
  texts: [TEXT],
  speakers: { ids: [flite], seed: 4 },
  providers: ['stt-b', 'stt-c', 'stt-d', 'local-sphinx'],
  probes: { non_speech: { clips: 5, seconds: 1 }, entities: { types: ['digits', 'money'], per_type: 2 }, keyterms: { terms: ['Acme'] } },
  ...over,
});

beforeAll(async () => {
  talker = await startFakeVendor('openai');
  looper = await startFakeVendor('deepgram');
  looper.transcript = LOOP;
  booster = await startFakeVendor('deepgram', { script: { term: 'Acme', without: 'call the acne office', with: 'call the Acme office' } });
  dir = mkdtempSync(join(tmpdir(), 'voxctl-probes-'));
  const configPath = fakeProvidersConfig(dir, {
    'stt-b': { adapter: 'openai', model: 'whisper-1', fake: talker },
    'stt-c': { adapter: 'deepgram', model: 'nova-3', fake: looper },
    'stt-d': { adapter: 'deepgram', model: 'nova-3', fake: booster },
  });
  s = await startTestServer({ options: { configPath } });
  await promoteToEnterprise(s);
  flite = await fliteSpeaker(s.runtime.db);
});
afterAll(async () => {
  await s?.close();
  await Promise.all([talker?.close(), looper?.close(), booster?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('POST /v1/evaluations with probes (DESIGN §12)', () => {
  it('refuses bad probes with the field named, and stores nothing', async () => {
    const before = (await call(s, 'GET', '/v1/evaluations', { key: s.key })).body.total;
    const cases: [unknown, string][] = [
      [{ non_speech: { clips: 0 } }, 'probes.non_speech.clips must be 1..200'],
      [{ non_speech: { clips: 201 } }, 'probes.non_speech.clips must be 1..200'],
      [{ non_speech: { seconds: 31 } }, 'probes.non_speech.seconds must be 1..30'],
      [{ non_speech: { kinds: ['music'] } }, 'Unknown non-speech kind: music (expected one of silence, noise, hum, tone, dtmf)'],
      [{ entities: { types: ['zip'] } }, 'Unknown entity type: zip (expected one of digits, phone, number, money, date, time, email, code)'],
      [{ entities: { types: ['digits'], per_type: 0 } }, 'probes.entities.per_type must be 1..200'],
      [{ keyterms: { terms: [] } }, 'Keyterms must hold 1..100 terms'],
      [{ keyterms: { terms: ['ok', 'x'.repeat(51)] } }, 'Keyterm 1 must be 1..50 characters'],
    ];
    for (const [probes, detail] of cases) {
      const r = await post(body({ probes }));
      expect([r.status, r.body.detail], JSON.stringify(probes)).toEqual([400, detail]);
    }
    const noClean = await post(body({ conditions: ['telephone'], probes: { non_speech: {} } }));
    expect([noClean.status, noClean.body.detail]).toEqual([400, 'probes.non_speech needs the clean condition: the clips are heard as they are']);
    expect((await call(s, 'GET', '/v1/evaluations', { key: s.key })).body.total).toBe(before);
  });

  describe('an evaluation with every probe', () => {
    let ev: Json;
    let rows: Json[];
    const row = (provider: string, group = 'all') => ev.summary.find((r: Json) => r.provider === provider && r.condition === 'clean' && r.group === group);
    let charged: number;

    beforeAll(async () => {
      const before = await charactersUsed(s);
      const created = await post(body());
      expect(created.status, created.text).toBe(201);
      // (1 text + 2 × 2 entity sentences) × 1 speaker × 1 condition × 4 providers + 5 clips × 4 providers.
      expect(created.body.total_utterances).toBe(40);
      charged = (await charactersUsed(s)) - before;
      ev = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 240_000 });
      rows = (await call(s, 'GET', `/v1/evaluations/${ev.evaluation_id}/utterances?limit=100`, { key: s.key })).body.items;
    }, 260_000);

    it('completes, shows its probes with their defaults, and charges the spoken texts only', () => {
      expect(ev.status).toBe('completed');
      expect(ev.probes).toEqual({
        non_speech: { clips: 5, seconds: 1, kinds: ['silence', 'noise', 'hum', 'tone', 'dtmf'] },
        entities: { types: ['digits', 'money'], per_type: 2 },
        keyterms: { terms: ['Acme'] },
      });
      const sentences = entitySentences(['digits', 'money'], 2, 4);
      expect(charged).toBe([TEXT, ...sentences.map((x) => x.text)].reduce((n, t) => n + [...t].length, 0));
      expect(rows).toHaveLength(40);
    });

    it('stores each clip once per provider, under clean, with an empty reference and its kind', () => {
      const clips = rows.filter((u) => u.kind !== undefined);
      expect(clips).toHaveLength(20);
      for (const u of clips) expect(u).toMatchObject({ reference: '', condition: 'clean', speaker_id: null, wer: null });
      expect(new Set(clips.map((u) => u.kind))).toEqual(new Set(['silence', 'noise', 'hum', 'tone', 'dtmf']));
      expect(clips.filter((u) => u.provider === 'stt-b').every((u) => u.transcript === FAKE_TRANSCRIPT)).toBe(true);
    });

    it('counts hallucination per provider: the fake that always talks speaks on every clip', () => {
      expect(row('stt-b').non_speech).toEqual({
        clips: 5,
        clips_with_words: 5,
        hallucination_rate: 1,
        ci95: [1, 1],
        // 9 words on each of five 1-second clips: 45 words in 5 s.
        words_per_minute: 540,
        by_kind: { silence: 1, noise: 1, hum: 1, tone: 1, dtmf: 1 },
      });
      const sphinx = row('local-sphinx').non_speech;
      expect(sphinx.clips).toBe(5);
      expect(sphinx.hallucination_rate).toBe(sphinx.clips_with_words / 5);
      // Group rows and the WER figures leave the clips out.
      expect(row('stt-b').utterances).toBe(5);
      expect(row('stt-b', ev.summary.find((r: Json) => r.group !== 'all').group).non_speech).toBeUndefined();
    });

    it('flags loops on every utterance and caps their errors', () => {
      const looped = rows.filter((u) => u.provider === 'stt-c' && !u.kind);
      expect(looped.every((u) => u.loop === true)).toBe(true);
      expect(rows.filter((u) => u.provider === 'stt-b' && !u.kind).every((u) => u.loop === false)).toBe(true);
      const c = row('stt-c');
      expect(c.loops).toBe(5);
      expect(c.wer).toBeGreaterThan(1);
      // Each utterance's errors capped at its reference length: at most 1, whatever the loop inserted.
      expect(c.wer_capped).toBeLessThanOrEqual(1);
      expect(c.wer_capped).toBeGreaterThan(0.9);
      expect(row('stt-b').loops).toBe(0);
    });

    it('scores entities per type, and names each entity with what was found', () => {
      const entityRows = rows.filter((u) => u.entity !== undefined && u.provider === 'stt-b');
      expect(entityRows).toHaveLength(4);
      for (const u of entityRows) expect(u.entity).toMatchObject({ type: expect.stringMatching(/^(digits|money)$/), found: false });
      expect(row('stt-b').entities).toEqual({
        digits: { total: 2, found: 0, accuracy: 0, ci95: [0, 0] },
        money: { total: 2, found: 0, accuracy: 0, ci95: [0, 0] },
      });
      for (const r of ev.summary) expect(r.entities).toBeDefined();
    });

    it('measures keyterm lift with the vendor boosting parameter; unsupported where there is none', () => {
      expect(booster.keyterms.some((k) => k.includes('Acme'))).toBe(true);
      expect(row('stt-d').keyterms).toEqual({
        occurrences: 1,
        recall_without: 0,
        recall_with: 1,
        false_positives_without: 0,
        // The boosted fake hears "Acme" in the four entity sentences too, whose references lack it.
        false_positives_with: 4,
        wer_other_without: expect.any(Number),
        wer_other_with: expect.any(Number),
      });
      expect(row('local-sphinx').keyterms).toEqual({ unsupported: true });
      // No clip is ever boosted.
      expect(rows.filter((u) => u.kind !== undefined).every((u) => u.boosted_transcript === undefined)).toBe(true);
      expect(rows.find((u) => u.provider === 'stt-d' && u.reference === TEXT)!.boosted_transcript).toBe('call the Acme office');
    });

    it('shows the probe panels in the report: speaks on silence, the worst entity misses, keyterm lift', async () => {
      const html = await (await fetch(ev.report_url)).text();
      expect(html).toContain('Speaks on silence');
      expect(html).toContain('non-speech: 5 clips of 1 s');
      expect(html).toContain('Worst misses');
      expect(html).toContain('Keyterm lift');
      expect(html).toContain('unsupported: the vendor has no boosting parameter');
      // The first entity sentence's canonical value is listed as a miss with what was heard.
      expect(html).toContain(entitySentences(['digits', 'money'], 2, 4)[0]!.entity.value);
    });

    it('reruns with the same probes: the same sentences and clips', async () => {
      const r = await call(s, 'POST', `/v1/evaluations/${ev.evaluation_id}/rerun`, { key: s.key });
      expect(r.status, r.text).toBe(201);
      expect(r.body.total_utterances).toBe(40);
      const again = await pollEvaluation(s, r.body.evaluation_id, { timeoutMs: 240_000 });
      expect(again.probes).toEqual(ev.probes);
      const refs = async (id: string) =>
        ((await call(s, 'GET', `/v1/evaluations/${id}/utterances?limit=100&provider=stt-b`, { key: s.key })).body.items as Json[]).map((u) => `${u.reference}|${u.kind ?? ''}`);
      expect(await refs(again.evaluation_id)).toEqual(await refs(ev.evaluation_id));
      expect(again.summary.find((x: Json) => x.provider === 'stt-b' && x.group === 'all').non_speech).toEqual(row('stt-b').non_speech);
    }, 260_000);
  });
});
