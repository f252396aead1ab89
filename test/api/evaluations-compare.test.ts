/**
 * Evaluations over time (DESIGN §11) through the API, against loopback vendor fakes whose answers can be
 * made worse between two runs: the recorded setup, rerun, compare with its verdicts and 409s, cost.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { charactersUsed, fliteSpeakers, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { pollEvaluation } from '../helpers/evaluations.js';
import { FAKE_TRANSCRIPT, startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { decodeWavToPcm16 } from '../../src/server/audio/wav.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { reserveCharacters } from '../../src/server/features/limits/quota.js';
import { VERSION } from '../../src/shared/version.js';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const TEXTS = [FAKE_TRANSCRIPT, 'Turn left at the second traffic light.'];
const PRICE = 0.006;
const WORSE = 'Please call me after the meeting.';

describe('evaluations over time: setup, rerun, compare, cost', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-compare-'));
  const dataDir = join(dir, 'data');
  let s: TestServer;
  let openai: FakeVendor;
  let deepgram: FakeVendor;
  let speakers: string[];
  let base: Row;

  const writeConfig = (openaiModel: string) => {
    const file = join(dir, `voxctl.config.${openaiModel}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        stt: {
          providers: {
            'stt-b': { adapter: 'openai', model: openaiModel, base_url: openai.url, api_key_env: 'VOXCTL_CMP_OPENAI_KEY', price_per_minute_usd: PRICE, timeout_ms: 10_000 },
            'stt-c': { adapter: 'deepgram', model: 'nova-2', language: 'en', base_url: deepgram.url, api_key_env: 'VOXCTL_CMP_DEEPGRAM_KEY', timeout_ms: 10_000 },
          },
        },
      }),
    );
    return file;
  };
  const start = async (openaiModel: string) => {
    s = await startTestServer({ dataDir, options: { configPath: writeConfig(openaiModel) } });
    await promoteToEnterprise(s);
  };
  const get = async (path: string, key = s.key) => call(s, 'GET', path, { key });
  const post = async (path: string, json: unknown = {}, key = s.key) => call(s, 'POST', path, { key, json });
  const finished = (id: string) => pollEvaluation(s, id, { timeoutMs: 120_000 });
  const rerun = async (id: string): Promise<Row> => {
    const res = await post(`/v1/evaluations/${id}/rerun`);
    expect(res.status, res.text).toBe(201);
    return finished(res.body.evaluation_id);
  };
  const compare = (id: string, baseline: string, key = s.key) => get(`/v1/evaluations/${id}/compare?baseline=${baseline}`, key);
  const utterances = async (id: string): Promise<Row[]> => (await get(`/v1/evaluations/${id}/utterances?limit=100`)).body.items;

  beforeAll(async () => {
    openai = await startFakeVendor('openai');
    deepgram = await startFakeVendor('deepgram');
    process.env.VOXCTL_CMP_OPENAI_KEY = openai.key;
    process.env.VOXCTL_CMP_DEEPGRAM_KEY = deepgram.key;
    await start('whisper-1');
    const db = s.runtime.db;
    // 5 female and 5 male voices: every row has the 5 speakers a verdict needs (DESIGN §15.1).
    speakers = [...(await fliteSpeakers(db, 'slt', 5)), ...(await fliteSpeakers(db, 'rms', 3)), ...(await fliteSpeakers(db, 'awb', 2))];
    const created = await post('/v1/evaluations', { name: 'nightly', texts: TEXTS, speakers: { ids: speakers, group_by: 'gender', seed: 7 }, providers: ['stt-b', 'stt-c'] });
    expect(created.status, created.text).toBe(201);
    base = await finished(created.body.evaluation_id);
    expect(base.status).toBe('completed');
  }, 180_000);
  afterAll(async () => {
    await s.close();
    await Promise.all([openai.close(), deepgram.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the setup that produced the numbers, in the view and the report', async () => {
    expect(base.baseline_id).toBeNull();
    expect(base.setup).toEqual({
      voxctl_version: VERSION,
      normalizer: { name: 'basic', version: base.normalizer.version },
      providers: { 'stt-b': { adapter: 'openai', model: 'whisper-1', language: null }, 'stt-c': { adapter: 'deepgram', model: 'nova-2', language: 'en' } },
      conditions: ['clean'],
      seed: 7,
    });
    const listed = (await get('/v1/evaluations?limit=5')).body.items.find((e: Row) => e.evaluation_id === base.evaluation_id);
    expect(listed.setup).toEqual(base.setup);
    const html = await (await fetch(base.report_url)).text();
    // $0.006 a minute, written per audio hour like every cost of the report (DESIGN §15.7).
    expect(html).toContain('stt-b · openai whisper-1 · $0.36/h');
    expect(html).toContain('stt-c · deepgram nova-2 (en)');
    expect(html).toContain(`<dd id="setup-version">${VERSION}</dd>`);
  });

  it('adds audio seconds, cost (audio minutes × price) and RTFx to every summary row; the price is listed with the provider', async () => {
    const rows = await utterances(base.evaluation_id);
    // The seconds of the audio each provider heard, read back from the audio files themselves.
    const seconds = new Map<string, number>();
    for (const u of rows) {
      if (seconds.has(u.audio_url)) continue;
      const wav = decodeWavToPcm16(Buffer.from(await (await fetch(u.audio_url)).arrayBuffer()));
      seconds.set(u.audio_url, Math.round((wav.pcm.length / wav.sampleRate) * 1000) / 1000);
    }
    for (const r of base.summary as Row[]) {
      const mine = rows.filter((u) => u.provider === r.provider && (r.group === 'all' || u.group === r.group));
      const audio = mine.reduce((t, u) => t + seconds.get(u.audio_url)!, 0);
      expect(r.audio_seconds).toBeCloseTo(audio, 3);
      expect(r.rtfx).toBeCloseTo(r.audio_seconds / (mine.reduce((t, u) => t + u.latency_ms, 0) / 1000), 3);
      if (r.provider === 'stt-b') expect(r.cost_usd).toBe(Math.round((r.audio_seconds / 60) * PRICE * 1e6) / 1e6);
      else expect(r.cost_usd).toBeNull();
    }
    expect((base.summary as Row[]).find((r) => r.provider === 'stt-b' && r.group === 'all')!.cost_usd).toBeGreaterThan(0);
    const providers = (await get('/v1/stt/providers')).body.items as Row[];
    expect(providers.find((p) => p.id === 'stt-b')!.price_per_minute_usd).toBe(PRICE);
    expect(providers.find((p) => p.id === 'stt-c')).not.toHaveProperty('price_per_minute_usd');
  });

  it('reruns with the same texts, speaker ids, conditions, providers and seed; an unchanged vendor compares as no_change', async () => {
    const before = await charactersUsed(s);
    const again = await rerun(base.evaluation_id);
    expect(again).toMatchObject({ status: 'completed', baseline_id: base.evaluation_id, name: 'nightly', providers: base.providers, conditions: base.conditions, group_by: 'gender', seed: 7 });
    expect(again.setup).toEqual(base.setup);
    // Characters reserved as at creation: Σ text code points × speakers.
    expect((await charactersUsed(s)) - before).toBe(TEXTS.reduce((n, t) => n + [...t].length, 0) * speakers.length);
    const key = (u: Row) => `${u.text_index}|${u.speaker_id}|${u.provider}`;
    expect((await utterances(again.evaluation_id)).map(key).sort()).toEqual((await utterances(base.evaluation_id)).map(key).sort());

    const res = await compare(again.evaluation_id, base.evaluation_id);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ evaluation_id: again.evaluation_id, baseline_id: base.evaluation_id, matched_utterances: 40, changed_setup: [] });
    // Rows for group `all` and every group value (slt is female, rms and awb male).
    expect(res.body.rows.map((r: Row) => `${r.provider}/${r.group}`)).toEqual(['stt-b/all', 'stt-b/Female', 'stt-b/Male', 'stt-c/all', 'stt-c/Female', 'stt-c/Male']);
    for (const r of res.body.rows) {
      expect(r).toMatchObject({ condition: 'clean', difference: 0, ci95: [0, 0], p_worse: 0, verdict: 'no_change', speakers: r.group === 'all' ? 10 : 5, attempted: r.group === 'all' ? 20 : 10, failed_requests: 0 });
      expect(r.wer).toBe(r.wer_baseline);
    }
    expect(res.body.rows.find((r: Row) => r.group === 'Male').utterances).toBe(10);
  }, 150_000);

  it('names a vendor that got worse as regressed, and the same pair the other way round as improved', async () => {
    openai.transcript = WORSE;
    let worse: Row;
    try {
      worse = await rerun(base.evaluation_id);
    } finally {
      openai.transcript = FAKE_TRANSCRIPT;
    }
    const res = await compare(worse.evaluation_id, base.evaluation_id);
    expect(res.status, res.text).toBe(200);
    const row = (body: Row, provider: string, group = 'all') => body.rows.find((r: Row) => r.provider === provider && r.group === group);
    const b = row(res.body, 'stt-b');
    expect(b.verdict).toBe('regressed');
    expect(b.difference).toBeCloseTo(b.wer - b.wer_baseline, 3);
    expect(b.ci95[0]).toBeGreaterThan(0);
    expect(b.p_worse).toBe(1);
    expect(row(res.body, 'stt-b', 'Female').verdict).toBe('regressed');
    expect(row(res.body, 'stt-c')).toMatchObject({ verdict: 'no_change', difference: 0 });

    const back = await compare(base.evaluation_id, worse.evaluation_id);
    expect(back.status).toBe(200);
    expect(row(back.body, 'stt-b')).toMatchObject({ verdict: 'improved', difference: -b.difference, p_worse: 0 });

    // The report of an evaluation with a baseline shows the change, its interval and verdict.
    const html = await (await fetch(worse.report_url)).text();
    expect(html).toContain('id="baseline"');
    expect(html).toMatch(/id="baseline-rows"[\s\S]*?<tr><td>stt-b<\/td><td>clean<\/td>[^\n]*\n[^\n]*<td class="regressed">regressed<\/td>/);
    expect(html).toContain('id="cost"');
  }, 150_000);

  it('the same regression on 3 speakers is inconclusive, never no_change (DESIGN §15.1)', async () => {
    const few = await post('/v1/evaluations', { texts: TEXTS, speakers: { ids: speakers.slice(4, 7), seed: 7 }, providers: ['stt-b', 'stt-c'] });
    const baseline = await finished(few.body.evaluation_id);
    openai.transcript = WORSE;
    let worse: Row;
    try {
      worse = await rerun(baseline.evaluation_id);
    } finally {
      openai.transcript = FAKE_TRANSCRIPT;
    }
    const res = await compare(worse.evaluation_id, baseline.evaluation_id);
    const all = res.body.rows.find((r: Row) => r.group === 'all');
    expect(all).toMatchObject({ speakers: 3, verdict: 'inconclusive' });
    expect(all.difference).toBeGreaterThan(0);
    // The evaluation's own pairwise comparisons follow the same rule.
    expect(worse.comparisons.every((c: Row) => c.verdict === 'inconclusive' && c.speakers === 3)).toBe(true);
  }, 150_000);

  it('matches on the text, not its index: a reordered and changed text list matches the common text only', async () => {
    const created = await post('/v1/evaluations', { texts: ['A brand new sentence for tonight.', TEXTS[1]], speakers: { ids: speakers, group_by: 'gender', seed: 7 }, providers: ['stt-b', 'stt-c'] });
    expect(created.status, created.text).toBe(201);
    const other = await finished(created.body.evaluation_id);
    const res = await compare(other.evaluation_id, base.evaluation_id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.matched_utterances).toBe(speakers.length * 2);
    expect(res.body.rows.every((r: Row) => r.verdict === 'no_change')).toBe(true);
  }, 120_000);

  it('409: unfinished, different normaliser, nothing in common', async () => {
    openai.delayMs = 5_000;
    const pending = await post(`/v1/evaluations/${base.evaluation_id}/rerun`);
    expect(pending.status).toBe(201);
    const id = pending.body.evaluation_id;
    for (const [a, b] of [
      [id, base.evaluation_id],
      [base.evaluation_id, id],
    ]) {
      const res = await compare(a, b);
      expect(res.status).toBe(409);
      expect(res.body.detail).toBe(`Evaluation ${id} is not finished`);
    }
    expect((await post(`/v1/evaluations/${id}/cancel`)).body.status).toBe('cancelled');
    openai.delayMs = 0;
    expect((await compare(id, base.evaluation_id)).body.detail).toBe(`Evaluation ${id} is not finished`);

    const whisper = await post('/v1/evaluations', { texts: TEXTS, speakers: { ids: speakers.slice(0, 1) }, providers: ['stt-c'], normalizer: 'whisper-en' });
    const w = await finished(whisper.body.evaluation_id);
    const res = await compare(w.evaluation_id, base.evaluation_id);
    expect(res.status).toBe(409);
    expect(res.body.detail).toBe('Evaluations use different normalizers: basic vs whisper-en');

    const unrelated = await post('/v1/evaluations', { texts: ['Nothing like the others.'], speakers: { ids: speakers.slice(0, 1) }, providers: ['stt-c'] });
    const u = await finished(unrelated.body.evaluation_id);
    const none = await compare(u.evaluation_id, base.evaluation_id);
    expect(none.status).toBe(409);
    expect(none.body.detail).toBe('No utterances in common');
  }, 150_000);

  it('a rerun takes an optional name (DESIGN §15.8): given, kept from the baseline, or refused out of 1..200', async () => {
    const named = await post(`/v1/evaluations/${base.evaluation_id}/rerun`, { name: 'nightly 2026-11-28' });
    expect(named.status, named.text).toBe(201);
    expect((await get(`/v1/evaluations/${named.body.evaluation_id}`)).body.name).toBe('nightly 2026-11-28');
    // No body at all, as before `name` existed: the baseline's name.
    const bare = await call(s, 'POST', `/v1/evaluations/${base.evaluation_id}/rerun`, { key: s.key });
    expect(bare.status, bare.text).toBe(201);
    expect((await get(`/v1/evaluations/${bare.body.evaluation_id}`)).body.name).toBe('nightly');
    const count = (await get('/v1/evaluations')).body.total;
    for (const name of ['', 'x'.repeat(201)]) {
      const refused = await post(`/v1/evaluations/${base.evaluation_id}/rerun`, { name });
      expect(refused.status).toBe(400);
      expect(refused.body.detail).toBe('Name must be 1 to 200 characters');
    }
    expect((await post(`/v1/evaluations/${base.evaluation_id}/rerun`, { name: 7 })).status).toBe(400);
    expect((await get('/v1/evaluations')).body.total).toBe(count);
    for (const id of [named.body.evaluation_id, bare.body.evaluation_id]) await post(`/v1/evaluations/${id}/cancel`);
    const paths = (await get('/openapi.json')).body.paths;
    expect(paths['/v1/evaluations/{evaluation_id}/rerun'].post.requestBody.content['application/json'].schema.properties).toHaveProperty('name');
  }, 60_000);

  it('scores of basic v1 and v2 are not compared (DESIGN §15.6): a stored v1 evaluation keeps reading as v1', async () => {
    expect(base.normalizer).toEqual({ name: 'basic', version: 2 });
    expect(base.setup.normalizer).toEqual({ name: 'basic', version: 2 });
    // An evaluation stored before version 2: its column and its recorded setup say 1.
    const old = await rerun(base.evaluation_id);
    const setup = { ...old.setup, normalizer: { name: 'basic', version: 1 } };
    await s.runtime.db.run('UPDATE evaluations SET normalizer_version = ?, setup = ? WHERE id = ?', [1, JSON.stringify(setup), old.evaluation_id]);
    const stored = (await get(`/v1/evaluations/${old.evaluation_id}`)).body;
    expect([stored.normalizer, stored.setup.normalizer]).toEqual([{ name: 'basic', version: 1 }, { name: 'basic', version: 1 }]);
    for (const [a, b, detail] of [
      [base.evaluation_id, old.evaluation_id, 'Evaluations use different normalizers: basic v1 vs basic v2'],
      [old.evaluation_id, base.evaluation_id, 'Evaluations use different normalizers: basic v2 vs basic v1'],
    ] as const) {
      const res = await compare(a, b);
      expect(res.status).toBe(409);
      expect(res.body.detail).toBe(detail);
    }
    // A rerun of it is scored by today's basic, so it too is refused against its baseline, never mixed.
    const again = await rerun(old.evaluation_id);
    expect(again.normalizer).toEqual({ name: 'basic', version: 2 });
    expect((await compare(again.evaluation_id, old.evaluation_id)).body.detail).toBe('Evaluations use different normalizers: basic v1 vs basic v2');
  }, 150_000);

  it("404 for another user's evaluation (rerun and compare either way), 400 without a baseline, 429 when the quota cannot hold a rerun", async () => {
    const other = await createUserWithKey(s.runtime.db, { email: 'other-compare@example.com', tier: 'free', now: new Date() });
    const key = other.key.key;
    for (const res of [
      await post(`/v1/evaluations/${base.evaluation_id}/rerun`, {}, key),
      await compare(base.evaluation_id, base.evaluation_id, key),
      await post('/v1/evaluations', { texts: ['Hi there.'], speakers: { ids: speakers.slice(0, 1) }, providers: ['stt-c'], baseline_id: base.evaluation_id }, key),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.detail).toBe('Evaluation not found');
    }
    const mine = await post('/v1/evaluations', { texts: ['Hi there.'], speakers: { ids: speakers.slice(0, 1) }, providers: ['stt-c'] }, key);
    expect(mine.status, mine.text).toBe(201);
    for (const [a, b] of [
      [mine.body.evaluation_id, base.evaluation_id],
      [base.evaluation_id, mine.body.evaluation_id],
    ]) {
      expect((await compare(a, b, key)).status).toBe(404);
      expect((await compare(a, b)).status).toBe(404);
    }
    expect((await get(`/v1/evaluations/${base.evaluation_id}/compare`)).status).toBe(400);
    // Both endpoints are in the OpenAPI document with their answers.
    const paths = (await get('/openapi.json')).body.paths;
    expect(Object.keys(paths['/v1/evaluations/{evaluation_id}/rerun'].post.responses)).toEqual(expect.arrayContaining(['201', '404', '429']));
    expect(Object.keys(paths['/v1/evaluations/{evaluation_id}/compare'].get.responses)).toEqual(expect.arrayContaining(['200', '404', '409']));
    expect((await post('/v1/evaluations/ev_nope/rerun')).body.detail).toBe('Evaluation not found');

    // 'Hi there.' is 9 characters: leave 8 of the free tier's 10,000.
    await reserveCharacters(s.runtime.db, { userId: other.user.id, characters: 10_000 - 9 - 8, now: new Date() });
    const listed = async () => (await get('/v1/evaluations', key)).body.total;
    const count = await listed();
    const refused = await post(`/v1/evaluations/${mine.body.evaluation_id}/rerun`, {}, key);
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toBe('Character quota exceeded for this billing period');
    expect(await listed()).toBe(count);
  }, 120_000);

  it('names what changed in the setup after a binding switches model (server restarted with a new config)', async () => {
    await s.close();
    await start('gpt-4o-transcribe');
    const next = await rerun(base.evaluation_id);
    expect(next.setup.providers['stt-b']).toEqual({ adapter: 'openai', model: 'gpt-4o-transcribe', language: null });
    const res = await compare(next.evaluation_id, base.evaluation_id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.changed_setup).toEqual(['stt-b model whisper-1 → gpt-4o-transcribe']);
    expect(res.body.rows.every((r: Row) => r.verdict === 'no_change')).toBe(true);
  }, 150_000);
});
