import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, type Reply } from '../helpers/core-http.js';
import { charactersUsed, fliteSpeaker, postMultipart, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { fakeProvidersConfig, pollEvaluation } from '../helpers/evaluations.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { testBackend } from '../helpers/postgres.js';
import { buildCorpus, packCorpus, recordings, type Layout, type Recording } from '../helpers/corpus-fixtures.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { parseWav } from '../../src/server/audio/wav.js';
import { speakerBootstrapCi } from '../../src/shared/stats.js';
import { scoredUtterancesForCompare } from '../../src/server/features/evaluations/compare-repository.js';

// Evaluations on a recorded corpus (DESIGN §10.5), on real human speech: the pocketsphinx-testdata
// recordings (five LibriVox sentences of one reader, five card names of another) uploaded as corpora.
// On SQLite PocketSphinx hears them. On PostgreSQL a Deepgram fake on loopback does, except the streaming
// run: what the backend changes is what is stored and read back, and PocketSphinx on real speech is the
// SQLite pass's subject (its minute of CPU would only repeat it).
const ON_POSTGRES = testBackend() === 'postgres';
const STT = ON_POSTGRES ? 'stt-b' : 'local-sphinx';

/** A parsed JSON body. */
type Json = Reply['body'];

let s: TestServer;
let fake: FakeVendor | undefined;
let root: string;
const post = (json: unknown, key = s.key) => call(s, 'POST', '/v1/evaluations', { key, json });
const expect400 = async (json: unknown, detail: string) => {
  const r = await post(json);
  expect([r.status, r.body.detail], r.text).toEqual([400, detail]);
};

/** Uploads `recs` in `layout` as a .tar.gz through the API and returns the corpus view. */
async function upload(name: string, layout: Layout, recs: readonly Recording[], key = s.key, opts: { speakers?: boolean } = {}): Promise<Json> {
  const dir = buildCorpus(join(root, name), layout, recs, opts);
  const archive = await packCorpus(dir, join(root, `${name}.tar.gz`));
  const r = await postMultipart(s, '/v1/corpora', { fields: { name }, file: { bytes: readFileSync(archive), name: `${name}.tar.gz`, type: 'application/gzip' } }, key);
  expect(r.status, r.text).toBe(201);
  return r.body as Json;
}

const all = recordings();
const cards = all.filter((r) => r.speaker === 'cards');
let genderCorpus: Json; // audiofolder: speaker_id and gender of all ten
let libri: Json; // librispeech: speakers, chapter metadata, no gender

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'voxctl-corpus-eval-'));
  fake = ON_POSTGRES ? await startFakeVendor('deepgram') : undefined;
  const configPath = fake && fakeProvidersConfig(root, { [STT]: { adapter: 'deepgram', model: 'nova-3', fake } });
  s = await startTestServer(configPath ? { options: { configPath } } : {});
  await promoteToEnterprise(s);
  genderCorpus = await upload('gendered', 'audiofolder', all);
  libri = await upload('libri', 'librispeech', cards);
});
afterAll(async () => {
  await s?.close();
  await fake?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('POST /v1/evaluations with corpus_id (DESIGN §10.5)', () => {
  it('takes exactly one of texts, dataset_id and corpus_id, before any other rule of the body', async () => {
    const message = 'Provide exactly one of texts, dataset_id or corpus_id';
    await expect400({ providers: ['local-sphinx'] }, message);
    await expect400({ texts: ['Hi.'], corpus_id: genderCorpus.corpus_id, providers: ['local-sphinx'] }, message);
    await expect400({ dataset_id: 'ds_x', corpus_id: genderCorpus.corpus_id, providers: ['local-sphinx'] }, message);
    await expect400({ texts: ['Hi.'], dataset_id: 'ds_x', corpus_id: 'cor_x', providers: ['local-sphinx'] }, message);
    // Before the schema's own rules and every other message: a bad name, a missing providers list, a bad type.
    await expect400({ name: '', texts: ['Hi.'], corpus_id: 'cor_x' }, message);
    await expect400({ texts: 5, dataset_id: 'ds_x', providers: 'local-sphinx', conditions: ['loud'] }, message);
  });

  it('refuses speakers, an unknown group_by and an unknown or foreign corpus', async () => {
    const flite = await fliteSpeaker(s.runtime.db);
    await expect400({ corpus_id: genderCorpus.corpus_id, speakers: { ids: [flite] }, providers: ['local-sphinx'] }, 'speakers does not apply to a corpus');
    await expect400({ corpus_id: genderCorpus.corpus_id, group_by: 'accent', providers: ['local-sphinx'] }, 'Unknown group_by for this corpus: accent');
    await expect400({ corpus_id: libri.corpus_id, group_by: 'gender', providers: ['local-sphinx'] }, 'Unknown group_by for this corpus: gender');
    const missing = await post({ corpus_id: 'cor_missing', providers: ['local-sphinx'] });
    expect([missing.status, missing.body.detail]).toEqual([404, 'Corpus not found']);
    const other = (await createUserWithKey(s.runtime.db, { email: 'corpus-other@example.com', tier: 'pro', now: new Date() })).key.key;
    const foreign = await post({ corpus_id: genderCorpus.corpus_id, providers: ['local-sphinx'] }, other);
    expect([foreign.status, foreign.body.detail]).toEqual([404, 'Corpus not found']);
    // The synthesised sources keep their grouping under speakers: top-level group_by and sample are a corpus's.
    await expect400({ texts: ['Hi.'], speakers: { ids: [flite] }, group_by: 'gender', providers: ['local-sphinx'] }, 'group_by applies to a corpus; use speakers.group_by');
    await expect400({ texts: ['Hi.'], speakers: { ids: [flite] }, sample: { size: 2 }, providers: ['local-sphinx'] }, 'sample applies to a corpus');
  });

  it('counts utterances × conditions × providers, charges no characters, and groups by gender by default, else speaker', async () => {
    const before = await charactersUsed(s);
    const r = await post({ corpus_id: genderCorpus.corpus_id, providers: ['local-sphinx'], conditions: ['clean', 'telephone'] });
    expect(r.status, r.text).toBe(201);
    expect(r.body.total_utterances).toBe(10 * 2);
    await call(s, 'POST', `/v1/evaluations/${r.body.evaluation_id}/cancel`, { key: s.key, json: {} });
    const detail = (await call(s, 'GET', `/v1/evaluations/${r.body.evaluation_id}`, { key: s.key })).body;
    expect(detail).toMatchObject({ group_by: 'gender', corpus_id: genderCorpus.corpus_id, corpus_name: 'gendered' });
    const bySpeaker = await post({ corpus_id: libri.corpus_id, providers: ['local-sphinx'] });
    await call(s, 'POST', `/v1/evaluations/${bySpeaker.body.evaluation_id}/cancel`, { key: s.key, json: {} });
    expect((await call(s, 'GET', `/v1/evaluations/${bySpeaker.body.evaluation_id}`, { key: s.key })).body.group_by).toBe('speaker');
    expect(await charactersUsed(s)).toBe(before);
  });

  it('takes a seeded sample: the same seed the same utterances, the whole corpus when size reaches it', async () => {
    const ids = async (sample: { size: number; seed?: number }) => {
      const r = await post({ corpus_id: genderCorpus.corpus_id, providers: ['local-sphinx'], sample });
      expect(r.status, r.text).toBe(201);
      await call(s, 'POST', `/v1/evaluations/${r.body.evaluation_id}/cancel`, { key: s.key, json: {} });
      return r.body.total_utterances as number;
    };
    expect(await ids({ size: 4, seed: 3 })).toBe(4);
    expect(await ids({ size: 50 })).toBe(10);
    expect((await post({ corpus_id: genderCorpus.corpus_id, providers: ['local-sphinx'], sample: { size: 0 } })).status).toBe(400);
  });
});

describe(`a corpus evaluation end to end on ${STT} (DESIGN §10.5)`, () => {
  let ev: Json;
  let rows: Json[];

  beforeAll(async () => {
    const created = await post({ name: 'recorded', corpus_id: genderCorpus.corpus_id, providers: [STT], conditions: ['clean', 'telephone'], sample: { size: 6, seed: 1 } });
    expect(created.status, created.text).toBe(201);
    // The corpus may not be deleted while the evaluation runs.
    const busy = await call(s, 'DELETE', `/v1/corpora/${genderCorpus.corpus_id}`, { key: s.key });
    expect([busy.status, busy.body.detail]).toEqual([409, 'Corpus is used by a running evaluation']);
    ev = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 300_000 });
    rows = (await call(s, 'GET', `/v1/evaluations/${ev.evaluation_id}/utterances?limit=100`, { key: s.key })).body.items;
  }, 320_000);

  it('completes with the corpus named, rows carrying utterance ids and corpus speakers', async () => {
    expect(ev.status).toBe('completed');
    expect(ev).toMatchObject({ corpus_id: genderCorpus.corpus_id, corpus_name: 'gendered', group_by: 'gender' });
    expect(rows).toHaveLength(12);
    const byId = new Map(all.map((r) => [`audio/${r.id}`, r]));
    for (const u of rows) {
      const rec = byId.get(u.utterance_id);
      expect(rec, u.utterance_id).toBeDefined();
      expect(u).toMatchObject({ speaker_id: rec!.speaker, group: rec!.gender, reference: rec!.text, provider: STT });
    }
    // The same seed chose the same six recordings under both conditions.
    expect(new Set(rows.map((u) => u.utterance_id)).size).toBe(6);
  });

  it('degrades each recording at its own rate: clean keeps 16 kHz, telephone is 8 kHz', async () => {
    for (const [condition, rate] of [['clean', 16000], ['telephone', 8000]] as const) {
      const u = rows.find((r) => r.condition === condition)!;
      const wav = Buffer.from(await (await fetch(u.audio_url)).arrayBuffer());
      expect(parseWav(wav).sampleRate).toBe(rate);
    }
  });

  it('draws its bootstrap blocks from the corpus speakers', () => {
    const clean = rows.filter((u) => u.condition === 'clean' && u.transcript !== null);
    const summary = ev.summary.find((r: Json) => r.condition === 'clean' && r.group === 'all');
    expect(summary.speakers).toBe(new Set(clean.map((u) => u.speaker_id)).size);
    const scores = clean.map((u) => ({ speaker: u.speaker_id, errors: u.substitutions + u.deletions + u.insertions, referenceWords: u.reference.split(' ').length }));
    expect(summary.wer_ci95).toEqual(speakerBootstrapCi(scores, { seed: 1 }));
    // Read human speech: PocketSphinx gets most words right.
    if (!ON_POSTGRES) expect(summary.wer).toBeLessThan(0.5);
  });

  it('names the recorded corpus in the report', async () => {
    const html = await (await fetch(ev.report_url)).text();
    expect(html).toContain('recorded corpus gendered');
    expect(html).toContain(genderCorpus.corpus_id);
  });

  it('lets the corpus go once the evaluation ended', async () => {
    const ok = await call(s, 'DELETE', `/v1/corpora/${genderCorpus.corpus_id}`, { key: s.key });
    expect(ok.status).toBe(204);
    // The evaluation keeps its own conditioned audio and still lists its rows.
    const again = await call(s, 'GET', `/v1/evaluations/${ev.evaluation_id}/utterances?limit=1`, { key: s.key });
    expect(again.body.items[0].utterance_id).toBeDefined();
  });
});

describe('a corpus without speakers (DESIGN §10.5)', () => {
  it('makes each utterance its own bootstrap block; rows have no speaker', async () => {
    const c = await upload('anonymous', 'audiofolder', cards.slice(0, 3), s.key, { speakers: false });
    expect(c.speakers).toBe(0);
    const created = await post({ corpus_id: c.corpus_id, providers: [STT] });
    expect(created.status, created.text).toBe(201);
    const ev = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 120_000 });
    expect(ev).toMatchObject({ status: 'completed', group_by: 'speaker' });
    const all3 = ev.summary.find((r: Json) => r.group === 'all');
    expect(all3).toMatchObject({ utterances: 3, speakers: 3 });
    const rows = (await call(s, 'GET', `/v1/evaluations/${ev.evaluation_id}/utterances`, { key: s.key })).body.items;
    expect(rows.map((u: Json) => u.speaker_id)).toEqual([null, null, null]);
  }, 150_000);
});

describe('comparing two runs on a corpus (DESIGN §11.3)', () => {
  it('matches recordings by corpus and utterance id: only those both samples drew count', async () => {
    const run = async (size: number, seed: number) => {
      const created = await post({ corpus_id: libri.corpus_id, providers: [STT], sample: { size, seed } });
      expect(created.status, created.text).toBe(201);
      const ev = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 120_000 });
      const items = (await call(s, 'GET', `/v1/evaluations/${ev.evaluation_id}/utterances?limit=100`, { key: s.key })).body.items as Json[];
      return { id: ev.evaluation_id as string, ids: new Set(items.filter((u) => u.transcript !== null).map((u) => u.utterance_id as string)) };
    };
    const small = await run(3, 7);
    const whole = await run(cards.length, 3);
    const common = [...small.ids].filter((u) => whole.ids.has(u));
    expect(common.length).toBeGreaterThan(0);
    const cmp = await call(s, 'GET', `/v1/evaluations/${whole.id}/compare?baseline=${small.id}`, { key: s.key });
    expect(cmp.status, cmp.text).toBe(200);
    expect(cmp.body.matched_utterances).toBe(common.length);
    // Each scored row names its recording, so a corrected transcript or a repeated sentence still pairs right.
    const scored = await scoredUtterancesForCompare(s.runtime.db, whole.id);
    expect(new Set(scored.map((u) => u.corpus?.utteranceId))).toEqual(whole.ids);
    expect(new Set(scored.map((u) => u.corpus?.corpusId))).toEqual(new Set([libri.corpus_id]));
    // The same recordings heard by the same deterministic recogniser: nothing changed — but one reader is one
    // bootstrap block, too few for any verdict (DESIGN §15.1).
    expect(cmp.body.rows.find((r: Json) => r.group === 'all')).toMatchObject({ utterances: common.length, difference: 0, speakers: 1, verdict: 'inconclusive' });
  }, 260_000);
});

describe('reruns and streaming on a corpus (DESIGN §11.2, §13.2)', () => {
  it('reruns on the same recordings: same corpus, utterances and seed, nothing changed against it', async () => {
    const created = await post({ corpus_id: libri.corpus_id, providers: [STT], sample: { size: 3, seed: 11 } });
    expect(created.status, created.text).toBe(201);
    const first = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 120_000 });
    const again = await call(s, 'POST', `/v1/evaluations/${first.evaluation_id}/rerun`, { key: s.key });
    expect(again.status, again.text).toBe(201);
    const second = await pollEvaluation(s, again.body.evaluation_id, { timeoutMs: 120_000 });
    expect(second).toMatchObject({ status: 'completed', corpus_id: libri.corpus_id, baseline_id: first.evaluation_id, seed: 11, total_utterances: 3 });
    const ids = async (id: string) =>
      ((await call(s, 'GET', `/v1/evaluations/${id}/utterances`, { key: s.key })).body.items as Json[]).map((u) => u.utterance_id).sort();
    expect(await ids(second.evaluation_id)).toEqual(await ids(first.evaluation_id));
    const cmp = await call(s, 'GET', `/v1/evaluations/${second.evaluation_id}/compare?baseline=${first.evaluation_id}`, { key: s.key });
    expect(cmp.body).toMatchObject({ matched_utterances: 3, changed_setup: [] });
  }, 260_000);

  it('streams recordings: a streaming evaluation of a corpus measures every utterance', async () => {
    const created = await post({ corpus_id: libri.corpus_id, providers: ['local-sphinx'], sample: { size: 2, seed: 2 }, mode: 'streaming', pace: 4 });
    expect(created.status, created.text).toBe(201);
    const ev = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 120_000 });
    expect(ev).toMatchObject({ status: 'completed', mode: 'streaming', pace: 4, corpus_id: libri.corpus_id });
    const rows = (await call(s, 'GET', `/v1/evaluations/${ev.evaluation_id}/utterances`, { key: s.key })).body.items as Json[];
    for (const u of rows) expect(u).toMatchObject({ error: null, utterance_id: expect.any(String), final_latency_ms: expect.any(Number) });
  }, 150_000);
});
