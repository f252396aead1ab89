import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSI, cli, createSandbox, type Sandbox } from '../helpers/cli.js';
import { call } from '../helpers/core-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { buildCorpus, LAYOUTS, packCorpus, recordings } from '../helpers/corpus-fixtures.js';

// `voxctl corpus` and `eval run --corpus` through the built CLI (run `npm run build` first) against a real
// service, with corpora of real read speech (pocketsphinx-testdata) in each layout, as folders and archives.
let s: TestServer;
let sb: Sandbox;
let root: string;
const run = (args: string[], timeout = 60_000) => cli(sb, args, { env: { VOXCTL_BASE_URL: s.url, VOXCTL_API_KEY: s.key }, timeout });
const corpusCount = async () => (await call(s, 'GET', '/v1/corpora', { key: s.key })).body.total as number;
const recs = recordings();

beforeAll(async () => {
  s = await startTestServer();
  sb = createSandbox();
  root = mkdtempSync(join(tmpdir(), 'voxctl-cli-corpus-'));
});
afterAll(async () => {
  await s?.close();
  sb?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

describe('voxctl corpus upload: refused on this machine before anything is sent (exit 2)', () => {
  it('names the layout problem, or the first bad manifest line, with the service message', async () => {
    mkdirSync(join(root, 'empty'));
    writeFileSync(join(root, 'empty', 'notes.txt'), 'recordings to come');
    let r = await run(['corpus', 'upload', join(root, 'empty'), '--name', 'nothing']);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      'Unrecognised corpus layout: expected metadata.csv, a Common Voice .tsv, LibriSpeech *.trans.txt or a Kaldi wav.scp with text',
    );
    const bad = buildCorpus(join(root, 'bad'), 'audiofolder', recs.slice(0, 2));
    writeFileSync(join(bad, 'metadata.csv'), readFileSync(join(bad, 'metadata.csv'), 'utf8') + 'audio/gone.flac,a lost file,x,male\n');
    r = await run(['--json', 'corpus', 'upload', bad]);
    expect(r.exitCode).toBe(2);
    const err = JSON.parse(r.stderr.trim().split('\n').pop()!).error;
    // A folder is no archive: the file is said to be missing from the folder (issue 30).
    expect(err).toMatchObject({ code: 'validation_failed', message: 'metadata.csv:4: audio file not found in the folder: audio/gone.flac' });
    // A typo in the manifest's header names the manifest and what it lacks, not the generic layout error.
    const typo = buildCorpus(join(root, 'typo'), 'audiofolder', recs.slice(0, 2));
    writeFileSync(join(typo, 'metadata.csv'), readFileSync(join(typo, 'metadata.csv'), 'utf8').replace(/^file_name,transcription/, 'file_name,transcripton'));
    r = await run(['corpus', 'upload', typo]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^Error: Unrecognised corpus layout: metadata\.csv lacks a transcript column \(transcription, text, sentence or transcript\); its header has file_name, transcripton/);
    r = await run(['corpus', 'upload', join(root, 'missing-folder')]);
    expect([r.exitCode, r.stderr]).toEqual([2, `Error: No such file or directory: ${join(root, 'missing-folder')}\n`]);
    r = await run(['corpus', 'upload', join(bad, 'metadata.csv')]);
    expect(r.exitCode).toBe(2);
    expect(await corpusCount()).toBe(0);
  });
});

describe('voxctl corpus upload of every layout, as a folder and as an archive', () => {
  it.each(LAYOUTS)('%s folder (streamed as a tar) and archive', async (layout) => {
    const dir = buildCorpus(join(root, `dir-${layout}`), layout, recs);
    const r = await run(['--json', 'corpus', 'upload', dir, '--name', `${layout} folder`], 120_000);
    expect(r.exitCode, r.stderr).toBe(0);
    const view = JSON.parse(r.stdout);
    expect(view).toMatchObject({ name: `${layout} folder`, layout, utterances: 10, speakers: 2 });
    expect(view.corpus_id).toMatch(/^cor_/);
    // Under --json every stderr line is JSON: progress events by bytes.
    const events = r.stderr.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(events.length).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ event: 'progress', phase: 'upload', percent: 100 });
    expect(events.at(-1).bytes_sent).toBe(events.at(-1).bytes_total);

    const ext = { audiofolder: '.zip', commonvoice: '.tar', librispeech: '.tar.gz', kaldi: '.tgz' }[layout];
    const archive = await packCorpus(dir, join(root, `${layout}${ext}`));
    const a = await run(['corpus', 'upload', archive], 120_000);
    expect(a.exitCode, a.stderr).toBe(0);
    // Piped: the human view on stdout, no progress bar nor escape codes on stderr.
    expect(a.stdout).toMatch(new RegExp(`^layout\\s+${layout}$`, 'm'));
    expect(a.stdout).toMatch(new RegExp(`^name\\s+${layout}$`, 'm'));
    expect(a.stderr).not.toMatch(ANSI);
    expect(a.stderr).toContain(`Uploaded 10 utterance(s) of 2 speaker(s)`);
  });
});

describe('voxctl corpus list, show, utterances, delete', () => {
  let id: string;
  beforeAll(async () => {
    const dir = buildCorpus(join(root, 'listing'), 'kaldi', recs.slice(5));
    const r = await run(['--json', 'corpus', 'upload', dir, '--name', 'cards']);
    expect(r.exitCode, r.stderr).toBe(0);
    id = JSON.parse(r.stdout).corpus_id;
  });

  it('lists as a table, JSON and CSV, with paging', async () => {
    const table = await run(['corpus', 'list']);
    expect(table.exitCode).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^CORPUS_ID\s+NAME\s+LAYOUT\s+UTTERANCES\s+SPEAKERS/);
    expect(table.stdout).toContain(id);
    const json = JSON.parse((await run(['--json', 'corpus', 'list', '--limit', '1'])).stdout);
    expect(json).toMatchObject({ limit: 1, offset: 0, has_more: true });
    expect(json.items[0].corpus_id).toBe(id); // newest first
    const csv = (await run(['corpus', 'list', '--all', '--csv'])).stdout.trim().split('\n');
    expect(csv[0]).toBe('corpus_id,name,layout,utterances,speakers,duration_s,metadata_fields,created_at');
    expect(csv.length - 1).toBe(await corpusCount());
  });

  it('shows a corpus and its utterances', async () => {
    const show = await run(['corpus', 'show', id]);
    expect(show.stdout).toMatch(/^utterances\s+5$/m);
    expect(show.stdout).toMatch(/^metadata_fields\s+gender$/m);
    expect(JSON.parse((await run(['--json', 'corpus', 'show', id])).stdout)).toMatchObject({ corpus_id: id, layout: 'kaldi', speakers: 1 });
    const csv = (await run(['corpus', 'utterances', id, '--csv'])).stdout.trim().split('\n');
    expect(csv[0]).toBe('utterance_id,speaker,duration_seconds,reference,metadata,audio_url');
    expect(csv).toHaveLength(6);
    expect(csv[1]).toMatch(/^cards-cards001,cards,[\d.]+,ten of clubs,"\{""gender"":""m""\}",http/);
    const page = JSON.parse((await run(['--json', 'corpus', 'utterances', id, '--limit', '2', '--offset', '1'])).stdout);
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 1, has_more: true });
  });

  it('deletes; an unknown corpus is exit 4', async () => {
    const del = await run(['corpus', 'delete', id]);
    expect(del.exitCode, del.stderr).toBe(0);
    const gone = await run(['corpus', 'show', id]);
    expect(gone.exitCode).toBe(4);
    expect(gone.stderr).toMatch(/^Error: Corpus not found \(request req_\w+\)$/m);
    expect((await run(['corpus', 'delete', id])).exitCode).toBe(4);
  });
});

describe('voxctl eval run --corpus', () => {
  it('refuses speakers and a path that is not there (exit 2)', async () => {
    let r = await run(['eval', 'run', '--corpus', 'cor_x', '--speaker', 'spk_a', '--providers', 'local-sphinx']);
    expect([r.exitCode, r.stderr]).toEqual([2, 'Error: speakers does not apply to a corpus\n']);
    r = await run(['eval', 'run', '--corpus', join(root, 'nowhere'), '--providers', 'local-sphinx']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`--corpus: no such file or directory: ${join(root, 'nowhere')}`);
    r = await run(['eval', 'run', '--corpus', 'cor_missing', '--providers', 'local-sphinx']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/^Error: Corpus not found \(request req_\w+\)$/m);
  });

  it('uploads a folder, evaluates it on local-sphinx and saves the report', async () => {
    const dir = buildCorpus(join(root, 'my-recordings'), 'librispeech', recs);
    const r = await run(['eval', 'run', '--corpus', dir, '--providers', 'local-sphinx', '--sample', '4', '--seed', '2', '--watch', '--report', 'r.html'], 280_000);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`Uploaded ${dir} as cor_\\S+: 10 utterance\\(s\\), 2 speaker\\(s\\) \\(librispeech\\)`));
    const evId = /^(ev_\S+): 4 utterances$/m.exec(r.stderr)![1]!;
    expect(r.stderr).toMatch(new RegExp(`^${evId}: completed 100% \\(4/4\\)$`, 'm'));
    expect(r.stdout).toMatch(/^corpus\s+my-recordings \(cor_\S+\)$/m);
    expect(r.stdout).toMatch(/^group_by\s+speaker$/m);
    const html = readFileSync(join(sb.root, 'r.html'), 'utf8');
    expect(html).toContain('recorded corpus my-recordings');
    const rows = await run(['eval', 'utterances', evId, '--csv']);
    expect(rows.stdout.split('\n')[0]).toMatch(/^text_index,utterance_id,speaker_id,group,/);
    expect(rows.stdout).toMatch(/\n\d,10[01]-2000-000\d,10[01],10[01],clean,local-sphinx,/);
    expect(existsSync(join(sb.root, 'r.html'))).toBe(true);
  }, 300_000);
});
