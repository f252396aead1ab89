import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { postMultipart, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { fakeProvidersConfig, pollEvaluation } from '../helpers/evaluations.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { buildStmCorpus, packCorpus, recordings, type StmCall } from '../helpers/corpus-fixtures.js';
import { parseStm } from '../../src/shared/conversations/index.js';
import type { EvaluationSummaryRow, EvaluationUtterance } from '../../src/shared/schemas/evaluations.js';

// Recorded calls (DESIGN §16.5): the `stm` corpus layout — NIST STM beside each call's audio — made from
// pocketsphinx-testdata's read speech joined with sox (two readers taking turns), uploaded through the API
// and evaluated as calls by PocketSphinx and a diarizing Deepgram fake; both backends.

const MD_EVAL = '/usr/lib/sctk/bin/md-eval.pl';
let s: TestServer;
let deepgram: FakeVendor;
let root: string;
let truth: StmCall[];
let corpusId: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'voxctl-recorded-calls-'));
  deepgram = await startFakeVendor('deepgram');
  const configPath = fakeProvidersConfig(root, { 'stt-b': { adapter: 'deepgram', model: 'nova-3', fake: deepgram } });
  s = await startTestServer({ options: { configPath } });
  await promoteToEnterprise(s);
  const recs = recordings();
  const reader = recs.filter((r) => r.speaker === 'reader1');
  const cards = recs.filter((r) => r.speaker === 'cards');
  // Listed out of id order: calls/{n} numbers them in id order.
  const built = buildStmCorpus(root, [
    { id: 'call-b', turns: [cards[2]!, reader[2]!, cards[3]!] },
    { id: 'call-a', turns: [reader[0]!, cards[0]!, reader[1]!, cards[1]!] },
  ]);
  truth = built.calls;
  const archive = await packCorpus(built.dir, join(root, 'calls.tar.gz'));
  const r = await postMultipart(s, '/v1/corpora', { fields: { name: 'calls' }, file: { bytes: readFileSync(archive), name: 'calls.tar.gz', type: 'application/gzip' } });
  expect(r.status, r.text).toBe(201);
  expect(r.body).toMatchObject({ layout: 'stm', utterances: 2, speakers: 0 });
  corpusId = r.body.corpus_id;
}, 180_000);
afterAll(async () => {
  await s?.close();
  await deepgram?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a corpus of recorded calls (stm layout)', () => {
  it('reads each STM file as one call: its id, its audio and its segments’ words in order of start', async () => {
    const page = await call(s, 'GET', `/v1/corpora/${corpusId}/utterances`, { key: s.key });
    expect(page.body.items.map((u: { utterance_id: string; reference: string }) => [u.utterance_id, u.reference])).toEqual(
      [...truth].sort((a, b) => a.id.localeCompare(b.id)).map((c) => [c.id, c.segments.map((x) => x.text).join(' ')]).sort(),
    );
  });

  it('evaluates the calls: whole-call WER on PocketSphinx, DER and cpWER on the diarizing fake, truth exported as uploaded', async () => {
    const created = await call(s, 'POST', '/v1/evaluations', { key: s.key, json: { corpus_id: corpusId, providers: ['local-sphinx', 'stt-b'] } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.total_utterances).toBe(4);
    const id = created.body.evaluation_id;
    const detail = await pollEvaluation(s, id, { timeoutMs: 300_000 });
    expect(detail).toMatchObject({ status: 'completed', group_by: 'call', corpus_id: corpusId });
    const summary = detail.summary as EvaluationSummaryRow[];
    expect(summary.map((r) => [r.provider, r.group, r.speakers])).toEqual([
      ['local-sphinx', 'all', 2],
      ['stt-b', 'all', 2],
    ]);
    expect(summary[0]).toMatchObject({ der: { unsupported: true }, cpwer: { unsupported: true } });
    expect(typeof summary[1]!.der).toBe('number');

    const items = (await call(s, 'GET', `/v1/evaluations/${id}/utterances`, { key: s.key })).body.items as EvaluationUtterance[];
    // calls/{n} numbers the calls in id order.
    expect(items.map((u) => u.utterance_id)).toEqual(['call-a', 'call-a', 'call-b', 'call-b']);
    expect(new Set(items.map((u) => u.group))).toEqual(new Set(['all']));
    for (const u of items.filter((x) => x.provider === 'local-sphinx')) {
      expect(u).toMatchObject({ error: null, speakers: 2, speakers_found: null, loop: false });
      expect(u.wer).toBeLessThan(0.5);
    }
    const ordered = [...truth].sort((a, b) => a.id.localeCompare(b.id));
    for (const [k, c] of ordered.entries()) {
      const get = async (path: string) => (await fetch(`${s.url}/v1/evaluations/${id}/calls/${k + 1}/${path}`, { headers: { authorization: `Bearer ${s.key}` } })).text();
      const stm = parseStm(await get('reference.stm'));
      expect(stm.map((x) => [x.speaker, x.start, x.end, x.words])).toEqual(c.segments.map((x) => [x.speaker, x.start, x.end, x.text]));
      const ref = await get('reference.rttm');
      const hyp = await get('hypothesis.rttm?provider=stt-b');
      writeFileSync(join(root, 'ref.rttm'), ref);
      writeFileSync(join(root, 'hyp.rttm'), hyp);
      const out = execFileSync('perl', [MD_EVAL, '-c', '0.25', '-r', join(root, 'ref.rttm'), '-s', join(root, 'hyp.rttm')], { encoding: 'utf8' });
      const der = Number(/OVERALL SPEAKER DIARIZATION ERROR = ([\d.]+) percent/.exec(out)![1]) / 100;
      const row = items.find((u) => u.utterance_id === c.id && u.provider === 'stt-b')!;
      expect(Math.abs(der - (row.der as number)), c.id).toBeLessThanOrEqual(0.001);
    }
  }, 360_000);

  it('refuses to stream recorded calls, creating nothing', async () => {
    const r = await call(s, 'POST', '/v1/evaluations', { key: s.key, json: { corpus_id: corpusId, providers: ['local-sphinx'], mode: 'streaming' } });
    expect([r.status, r.body.detail], r.text).toEqual([400, 'conversation needs mode batch']);
  });
});
