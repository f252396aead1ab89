// Probes on recorded corpora (DESIGN §15.5): the keyterm pass runs on the recordings, non-speech clips join
// them, entity sentences are refused — and an accepted probe is never dropped. Before §15.5 a corpus
// evaluation answered 201 with `probes: null` and the vendor never got its boosting parameter.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, type Reply } from '../helpers/core-http.js';
import { postMultipart, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { fakeProvidersConfig, pollEvaluation } from '../helpers/evaluations.js';
import { buildCorpus, packCorpus, recordings } from '../helpers/corpus-fixtures.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';

type Json = Reply['body'];

let s: TestServer;
let vendor: FakeVendor;
let dir: string;
let corpus: Json;
const post = (json: unknown) => call(s, 'POST', '/v1/evaluations', { key: s.key, json });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'voxctl-corpus-probes-'));
  vendor = await startFakeVendor('openai');
  const configPath = fakeProvidersConfig(dir, { 'stt-b': { adapter: 'openai', model: 'whisper-1', fake: vendor } });
  s = await startTestServer({ options: { configPath } });
  await promoteToEnterprise(s);
  // Real read speech: the five card names of pocketsphinx-testdata, one speaker.
  const cards = recordings().filter((r) => r.speaker === 'cards');
  const archive = await packCorpus(buildCorpus(join(dir, 'cards'), 'librispeech', cards), join(dir, 'cards.tar.gz'));
  const r = await postMultipart(s, '/v1/corpora', { fields: { name: 'cards' }, file: { bytes: readFileSync(archive), name: 'cards.tar.gz', type: 'application/gzip' } });
  expect(r.status, r.text).toBe(201);
  corpus = r.body;
});
afterAll(async () => {
  await s?.close();
  await vendor?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('probes on a corpus (DESIGN §15.5)', () => {
  it('refuses entity sentences: a recording says what it says', async () => {
    const r = await post({ corpus_id: corpus.corpus_id, providers: ['stt-b'], probes: { entities: { types: ['digits'] } } });
    expect([r.status, r.body.detail]).toEqual([400, 'entities does not apply to a corpus']);
  });

  describe('keyterms and non-speech clips', () => {
    let ev: Json;
    let rows: Json[];
    beforeAll(async () => {
      vendor.keyterms.length = 0;
      const created = await post({ corpus_id: corpus.corpus_id, providers: ['stt-b'], probes: { keyterms: { terms: ['Queen', 'Spades'] }, non_speech: { clips: 2, seconds: 1 } } });
      expect(created.status, created.text).toBe(201);
      // 5 recordings + 2 clips, one provider and condition.
      expect(created.body.total_utterances).toBe(7);
      ev = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 120_000 });
      rows = (await call(s, 'GET', `/v1/evaluations/${ev.evaluation_id}/utterances?limit=100`, { key: s.key })).body.items;
    }, 150_000);

    it('keeps the probes it accepted, with their defaults', () => {
      expect(ev.status).toBe('completed');
      expect(ev.probes).toEqual({ non_speech: { clips: 2, seconds: 1, kinds: ['silence', 'noise', 'hum', 'tone', 'dtmf'] }, keyterms: { terms: ['Queen', 'Spades'] } });
    });

    it('hears every recording again with the vendor boosting parameter, and clips never boosted', () => {
      // One boosted request per recording (the vendor's own `prompt`), none for the clips.
      expect(vendor.keyterms.filter((k) => k.length > 0)).toHaveLength(5);
      expect(vendor.keyterms.find((k) => k.length > 0)).toEqual(['Queen', 'Spades']);
      const speech = rows.filter((u) => u.kind === undefined);
      expect(speech).toHaveLength(5);
      for (const u of speech) expect(u.boosted_transcript).toEqual(expect.any(String));
      const row = ev.summary.find((r: Json) => r.provider === 'stt-b' && r.group === 'all');
      // A per-provider keyterm row, not `unsupported`: the probe ran on the recordings.
      expect(Object.keys(row.keyterms).sort()).toEqual(['false_positives_with', 'false_positives_without', 'occurrences', 'recall_with', 'recall_without', 'wer_other_with', 'wer_other_without']);
    });

    it('sends the clips to the provider once each, under clean, and reports hallucination', () => {
      const clips = rows.filter((u) => u.kind !== undefined);
      expect(clips).toHaveLength(2);
      for (const u of clips) expect([u.reference, u.condition, u.speaker_id, u.boosted_transcript]).toEqual(['', 'clean', null, undefined]);
      const row = ev.summary.find((r: Json) => r.provider === 'stt-b' && r.group === 'all');
      expect(row.non_speech).toMatchObject({ clips: 2, clips_with_words: 2, hallucination_rate: 1 });
      // The recordings alone are scored for WER.
      expect(row.utterances).toBe(5);
    });

    it('reruns with the same probes', async () => {
      const rerun = await call(s, 'POST', `/v1/evaluations/${ev.evaluation_id}/rerun`, { key: s.key });
      expect(rerun.status, rerun.text).toBe(201);
      expect(rerun.body.total_utterances).toBe(7);
      const view = (await call(s, 'GET', `/v1/evaluations/${rerun.body.evaluation_id}`, { key: s.key })).body;
      expect(view.probes).toEqual(ev.probes);
    });
  });
});
