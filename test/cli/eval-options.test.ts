import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestDispatcher, testContext } from '../helpers/cli-context.js';
import { charactersUsed, fliteSpeaker, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { call } from '../helpers/core-http.js';
import { buildCorpus, packCorpus, recordings } from '../helpers/corpus-fixtures.js';
import { fakeProvidersConfig } from '../helpers/evaluations.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-stt-vendors.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// DESIGN §15.8 and issue 30 through in-process runs of the CLI against a real service whose providers are
// loopback fakes (fast): the GROUP column of the pairwise table, `-q`, `eval rerun --name`, `--dry-run`
// with `--corpus` (an uploaded corpus and a folder of this machine), and where a corpus's extra bootstrap
// blocks come from.
type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PRICE = 0.006;
let s: TestServer;
let openai: FakeVendor;
let deepgram: FakeVendor;
let speaker: string;
const dir = mkdtempSync(join(tmpdir(), 'voxctl-cli-eval-options-'));

/** Runs `voxctl ...args` in-process against the test service; stdin holds `stdin`. */
async function voxctl(args: string[], stdin = '') {
  const t = testContext({ env: { VOXCTL_BASE_URL: s.url, VOXCTL_API_KEY: s.key }, stdin });
  const code = await t.run(args);
  return { code, stdout: t.stdout.text, stderr: t.stderr.text };
}
const api = async (path: string) => (await call(s, 'GET', path, { key: s.key })).body as Row;
const count = async (what: 'evaluations' | 'corpora') => (await api(`/v1/${what}`)).total as number;

beforeAll(async () => {
  openai = await startFakeVendor('openai');
  deepgram = await startFakeVendor('deepgram');
  const configPath = fakeProvidersConfig(dir, {
    'stt-b': { adapter: 'openai', model: 'whisper-1', price_per_minute_usd: PRICE, fake: openai },
    'stt-d': { adapter: 'deepgram', model: 'nova-3', fake: deepgram },
  });
  s = await startTestServer({ options: { configPath } });
  await promoteToEnterprise(s);
  speaker = await fliteSpeaker(s.runtime.db);
}, 120_000);
afterAll(async () => {
  await closeTestDispatcher();
  await s?.close();
  await Promise.all([openai?.close(), deepgram?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('eval run, show and rerun (DESIGN §15.8)', () => {
  let id: string;

  it('eval run --watch -q prints only the id', async () => {
    const r = await voxctl(['eval', 'run', '--texts', '-', '--speaker', speaker, '--providers', 'stt-b,stt-d', '--name', 'nightly', '--watch', '-q'], 'Hello there.\nGood morning.\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ev_\S+\n$/);
    id = r.stdout.trim();
    expect((await api(`/v1/evaluations/${id}`)).status).toBe('completed');
  }, 120_000);

  it('eval show: the pairwise table has a GROUP column, one row per group of a pair', async () => {
    const ev = await api(`/v1/evaluations/${id}`);
    const groups = [...new Set((ev.comparisons as Row[]).map((c) => c.group))];
    expect(groups).toHaveLength(2); // 'all' and the speaker's accent
    const r = await voxctl(['eval', 'show', id]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const header = lines.findIndex((l) => /^CONDITION\s+GROUP\s+A\s+B\s+WER_A/.test(l));
    expect(header, r.stdout).toBeGreaterThan(0);
    const rows = lines.slice(header + 1, header + 3);
    expect(rows.map((l) => l.split(/\s{2,}/)[1])).toEqual(groups);
    for (const row of rows) expect(row).toMatch(/^clean\s+\S.*stt-b.*stt-d/);
  });

  it('eval run --conversation --dry-run counts calls and every turn of every call, as the service then charges (DESIGN §16.1, §16.6)', async () => {
    const two = (await s.runtime.db.column<string>("SELECT id FROM speakers WHERE engine = 'flite' ORDER BY seq LIMIT 2")).join(',');
    const texts = 'Hello there.\nGood morning to you all.\n';
    const args = ['eval', 'run', '--texts', '-', '--speaker', two, '--providers', 'stt-b', '--conversation', '3:4', '--conditions', 'clean,telephone'];
    const dry = await voxctl(['--json', ...args, '--dry-run'], texts);
    expect(dry.code, dry.stderr).toBe(0);
    const d = JSON.parse(dry.stdout) as Row;
    expect(d).toMatchObject({ texts: 2, speakers: 2, calls: 3, utterances: 6 });
    // 4 turns a call over 2 texts: each text twice a call, whatever the draw.
    expect(d.characters).toBe(3 * 2 * ('Hello there.'.length + 'Good morning to you all.'.length));
    const human = await voxctl([...args, '--dry-run'], texts);
    expect(human.stdout).toMatch(/^utterances\s+6 = 3 calls × 2 conditions × 1 providers \(2 texts, 2 speakers\)$/m);
    const before = await charactersUsed(s);
    const created = await voxctl(['--json', ...args], texts);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ total_utterances: 6 });
    expect((await charactersUsed(s)) - before).toBe(d.characters);
    const tooFew = await voxctl(['eval', 'run', '--texts', '-', '--speaker', speaker, '--providers', 'stt-b', '--conversation', '1', '--dry-run'], texts);
    expect([tooFew.code, tooFew.stderr]).toEqual([2, expect.stringContaining('conversation.speakers_per_call (2) exceeds the 1 selected speaker')]);
  });

  it('eval rerun --name names the rerun; -q prints only its id, with and without --watch', async () => {
    const named = await voxctl(['eval', 'rerun', id, '--name', 'nightly 2026-11-28', '-q']);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toMatch(/^ev_\S+\n$/);
    expect(await api(`/v1/evaluations/${named.stdout.trim()}`)).toMatchObject({ name: 'nightly 2026-11-28', baseline_id: id });
    const watched = await voxctl(['eval', 'rerun', id, '--watch', '-q']);
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toMatch(/^ev_\S+\n$/);
    expect(await api(`/v1/evaluations/${watched.stdout.trim()}`)).toMatchObject({ name: 'nightly', status: 'completed' });
    const before = await count('evaluations');
    const refused = await voxctl(['eval', 'rerun', id, '--name', '']);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('Name must be 1 to 200 characters')]);
    expect(await count('evaluations')).toBe(before);
  }, 120_000);
});

describe('corpora: -q, --dry-run and bootstrap blocks (DESIGN §15.8, issue 30)', () => {
  const recs = recordings();
  let folder: string;
  let corpus: Row;

  beforeAll(() => {
    folder = buildCorpus(join(dir, 'calls'), 'audiofolder', recs);
  }, 120_000);

  it('corpus upload -q prints only the id; corpus show says where the extra bootstrap blocks come from', async () => {
    const r = await voxctl(['corpus', 'upload', folder, '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^cor_\S+\n$/);
    corpus = await api(`/v1/corpora/${r.stdout.trim()}`);
    const show = await voxctl(['corpus', 'show', corpus.corpus_id]);
    expect(show.stdout).toMatch(/^speakers\s+2 named \(in an evaluation, each utterance without a speaker is a block of its own\)$/m);
  }, 120_000);

  it('eval run --corpus ID --dry-run: recordings, audio minutes from the decoded audio, cost per provider; creates nothing', async () => {
    const before = await count('evaluations');
    const r = await voxctl(['--json', 'eval', 'run', '--corpus', corpus.corpus_id, '--providers', 'stt-b,stt-d', '--conditions', 'clean,speed:2', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout) as Row;
    // 10 recordings × 2 conditions; speed:2 sends half the audio: 1.5 × the corpus's length per provider.
    const minutes = (corpus.total_duration_seconds * 1.5) / 60;
    expect(d).toMatchObject({ dry_run: true, recordings: 10, utterances: 40, characters: 0, unpriced_providers: ['stt-d'], within_limits: true });
    expect(d.corpus).toMatchObject({ corpus_id: corpus.corpus_id, path: null, layout: 'audiofolder', utterances: 10, speakers: 2 });
    expect(d.providers[0]).toMatchObject({ provider: 'stt-b', utterances: 20, price_per_minute_usd: PRICE });
    expect(d.providers[0].audio_minutes).toBeCloseTo(minutes, 2);
    expect(d.providers[0].cost_usd).toBeCloseTo(minutes * PRICE, 6);
    expect(d.providers[1]).toMatchObject({ provider: 'stt-d', cost_usd: null });
    expect(d.cost_usd).toBe(d.providers[0].cost_usd);
    // A sample is priced at its share of the corpus.
    const sampled = JSON.parse((await voxctl(['--json', 'eval', 'run', '--corpus', corpus.corpus_id, '--providers', 'stt-b', '--sample', '4', '--dry-run'])).stdout) as Row;
    expect(sampled).toMatchObject({ recordings: 4, utterances: 4 });
    expect(sampled.audio_minutes).toBeCloseTo((corpus.total_duration_seconds * 0.4) / 60, 2);
    // The human view names the corpus and the cost.
    const human = await voxctl(['eval', 'run', '--corpus', corpus.corpus_id, '--providers', 'stt-b,stt-d', '--dry-run']);
    expect(human.stdout).toMatch(/^utterances\s+20 = 10 recordings × 1 conditions × 2 providers$/m);
    expect(human.stdout).toMatch(/^cost\s+\$0\.\d\d \+ unpriced: stt-d$/m);
    expect(await count('evaluations')).toBe(before);
  });

  it('eval run --corpus FOLDER --dry-run reads its manifests and audio headers, uploads nothing; an archive is refused', async () => {
    const [evaluations, corpora] = [await count('evaluations'), await count('corpora')];
    const r = await voxctl(['--json', 'eval', 'run', '--corpus', folder, '--providers', 'stt-b', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout) as Row;
    expect(d.corpus).toMatchObject({ corpus_id: null, path: folder, name: 'calls', layout: 'audiofolder', utterances: 10, speakers: 2 });
    expect(d.audio_minutes_estimate).toBe('read from the headers of its audio files');
    // FLAC headers give the length the service decoded (to the sample).
    expect(d.audio_minutes).toBeCloseTo(corpus.total_duration_seconds / 60, 2);
    expect(d.providers[0].cost_usd).toBeCloseTo((corpus.total_duration_seconds / 60) * PRICE, 5);
    const archive = await packCorpus(folder, join(dir, 'calls.zip'));
    const refused = await voxctl(['eval', 'run', '--corpus', archive, '--providers', 'stt-b', '--dry-run']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--dry-run reads a corpus folder or an uploaded corpus, not an archive');
    expect([await count('evaluations'), await count('corpora')]).toEqual([evaluations, corpora]);
  }, 120_000);

  it('eval show of a corpus evaluation says what SPEAKERS counts', async () => {
    const r = await voxctl(['eval', 'run', '--corpus', corpus.corpus_id, '--providers', 'stt-b', '--watch']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('SPEAKERS counts bootstrap blocks: each named speaker of the corpus, and each utterance without a speaker as a block of its own.');
  }, 120_000);
});
