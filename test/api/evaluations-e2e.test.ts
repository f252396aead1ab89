/**
 * Real evaluations: Flite and eSpeak speech recognised by PocketSphinx under three conditions, and hosted
 * providers through their loopback fakes (one of which fails every other request).
 *
 * On PostgreSQL the first evaluation is heard by a Deepgram fake instead: what the backend changes is what
 * is stored and read back (rows, audio, the summary recomputed from stored rows), while what PocketSphinx
 * makes of the two engines' voices is the SQLite pass's subject. The second keeps PocketSphinx on both.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { charactersUsed, espeakSpeaker, fliteSpeaker, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { fakeProvidersConfig, pollEvaluation } from '../helpers/evaluations.js';
import { FAKE_TRANSCRIPT, startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { testBackend } from '../helpers/postgres.js';
import { decodeWavToPcm16 } from '../../src/server/audio/wav.js';
import { allUtterances, listEvaluationSpeakers } from '../../src/server/features/evaluations/repository.js';
import { utteranceAudioSeconds } from '../../src/server/features/evaluations/compare-repository.js';
import { summarise } from '../../src/server/features/evaluations/summary.js';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function utterances(s: TestServer, id: string, query = ''): Promise<Row[]> {
  const out: Row[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = (await call(s, 'GET', `/v1/evaluations/${id}/utterances?limit=100&offset=${offset}${query}`, { key: s.key })).body;
    out.push(...page.items);
    if (!page.has_more) return out;
  }
}

const ON_POSTGRES = testBackend() === 'postgres';
const STT = ON_POSTGRES ? 'stt-b' : 'local-sphinx';

describe(`an evaluation on ${STT} with Flite and eSpeak voices under three conditions`, () => {
  let s: TestServer;
  let fake: FakeVendor | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-e2e-'));
  let detail: Row;
  let rows: Row[];
  const texts = ['The quick brown fox jumps over the lazy dog.', 'Please call me back after the meeting tomorrow morning.'];
  let usedBefore: number;

  beforeAll(async () => {
    fake = ON_POSTGRES ? await startFakeVendor('deepgram') : undefined;
    const configPath = fake && fakeProvidersConfig(dir, { [STT]: { adapter: 'deepgram', model: 'nova-3', fake } });
    s = await startTestServer(configPath ? { options: { configPath } } : {});
    await promoteToEnterprise(s);
    const db = s.runtime.db;
    const ids = [
      await fliteSpeaker(db, 'slt'),
      await fliteSpeaker(db, 'rms'),
      await espeakSpeaker(db),
      (await db.value<string>(`SELECT id FROM speakers WHERE engine = 'espeak' AND voice LIKE 'en%' LIMIT 1 OFFSET 5`))!,
    ];
    usedBefore = await charactersUsed(s);
    const created = await call(s, 'POST', '/v1/evaluations', {
      key: s.key,
      json: { name: 'sphinx e2e', texts, speakers: { ids, group_by: 'engine', seed: 11 }, providers: [STT], conditions: ['clean', 'telephone', 'noise:5'] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.total_utterances).toBe(2 * 4 * 3);
    const progress: number[] = [];
    detail = await pollEvaluation(s, created.body.evaluation_id, {
      // 24 decodes: about a minute alone, several on a machine busy with other work.
      timeoutMs: 480_000,
      intervalMs: 250,
      until: (b) => {
        progress.push(b.progress);
        return !['pending', 'processing'].includes(b.status);
      },
    });
    // Results arrive one by one: progress was seen strictly between 0 and 100.
    expect(progress.some((p) => p > 0 && p < 100)).toBe(true);
    rows = await utterances(s, detail.evaluation_id);
  }, 540_000);
  afterAll(async () => {
    await s.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('completes with one scored row per utterance and charges Σ characters × speakers once', async () => {
    expect(detail).toMatchObject({ status: 'completed', progress: 100, completed_utterances: 24, group_by: 'engine', normalizer: { name: 'basic' } });
    expect(rows).toHaveLength(24);
    expect(rows.every((u) => u.error === null && typeof u.transcript === 'string' && typeof u.latency_ms === 'number')).toBe(true);
    const chars = texts.reduce((n, t) => n + [...t].length, 0) * 4;
    expect((await charactersUsed(s)) - usedBefore).toBe(chars);
  });

  it('shows that PocketSphinx cannot recognise eSpeak voices as a group effect', () => {
    const row = (condition: string, group: string) => detail.summary.find((r: Row) => r.condition === condition && r.group === group);
    expect(detail.summary).toHaveLength(3 * 3);
    if (!ON_POSTGRES) {
      const flite = row('clean', 'flite');
      const espeak = row('clean', 'espeak');
      expect(flite.wer).toBeLessThan(0.35);
      expect(espeak.wer).toBeGreaterThan(0.6);
      // The intervals do not overlap: the difference is the voices', not chance.
      expect(espeak.wer_ci95[0]).toBeGreaterThan(flite.wer_ci95[1]);
    }
    for (const r of detail.summary) {
      expect(r.wer_ci95[0]).toBeLessThanOrEqual(r.wer!);
      expect(r.wer_ci95[1]).toBeGreaterThanOrEqual(r.wer!);
      expect(r.wer).toBeCloseTo((r.substitutions + r.deletions + r.insertions) / r.reference_words, 4);
      expect(r.failed_requests).toBe(0);
    }
    for (const c of ['clean', 'telephone', 'noise:5']) {
      const all = row(c, 'all');
      expect(all).toMatchObject({ utterances: 8, speakers: 4 });
      expect(all.reference_words).toBe(row(c, 'flite').reference_words + row(c, 'espeak').reference_words);
      // Corpus WER: Σ errors / Σ words, not the mean of the two groups' rates.
      const errors = (r: Row) => r.substitutions + r.deletions + r.insertions;
      expect(all.wer).toBeCloseTo((errors(row(c, 'flite')) + errors(row(c, 'espeak'))) / all.reference_words, 4);
    }
    expect(detail.comparisons).toEqual([]);
  });

  it('derives every condition from one synthesis; each utterance links the audio the provider heard', async () => {
    const audio = new Map<string, { rate: number; pcm: Int16Array }>();
    for (const u of rows.filter((r) => r.text_index === 0)) {
      const res = await fetch(u.audio_url);
      expect(res.status).toBe(200);
      const wav = decodeWavToPcm16(Buffer.from(await res.arrayBuffer()));
      audio.set(`${u.speaker_id}/${u.condition}`, { rate: wav.sampleRate, pcm: wav.pcm });
    }
    for (const [key, a] of audio) {
      if (key.endsWith('/telephone')) expect(a.rate).toBe(8000);
      if (key.endsWith('/noise:5')) {
        const clean = audio.get(key.replace('noise:5', 'clean'))!;
        // Same speech, same length, plus noise.
        expect(a.pcm.length).toBe(clean.pcm.length);
        expect(a.pcm.some((v, i) => v !== clean.pcm[i])).toBe(true);
      }
    }
    expect(rows.every((u) => u.determinable === false)).toBe(true);
  });

  it('computes the stored summary from the stored rows, reproducibly', async () => {
    const id = detail.evaluation_id as string;
    const again = summarise({
      rows: await allUtterances(s.runtime.db, id),
      providers: detail.providers,
      conditions: detail.conditions,
      groups: (await listEvaluationSpeakers(s.runtime.db, id)).map((sp) => sp.grp),
      seed: 11,
      audioSeconds: await utteranceAudioSeconds(s.runtime.db, id),
    });
    expect(again.summary).toEqual(detail.summary);
  });

  it('serves a report that names both groups', async () => {
    const html = await (await fetch(detail.report_url)).text();
    expect(html).toContain('espeak');
    expect(html).toContain('flite');
  });
});

/** A proxy in front of a fake vendor that answers every other request with a 500 of its own. */
async function flakyProxy(target: string): Promise<{ url: string; seen: () => number; close(): Promise<void> }> {
  let n = 0;
  const server: Server = createServer((req, res) => {
    if (n++ % 2 === 1) {
      req.resume();
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ err_code: 'INTERNAL', err_msg: 'flaky upstream' }));
      return;
    }
    const to = new URL(req.url ?? '/', target);
    const upstream = httpRequest(to, { method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen: () => n,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('hosted providers through their loopback fakes', () => {
  let s: TestServer;
  let openai: FakeVendor;
  let deepgram: FakeVendor;
  let proxy: Awaited<ReturnType<typeof flakyProxy>>;
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-evalcfg-'));

  beforeAll(async () => {
    openai = await startFakeVendor('openai', { delayMs: 50 });
    deepgram = await startFakeVendor('deepgram', { delayMs: 50 });
    proxy = await flakyProxy(deepgram.url);
    process.env.VOXCTL_EVAL_OPENAI_KEY = openai.key;
    process.env.VOXCTL_EVAL_DEEPGRAM_KEY = deepgram.key;
    const configPath = join(dir, 'voxctl.config.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        stt: {
          providers: {
            'stt-a-model-1': { adapter: 'openai', base_url: openai.url, api_key_env: 'VOXCTL_EVAL_OPENAI_KEY', timeout_ms: 10_000 },
            'stt-c': { adapter: 'deepgram', base_url: proxy.url, api_key_env: 'VOXCTL_EVAL_DEEPGRAM_KEY', timeout_ms: 10_000 },
          },
        },
      }),
    );
    s = await startTestServer({ options: { configPath } });
    await promoteToEnterprise(s);
  });
  afterAll(async () => {
    await s.close();
    await Promise.all([openai.close(), deepgram.close(), proxy.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('records half the flaky provider as failed requests, flags determinable failures, pairs providers', async () => {
    const db = s.runtime.db;
    const ids = [await fliteSpeaker(db, 'slt'), await espeakSpeaker(db)];
    const created = await call(s, 'POST', '/v1/evaluations', {
      key: s.key,
      json: { texts: [FAKE_TRANSCRIPT], speakers: { ids, group_by: 'engine' }, providers: ['stt-a-model-1', 'stt-c', 'local-sphinx'], conditions: ['clean', 'noise:10'] },
    });
    expect(created.status, created.text).toBe(201);
    const detail = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 180_000 });
    // Provider errors are results, not a failure of the evaluation.
    expect(detail).toMatchObject({ status: 'completed', completed_utterances: 12 });
    expect(openai.violations).toEqual([]);
    expect(deepgram.violations).toEqual([]);
    expect(proxy.seen()).toBe(4);

    const rows = await utterances(s, detail.evaluation_id);
    const of = (p: string) => rows.filter((u) => u.provider === p);
    expect(of('stt-a-model-1').every((u) => u.transcript === FAKE_TRANSCRIPT && u.wer === 0)).toBe(true);
    const flaky = of('stt-c');
    expect(flaky.filter((u) => u.error?.code === 'upstream_error')).toHaveLength(2);
    expect(flaky.filter((u) => u.wer === 0)).toHaveLength(2);
    const failedRequests = detail.summary.filter((r: Row) => r.provider === 'stt-c' && r.group === 'all').reduce((n: number, r: Row) => n + r.failed_requests, 0);
    expect(failedRequests).toBe(2);

    // A Sphinx error on audio the fake transcribed exactly cannot be blamed on the voice.
    const sphinx = of('local-sphinx');
    for (const u of sphinx) expect(u.determinable).toBe(u.wer > 0);
    expect(sphinx.some((u) => u.determinable)).toBe(true);
    const determinable = await utterances(s, detail.evaluation_id, '&determinable_only=true');
    expect(determinable.length).toBe(sphinx.filter((u) => u.wer > 0).length);
    expect(determinable.every((u) => u.provider === 'local-sphinx')).toBe(true);

    // 2 conditions × (group all + espeak + flite) × 3 pairs, group `all` first under each condition.
    expect(detail.comparisons).toHaveLength(2 * 3 * 3);
    expect(detail.comparisons.map((c: Row) => `${c.condition}/${c.group}`).filter((k: string, i: number, a: string[]) => a.indexOf(k) === i)).toEqual([
      'clean/all', 'clean/espeak', 'clean/flite', 'noise:10/all', 'noise:10/espeak', 'noise:10/flite',
    ]);
    const cmp = detail.comparisons.find((c: Row) => c.condition === 'clean' && c.group === 'all' && c.a === 'stt-a-model-1' && c.b === 'local-sphinx');
    // The two fakes transcribe the same sentence exactly wherever both answered: a tie in every draw.
    for (const tie of detail.comparisons.filter((c: Row) => c.a === 'stt-a-model-1' && c.b === 'stt-c' && c.wer_a !== null)) {
      expect(tie).toMatchObject({ difference: 0, p_a_better: 0, p_equal: 1 });
    }
    const listed = (await call(s, 'GET', '/v1/stt/providers', { key: s.key })).body.items as { id: string; label: string }[];
    const labels = Object.fromEntries(listed.filter((p) => detail.providers.includes(p.id)).map((p) => [p.id, p.label]));
    expect(detail.provider_labels).toEqual(labels);
    expect(labels['stt-c']).toMatch(/^stt-c · deepgram/);
    expect(cmp.wer_a).toBe(0);
    expect(cmp.difference).toBeCloseTo(cmp.wer_a - cmp.wer_b, 4);
    expect(cmp.ci95[0]).toBeLessThanOrEqual(cmp.difference);
    expect(cmp.ci95[1]).toBeGreaterThanOrEqual(cmp.difference);
    expect(cmp.p_a_better).toBeGreaterThanOrEqual(0);
    expect(cmp.p_a_better + cmp.p_equal).toBeLessThanOrEqual(1);
  }, 200_000);
});
