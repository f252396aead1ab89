import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { charactersUsed, espeakSpeaker, fliteSpeaker, postMultipart, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { failingVendorConfig, pollEvaluation } from '../helpers/evaluations.js';

// `stt-b` is bound to a fake vendor that answers 500 at once (helpers/evaluations.ts): a configured
// provider whose every request fails, so these tests exercise the API rules without spending the
// machine's CPU on recognition. Nothing else but local-sphinx is configured.
const FAILING = 'stt-b';
let vendor: Awaited<ReturnType<typeof failingVendorConfig>>;

let s: TestServer;
let flite: string;
let espeak: string;
const post = (json: unknown, key = s.key) => call(s, 'POST', '/v1/evaluations', { key, json });
const body = (over: Record<string, unknown> = {}) => ({
  texts: ['The quick brown fox jumps over the lazy dog.'],
  speakers: { ids: [flite] },
  providers: [FAILING],
  ...over,
});
/** A second user's full-scope key. */
const newUser = async (email: string, tier = 'pro'): Promise<string> => (await createUserWithKey(s.runtime.db, { email, tier, now: new Date() })).key.key;
const expect400 = async (json: unknown, detail: string) => {
  const r = await post(json);
  expect(r.status, r.text).toBe(400);
  expect(r.body.detail).toBe(detail);
};

beforeAll(async () => {
  vendor = await failingVendorConfig();
  s = await startTestServer({ options: { configPath: vendor.configPath } });
  await promoteToEnterprise(s);
  flite = await fliteSpeaker(s.runtime.db);
  espeak = await espeakSpeaker(s.runtime.db);
});
afterAll(async () => {
  await s.close();
  await vendor.close();
});

describe('POST /v1/evaluations (DESIGN §8.1)', () => {
  it('answers 201 with the id, pending status, utterance count and creation time', async () => {
    const r = await post(body({ texts: ['One.', 'Two words.'], speakers: { ids: [flite, espeak] }, conditions: ['clean', 'telephone', 'noise:5'] }));
    expect(r.status, r.text).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['created_at', 'evaluation_id', 'status', 'total_utterances']);
    expect(r.body).toMatchObject({ status: 'pending', total_utterances: 2 * 2 * 3 * 1 });
    expect(r.body.evaluation_id).toMatch(/^ev_[A-Za-z0-9_-]{20}$/);
    expect(Number.isNaN(Date.parse(r.body.created_at))).toBe(false);
  });

  it('checks every text by rule 6, prefixed with its index', async () => {
    await expect400(body({ texts: ['Fine.', '   '] }), 'Text 1: Text must not be empty');
    await expect400(body({ texts: ['x'.repeat(2001)] }), 'Text 0: Text exceeds maximum length of 2000 characters');
    // 2,000 code points of astral letters (CJK Extension B) are 4,000 UTF-16 units and still allowed.
    expect((await post(body({ texts: ['\u{20000}'.repeat(2000)] }))).status).toBe(201);
    await expect400(body({ texts: ['Fine.', '😀😀'] }), 'Text 1: Text has nothing to speak');
    const lone = await post(body({ texts: ['\ud800 lone'] }));
    expect([lone.status, lone.body.detail]).toEqual([400, 'Invalid body.texts.0: must not contain a lone surrogate']);
    await expect400(body({ texts: [] }), 'Evaluation must contain at least one text');
    await expect400(body({ texts: Array.from({ length: 501 }, () => 'Hi.') }), 'Evaluation exceeds maximum of 500 texts');
    await expect400(body({ texts: ['(laughs)'], normalizer: 'whisper-en' }), 'Text 0: Reference must contain at least one word');
  });

  it('takes exactly one of texts and dataset_id; a dataset of another user is not found', async () => {
    await expect400({ ...body(), dataset_id: 'ds_x' }, 'Provide exactly one of texts, dataset_id or corpus_id');
    const { texts: _, ...noTexts } = body();
    await expect400(noTexts, 'Provide exactly one of texts, dataset_id or corpus_id');
    const missing = await post({ ...noTexts, dataset_id: 'ds_missing' });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('Dataset not found');

    const upload = await postMultipart(s, '/v1/datasets/upload', {
      file: { bytes: `text,speaker_id\nFirst row.,${flite}\nSecond row.,${flite}\nThird row.,${flite}\n`, name: 'd.csv', type: 'text/csv' },
      fields: { name: 'eval texts' },
    });
    expect(upload.status, upload.text).toBe(201);
    const fromDataset = await post({ ...noTexts, dataset_id: upload.body.dataset_id, speakers: { ids: [flite, espeak] } });
    expect(fromDataset.status, fromDataset.text).toBe(201);
    expect(fromDataset.body.total_utterances).toBe(3 * 2);

    const foreign = await post({ ...noTexts, dataset_id: upload.body.dataset_id }, await newUser('ds-other@example.com'));
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toBe('Dataset not found');
  });

  it('checks speaker ids: known, distinct, 1..100', async () => {
    const r = await post(body({ speakers: { ids: [flite, 'spk_nope'] } }));
    expect(r.status).toBe(404);
    expect(r.body.detail).toBe('Speaker not found: spk_nope');
    await expect400(body({ speakers: { ids: [flite, flite] } }), `Duplicate speaker: ${flite}`);
    await expect400(body({ speakers: { ids: [] } }), 'Speakers must contain at least one id');
    await expect400(body({ speakers: { ids: Array.from({ length: 101 }, (_, i) => `spk_${i}`) } }), 'Speakers exceed maximum of 100 ids');
    await expect400(body({ speakers: {} }), 'Provide exactly one of speakers.ids or speakers.filter');
    await expect400(body({ speakers: { ids: [flite], filter: {} } }), 'Provide exactly one of speakers.ids or speakers.filter');
  });

  it('selects speakers by filter, group_by and per_group; an empty match is 400', async () => {
    await expect400(body({ speakers: { filter: { region: 'Atlantis' }, group_by: 'accent', per_group: 2 } }), 'No speakers match the filter');
    await expect400(body({ speakers: { filter: { region: 'Europe' } } }), 'speakers.group_by and speakers.per_group are required with speakers.filter');
    for (const per_group of [0, 21, 1.5]) {
      expect((await post(body({ speakers: { filter: {}, group_by: 'engine', per_group } }))).status).toBe(400);
    }
    expect((await post(body({ speakers: { filter: {}, group_by: 'voice', per_group: 1 } }))).status).toBe(400);
    const misspelt = await post(body({ speakers: { filter: { regoin: 'Europe' }, group_by: 'accent', per_group: 1 } }));
    expect(misspelt.status).toBe(400);
    expect(misspelt.body.errors[0].loc).toEqual(['body', 'speakers', 'filter']);
    // Two engines × 3 speakers each.
    const r = await post(body({ speakers: { filter: {}, group_by: 'engine', per_group: 3, seed: 7 } }));
    expect(r.status, r.text).toBe(201);
    expect(r.body.total_utterances).toBe(6);
    const detail = (await call(s, 'GET', `/v1/evaluations/${r.body.evaluation_id}`, { key: s.key })).body;
    expect(detail).toMatchObject({ group_by: 'engine', seed: 7 });
  });

  it('selects speakers by engine too: a filter key and a group_by', async () => {
    const r = await post(body({ speakers: { filter: { engine: 'Flite' }, group_by: 'accent', per_group: 1 } }));
    expect(r.status, r.text).toBe(201);
    const speakers = await call(s, 'GET', `/v1/evaluations/${r.body.evaluation_id}/utterances?limit=100`, { key: s.key });
    const ids: string[] = [...new Set<string>(speakers.body.items.map((u: { speaker_id: string }) => u.speaker_id))];
    await call(s, 'POST', `/v1/evaluations/${r.body.evaluation_id}/cancel`, { key: s.key });
    const fliteAccents = (await call(s, 'GET', '/v1/speakers?engine=flite&limit=100')).body.items as { accent: string; engine: string }[];
    expect(r.body.total_utterances).toBe(new Set(fliteAccents.map((x) => x.accent)).size);
    for (const id of ids) expect((await call(s, 'GET', `/v1/speakers/${id}`, { key: s.key })).body.engine).toBe('flite');
    await expect400(body({ speakers: { filter: { engine: 'festival' }, group_by: 'engine', per_group: 1 } }), 'No speakers match the filter');
  });

  it('checks providers: 1..10 distinct known names', async () => {
    await expect400(body({ providers: ['nope'] }), 'Unknown provider: nope');
    await expect400(body({ providers: [] }), 'At least one provider is required');
    await expect400(body({ providers: ['local-sphinx', 'local-sphinx'] }), 'Duplicate provider: local-sphinx');
    await expect400(body({ providers: Array.from({ length: 11 }, () => 'local-sphinx') }), 'At most 10 providers can be evaluated at once');
    const r = await post(body({ providers: [FAILING, 'local-sphinx'] }));
    expect(r.status, r.text).toBe(201);
    expect(r.body.total_utterances).toBe(2);
    await call(s, 'POST', `/v1/evaluations/${r.body.evaluation_id}/cancel`, { key: s.key });
  });

  it('refuses a provider the server has not configured, after the unknown names, storing and charging nothing', async () => {
    const before = await charactersUsed(s);
    const listed = (await call(s, 'GET', '/v1/evaluations', { key: s.key })).body.total;
    const all = ['stt-a-model-1', 'stt-a-model-2', 'stt-b', 'stt-c', 'stt-d', 'stt-e', 'stt-f', 'stt-g', 'stt-h', 'local-sphinx'];
    await expect400(body({ providers: all }), 'Provider not configured: stt-a-model-1');
    await expect400(body({ providers: [FAILING, 'stt-c'] }), 'Provider not configured: stt-c');
    await expect400(body({ providers: ['stt-c', 'nope'] }), 'Unknown provider: nope');
    await expect400(body({ providers: ['stt-c', 'stt-c'] }), 'Duplicate provider: stt-c');
    expect(await charactersUsed(s)).toBe(before);
    expect((await call(s, 'GET', '/v1/evaluations', { key: s.key })).body.total).toBe(listed);
    // What the API says is configured is what creation accepts; views label providers with adapter and model.
    const shown = (await call(s, 'GET', '/v1/evaluations?limit=1', { key: s.key })).body.items[0];
    expect(shown.provider_labels).toEqual(Object.fromEntries(shown.providers.map((p: string) => [p, p === FAILING ? 'stt-b · deepgram nova-3' : 'local-sphinx · en-us'])));
    const states = (await call(s, 'GET', '/v1/stt/providers', { key: s.key })).body.items as { id: string; state: string }[];
    expect(states.filter((p) => p.state !== 'not_configured').map((p) => p.id)).toEqual([FAILING, 'local-sphinx']);
  });

  it('checks conditions: known forms and ranges, 1..8 distinct, default clean', async () => {
    for (const c of ['echo', 'noise:41', 'noise:-11', 'noise:', 'speed:2.5', 'speed:0.4', 'speed:fast', 'Clean', 'noise:1e1']) {
      await expect400(body({ conditions: [c] }), `Unknown condition: ${c}`);
    }
    await expect400(body({ conditions: [] }), 'At least one condition is required');
    await expect400(body({ conditions: ['noise:5', 'noise:5.0'] }), 'Duplicate condition: noise:5.0');
    const nine = ['clean', 'telephone', 'noise:0', 'noise:5', 'noise:10', 'speed:0.5', 'speed:1.5', 'speed:2', 'noise:-10'];
    await expect400(body({ conditions: nine }), 'At most 8 conditions can be evaluated at once');
    const r = await post(body({ conditions: ['noise:-10', 'noise:40', 'speed:0.5', 'speed:2.0'] }));
    expect(r.status, r.text).toBe(201);
    const detail = (await call(s, 'GET', `/v1/evaluations/${r.body.evaluation_id}`, { key: s.key })).body;
    expect(detail.conditions).toEqual(['noise:-10', 'noise:40', 'speed:0.5', 'speed:2']);
    const plain = await post(body());
    const plainDetail = (await call(s, 'GET', `/v1/evaluations/${plain.body.evaluation_id}`, { key: s.key })).body;
    expect(plainDetail.conditions).toEqual(['clean']);
  });

  it('takes the normalizer basic (default) or whisper-en, with its version; a name of 1..200 characters', async () => {
    expect((await post(body({ normalizer: 'nope' }))).status).toBe(400);
    const r = await post(body({ normalizer: 'whisper-en', name: 'Nightly' }));
    expect(r.status, r.text).toBe(201);
    const detail = (await call(s, 'GET', `/v1/evaluations/${r.body.evaluation_id}`, { key: s.key })).body;
    expect(detail.name).toBe('Nightly');
    expect(detail.normalizer).toEqual({ name: 'whisper-en', version: expect.any(Number) });
    await expect400(body({ name: '' }), 'Name must be 1 to 200 characters');
    await expect400(body({ name: 'n'.repeat(201) }), 'Name must be 1 to 200 characters');
  });

  it('refuses more than 20,000 utterances; exactly 20,000 is accepted', async () => {
    const texts = Array.from({ length: 500 }, (_, i) => `Text ${i}.`);
    const conditions = ['clean', 'telephone', 'noise:0', 'noise:5', 'noise:10', 'speed:0.5', 'speed:1.5', 'speed:2'];
    const ids = (n: number) => s.runtime.db.column<string>('SELECT id FROM speakers ORDER BY seq LIMIT ?', [n]);
    await expect400(body({ texts, conditions, speakers: { ids: await ids(6) } }), 'Evaluation exceeds 20000 utterances');
    // The same limit holds for a selection by filter (2 engines × 6 speakers × 500 texts × 8 conditions).
    await expect400(body({ texts, conditions, speakers: { filter: {}, group_by: 'engine', per_group: 6 } }), 'Evaluation exceeds 20000 utterances');
    const before = (await call(s, 'GET', '/v1/evaluations?limit=1', { key: s.key })).body.total;
    const ok = await post(body({ texts, conditions, speakers: { ids: await ids(5) } }));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.total_utterances).toBe(20_000);
    expect((await call(s, 'POST', `/v1/evaluations/${ok.body.evaluation_id}/cancel`, { key: s.key })).status).toBe(200);
    expect((await call(s, 'GET', '/v1/evaluations?limit=1', { key: s.key })).body.total).toBe(before + 1);
  });

  it('needs a full-scope key: read keys get 403, no key 401', async () => {
    const created = await call(s, 'POST', '/v1/keys', { key: s.key, json: { scope: 'read' } });
    const readKey = created.body.key as string;
    const r = await post(body(), readKey);
    expect(r.status).toBe(403);
    expect(r.body.detail).toBe('Insufficient permissions');
    expect((await call(s, 'GET', '/v1/evaluations', { key: readKey })).status).toBe(200);
    const any = (await call(s, 'GET', '/v1/evaluations?limit=1', { key: s.key })).body.items[0].evaluation_id;
    expect((await call(s, 'POST', `/v1/evaluations/${any}/cancel`, { key: readKey })).status).toBe(403);
    expect((await call(s, 'POST', '/v1/evaluations', { json: body() })).status).toBe(401);
  });

  it('answers 403 to a cancelled subscription, as synthesis does', async () => {
    const key = await newUser('cancelled-sub@example.com');
    await s.runtime.db.run(`UPDATE users SET subscription_status = 'cancelled' WHERE email = ?`, ['cancelled-sub@example.com']);
    const r = await post(body(), key);
    expect(r.status).toBe(403);
    expect(r.body.detail).toBe('Subscription is cancelled');
  });

  it('reserves Σ text characters × speakers at creation, and answers 429 storing nothing when the quota cannot hold them', async () => {
    const user = { key: await newUser('quota-eval@example.com', 'free') };
    const text = 'a'.repeat(2000);
    const tooMuch = await post(body({ texts: [text, text, text], speakers: { ids: [flite, espeak] } }), user.key);
    expect(tooMuch.status).toBe(429);
    expect(tooMuch.body.detail).toBe('Character quota exceeded for this billing period');
    expect(await charactersUsed(s, user.key)).toBe(0);
    expect((await call(s, 'GET', '/v1/evaluations', { key: user.key })).body.total).toBe(0);

    const fits = await post(body({ texts: [text, 'Hello there.'], speakers: { ids: [flite, espeak] } }), user.key);
    expect(fits.status, fits.text).toBe(201);
    expect(await charactersUsed(s, user.key)).toBe((2000 + 12) * 2);
  });
});

describe('reading evaluations', () => {
  const other = { key: '' };
  let mine: string;
  beforeAll(async () => {
    other.key = await newUser('reader-other@example.com');
    mine = (await post(body({ name: 'mine' }))).body.evaluation_id;
  });

  it('lists newest first in the paging envelope, with a status filter and paging limits', async () => {
    const a = (await post(body({ name: 'older' }))).body.evaluation_id;
    const b = (await post(body({ name: 'newer' }))).body.evaluation_id;
    const page = (await call(s, 'GET', '/v1/evaluations?limit=2', { key: s.key })).body;
    expect(Object.keys(page).sort()).toEqual(['has_more', 'items', 'limit', 'offset', 'total']);
    expect(page.items.map((e: { evaluation_id: string }) => e.evaluation_id)).toEqual([b, a]);
    expect(page).toMatchObject({ limit: 2, offset: 0, has_more: true });
    expect(page.items[0]).toMatchObject({ name: 'newer', providers: [FAILING], conditions: ['clean'], group_by: 'accent' });
    expect(page.items[0].summary).toBeUndefined();
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'status=running']) {
      expect((await call(s, 'GET', `/v1/evaluations?${q}`, { key: s.key })).status).toBe(400);
    }
    await call(s, 'POST', `/v1/evaluations/${a}/cancel`, { key: s.key });
    const cancelled = (await call(s, 'GET', '/v1/evaluations?status=cancelled&limit=100', { key: s.key })).body;
    expect(cancelled.items.length).toBeGreaterThan(0);
    expect(cancelled.items.every((e: { status: string }) => e.status === 'cancelled')).toBe(true);
  });

  it("hides other users' evaluations: 404 Evaluation not found everywhere, empty lists", async () => {
    for (const [method, path] of [
      ['GET', `/v1/evaluations/${mine}`],
      ['GET', `/v1/evaluations/${mine}/utterances`],
      ['POST', `/v1/evaluations/${mine}/cancel`],
      ['GET', '/v1/evaluations/ev_doesnotexist0000000'],
    ] as const) {
      const r = await call(s, method, path, { key: other.key });
      expect(r.status, path).toBe(404);
      expect(r.body.detail).toBe('Evaluation not found');
    }
    expect((await call(s, 'GET', '/v1/evaluations', { key: other.key })).body.total).toBe(0);
    expect((await call(s, 'GET', `/v1/evaluations/${mine}`, { key: s.key })).body.status).not.toBe('cancelled');
  });

  it('documents every evaluation route in /openapi.json', async () => {
    const doc = (await call(s, 'GET', '/openapi.json')).body;
    for (const path of [
      '/v1/evaluations',
      '/v1/evaluations/{evaluation_id}',
      '/v1/evaluations/{evaluation_id}/utterances',
      '/v1/evaluations/{evaluation_id}/cancel',
      '/v1/evaluations/{evaluation_id}/report.html',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(doc.paths['/v1/evaluations'].post.responses['201']).toBeDefined();
  });
});

describe('cancel (DESIGN §8.2)', () => {
  it('cancels a running evaluation, refunds the characters never synthesised, and stops its work', async () => {
    const user = { key: await newUser('cancel@example.com') };
    const texts = Array.from({ length: 60 }, (_, i) => `Cancel me, sentence number ${i}.`);
    const perText = texts.map((t) => [...t].length);
    const created = await post(body({ texts, speakers: { ids: [flite, espeak] } }), user.key);
    expect(created.status, created.text).toBe(201);
    const id = created.body.evaluation_id as string;
    const r = await call(s, 'POST', `/v1/evaluations/${id}/cancel`, { key: user.key });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ evaluation_id: id, status: 'cancelled' });
    expect(r.body.summary).toBeUndefined();

    await s.runtime.evaluations!.idle();
    // Exactly the syntheses made before the cancel stay charged.
    const made = await s.runtime.db.column<number>('SELECT text_index FROM evaluation_syntheses WHERE evaluation_id = ? AND synthesized = 1', [id]);
    expect(made.length).toBeLessThan(texts.length * 2);
    expect(await charactersUsed(s, user.key)).toBe(made.reduce((n, t) => n + perText[t]!, 0));
    const after = (await call(s, 'GET', `/v1/evaluations/${id}`, { key: user.key })).body;
    expect(after.status).toBe('cancelled');
    expect(after.completed_utterances).toBeLessThan(after.total_utterances);

    // Cancelling again changes nothing; a finished evaluation cannot be cancelled.
    const again = await call(s, 'POST', `/v1/evaluations/${id}/cancel`, { key: user.key });
    expect(again.status).toBe(200);
    expect(await charactersUsed(s, user.key)).toBe(made.reduce((n, t) => n + perText[t]!, 0));
    const small = (await post(body(), user.key)).body.evaluation_id as string;
    const done = await pollEvaluation(s, small, { key: user.key });
    expect(done.status).toBe('completed');
    const late = await call(s, 'POST', `/v1/evaluations/${small}/cancel`, { key: user.key });
    expect(late.status).toBe(409);
    expect(late.body.detail).toBe('Evaluation is already completed');
  });
});

describe('utterances and the report', () => {
  let id: string;
  let detail: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  beforeAll(async () => {
    const created = await post(body({ texts: ['One two three.', 'Four five six.'], speakers: { ids: [flite, espeak], group_by: 'engine' }, conditions: ['clean', 'speed:1.5'] }));
    id = created.body.evaluation_id;
    detail = await pollEvaluation(s, id);
  });

  it('records provider errors per utterance and counts them as failed requests, not a job failure', async () => {
    expect(detail).toMatchObject({ status: 'completed', progress: 100, completed_utterances: 8, total_utterances: 8 });
    expect(detail.summary).toHaveLength(2 * 3);
    for (const row of detail.summary) {
      expect(row).toMatchObject({ provider: FAILING, utterances: 0, wer: null, failed_requests: row.group === 'all' ? 4 : 2 });
    }
    expect(detail.comparisons).toEqual([]);
  });

  it('lists utterances in order with every field, filtered by provider, condition and group', async () => {
    const page = (await call(s, 'GET', `/v1/evaluations/${id}/utterances?limit=100`, { key: s.key })).body;
    expect(page.total).toBe(8);
    const first = page.items[0];
    expect(Object.keys(first).sort()).toEqual(
      ['audio_url', 'confidence', 'condition', 'deletions', 'determinable', 'error', 'group', 'insertions', 'latency_ms', 'loop', 'provider', 'reference', 'speaker_id', 'substitutions', 'text_index', 'transcript', 'wer'].sort(),
    );
    expect(first).toMatchObject({ text_index: 0, speaker_id: flite, group: 'flite', condition: 'clean', provider: FAILING, reference: 'One two three.', transcript: null, determinable: false });
    expect(first.error.code).toBe('upstream_error');
    expect(page.items.map((u: { text_index: number; condition: string }) => `${u.text_index}${u.condition}`)).toEqual(
      ['0clean', '0speed:1.5', '0clean', '0speed:1.5', '1clean', '1speed:1.5', '1clean', '1speed:1.5'],
    );
    const audio = await fetch(first.audio_url);
    expect(audio.status).toBe(200);
    expect(audio.headers.get('content-type')).toBe('audio/wav');

    const q = async (query: string) => (await call(s, 'GET', `/v1/evaluations/${id}/utterances?${query}`, { key: s.key })).body;
    expect((await q('condition=speed:1.5')).total).toBe(4);
    expect((await q('condition=speed:1.50')).total).toBe(4);
    expect((await q('condition=telephone')).total).toBe(0);
    expect((await q('group=espeak')).total).toBe(4);
    // Group values match case-insensitively, on SQLite and PostgreSQL alike.
    expect((await q('group=ESPeak')).total).toBe(4);
    expect((await q(`provider=${FAILING}&group=flite&condition=clean`)).total).toBe(2);
    expect((await q('provider=local-sphinx')).total).toBe(0);
    expect((await q('errors_only=true')).total).toBe(8);
    expect((await q('determinable_only=true')).total).toBe(0);
    const bad = await call(s, 'GET', `/v1/evaluations/${id}/utterances?provider=nope`, { key: s.key });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe('Unknown provider: nope');
    const badCondition = await call(s, 'GET', `/v1/evaluations/${id}/utterances?condition=echo`, { key: s.key });
    expect(badCondition.body.detail).toBe('Unknown condition: echo');
    expect((await call(s, 'GET', `/v1/evaluations/${id}/utterances?limit=101`, { key: s.key })).status).toBe(400);
  });

  it('serves the report through its signed URL without a key; tampered 403, expired 410, unknown 404', async () => {
    const res = await fetch(detail.report_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('<svg');
    const url = new URL(detail.report_url);
    expect(url.pathname).toBe(`/v1/evaluations/${id}/report.html`);
    const tampered = new URL(url);
    tampered.searchParams.set('sig', 'A'.repeat(43));
    expect((await fetch(tampered)).status).toBe(403);
    expect((await fetch(`${url.origin}${url.pathname}`)).status).toBe(403);
    const expired = s.runtime.urls.report({ base: url.origin, evaluationId: id, now: new Date(Date.now() - 25 * 3600_000) });
    const gone = await fetch(expired);
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as { detail: string }).detail).toBe('Report URL has expired');
    const unknown = await fetch(`${url.origin}/v1/evaluations/ev_unknown000000000000/report.html${url.search}`);
    expect(unknown.status).toBe(404);
  });
});
