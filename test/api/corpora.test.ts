import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { audioBlobNames } from '../helpers/backend-db.js';
import { startFakeS3, type FakeS3 } from '../helpers/fake-s3.js';
import { buildCorpus, convert, patchZipHost, patchZipName, rawTar, recordings, tarOf, zipDir, zipOf, type BuiltCorpus } from '../helpers/corpora.js';
import { createClient } from '../../src/client/client.js';
import { parseWav } from '../../src/server/audio/wav.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { DEFAULT_CORPUS_LIMITS } from '../../src/server/features/corpora/upload.js';

const UNRECOGNISED =
  'Unrecognised corpus layout: expected metadata.csv, a Common Voice .tsv, LibriSpeech *.trans.txt or a Kaldi wav.scp with text';

/** POST /v1/corpora with a multipart body (name first, as a form would send it). */
async function upload(server: TestServer, archive: Buffer, opts: { name?: string; filename?: string; key?: string } = {}) {
  const form = new FormData();
  if (opts.name !== '') form.append('name', opts.name ?? 'test corpus');
  form.append('file', new Blob([archive]), opts.filename ?? 'corpus.zip');
  const res = await fetch(`${server.url}/v1/corpora`, { method: 'POST', headers: { authorization: `Bearer ${opts.key ?? server.key}` }, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('corpora: upload and views (DESIGN §10)', () => {
  let server: TestServer;
  const work = mkdtempSync(join(tmpdir(), 'voxctl-corpora-'));
  const recs = recordings();
  // Three utterances per corpus: two readers, every format of the layout, and the test stays fast.
  const pick = [recs[1]!, recs[5]!, recs[7]!];
  const built = new Map<string, { archive: Buffer; expected: BuiltCorpus }>();

  beforeAll(async () => {
    server = await startTestServer();
    for (const [layout, pack] of [
      ['audiofolder', 'zip'],
      ['commonvoice', 'tgz'],
      ['librispeech', 'tar'],
      ['kaldi', 'zip'],
    ] as const) {
      const dir = join(work, layout);
      const expected = buildCorpus(dir, layout, pick);
      const archive = pack === 'zip' ? await zipDir(dir) : await tarOf(dir, { gzip: pack === 'tgz' });
      built.set(layout, { archive, expected });
    }
  }, 120_000);
  afterAll(async () => {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  });

  it.each(['audiofolder', 'commonvoice', 'librispeech', 'kaldi'])('uploads a %s corpus of real recordings and reads it back', async (layout) => {
    const { archive, expected } = built.get(layout)!;
    const res = await upload(server, archive, { name: `My ${layout}` });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const speakers = new Set(expected.utterances.map((u) => u.speaker)).size;
    expect(res.body).toMatchObject({ name: `My ${layout}`, layout, utterances: 3, speakers, metadata_fields: expected.metadataFields });
    expect(res.body.corpus_id).toMatch(/^cor_[A-Za-z0-9_-]+$/);
    expect(Date.parse(res.body.created_at)).not.toBeNaN();
    // The decoded total is the recordings' own length (lossy codecs pad by a few ms at most).
    const source = pick.reduce((sum, r) => {
      const info = parseWav(new Uint8Array(readFileSync(r.wav)));
      return sum + info.frames / info.sampleRate;
    }, 0);
    expect(Math.abs(res.body.total_duration_seconds - source)).toBeLessThan(0.2);

    const id = res.body.corpus_id as string;
    expect((await call(server, 'GET', `/v1/corpora/${id}`, { key: server.key })).body).toEqual(res.body);
    const page = await call(server, 'GET', `/v1/corpora/${id}/utterances`, { key: server.key });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 3, limit: 20, offset: 0, has_more: false });
    expect(
      page.body.items.map((u: Record<string, unknown>) => ({ id: u.utterance_id, reference: u.reference, speaker: u.speaker, metadata: u.metadata })),
    ).toEqual(expected.utterances);
    let sum = 0;
    for (const u of page.body.items) {
      sum += u.duration_seconds;
      // The signed URL serves the decoded audio: 16-bit PCM mono WAV at its own rate, no key needed.
      const wav = await fetch(u.audio_url);
      expect(wav.status).toBe(200);
      const info = parseWav(new Uint8Array(await wav.arrayBuffer()));
      expect([info.channels, info.bitsPerSample, info.format]).toEqual([1, 16, 'pcm']);
      expect([16000, 48000]).toContain(info.sampleRate);
      expect(Math.abs(info.frames / info.sampleRate - u.duration_seconds)).toBeLessThan(0.002);
    }
    expect(Math.abs(sum - res.body.total_duration_seconds)).toBeLessThan(0.01);
  });

  it('lists corpora newest first in the envelope, pages utterances, hides them from other users', async () => {
    const list = await call(server, 'GET', '/v1/corpora?limit=2', { key: server.key });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 4, limit: 2, offset: 0, has_more: true });
    expect(list.body.items.map((c: { layout: string }) => c.layout)).toEqual(['kaldi', 'librispeech']);
    const id = list.body.items[0].corpus_id as string;
    const second = await call(server, 'GET', `/v1/corpora/${id}/utterances?limit=1&offset=1`, { key: server.key });
    expect(second.body).toMatchObject({ total: 3, limit: 1, offset: 1, has_more: true });
    expect(second.body.items.map((u: { utterance_id: string }) => u.utterance_id)).toEqual(['utt1']);

    const { key } = await createUserWithKey(server.runtime.db, { email: 'other@example.com', tier: 'pro', now: new Date() });
    for (const path of [`/v1/corpora/${id}`, `/v1/corpora/${id}/utterances`]) {
      const res = await call(server, 'GET', path, { key: key.key });
      expect([res.status, res.body.detail, res.body.code]).toEqual([404, 'Corpus not found', 'corpus_not_found']);
    }
    const del = await call(server, 'DELETE', `/v1/corpora/${id}`, { key: key.key });
    expect([del.status, del.body.detail]).toEqual([404, 'Corpus not found']);
    expect((await call(server, 'GET', '/v1/corpora', { key: key.key })).body).toMatchObject({ items: [], total: 0 });
  });

  it('deletes a corpus with its audio: 204, then 404, and its blobs are gone', async () => {
    const res = await upload(server, built.get('audiofolder')!.archive, { name: 'to delete' });
    const id = res.body.corpus_id as string;
    const urls = (await call(server, 'GET', `/v1/corpora/${id}/utterances`, { key: server.key })).body.items.map((u: { audio_url: string }) => u.audio_url);
    const blobsBefore = await audioBlobNames(server.dataDir);
    const del = await call(server, 'DELETE', `/v1/corpora/${id}`, { key: server.key });
    expect(del.status).toBe(204);
    expect((await call(server, 'GET', `/v1/corpora/${id}`, { key: server.key })).status).toBe(404);
    expect((await call(server, 'DELETE', `/v1/corpora/${id}`, { key: server.key })).status).toBe(404);
    expect((await audioBlobNames(server.dataDir)).length).toBe(blobsBefore.length - 3);
    for (const url of urls) expect((await fetch(url)).status).toBe(404);
  });

  it('refuses to delete a corpus a running evaluation uses: 409', async () => {
    const res = await upload(server, built.get('kaldi')!.archive, { name: 'in use' });
    const id = res.body.corpus_id as string;
    const db = server.runtime.db;
    // An evaluation of the corpus, running (`evaluations.corpus_id`, the corpus-evaluation migration).
    try {
      await db.run(
        `INSERT INTO evaluations (id, user_id, name, status, total_utterances, providers, conditions, group_by, normalizer, normalizer_version, seed, period, created_at, corpus_id)
         VALUES ('ev_corpus_test', (SELECT user_id FROM corpora WHERE id = ?), NULL, 'processing', 3, '["local-sphinx"]', '["clean"]', 'speaker', 'basic', 1, 0, '2026-11', ?, ?)`,
        [id, new Date().toISOString(), id],
      );
      const del = await call(server, 'DELETE', `/v1/corpora/${id}`, { key: server.key });
      expect([del.status, del.body.detail, del.body.code]).toEqual([409, 'Corpus is used by a running evaluation', 'conflict']);
      await db.run("UPDATE evaluations SET status = 'completed' WHERE id = 'ev_corpus_test'");
      expect((await call(server, 'DELETE', `/v1/corpora/${id}`, { key: server.key })).status).toBe(204);
    } finally {
      await db.run("DELETE FROM evaluations WHERE id = 'ev_corpus_test'");
    }
  });

  it('uploads through the client, streaming a file from disk', async () => {
    const path = join(work, 'librispeech.tar');
    writeFileSync(path, built.get('librispeech')!.archive);
    const client = createClient({ baseUrl: server.url, apiKey: server.key });
    const seen: number[] = [];
    const corpus = await client.uploadCorpus({ name: 'via client', file: path, onProgress: (n) => seen.push(n) });
    expect(corpus).toMatchObject({ name: 'via client', layout: 'librispeech', utterances: 3, speakers: 2 });
    expect(seen.at(-1)).toBe(built.get('librispeech')!.archive.length);
    expect((await client.getCorpus(corpus.corpus_id)).name).toBe('via client');
    expect((await client.listCorpusUtterances(corpus.corpus_id, { limit: 1 })).items).toHaveLength(1);
    expect((await client.listCorpora()).items[0]!.corpus_id).toBe(corpus.corpus_id);
    await client.deleteCorpus(corpus.corpus_id);
    await expect(client.getCorpus(corpus.corpus_id)).rejects.toMatchObject({ status: 404, code: 'corpus_not_found' });
  });

  it('documents every corpus route in /openapi.json', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    expect(Object.keys(doc.paths['/v1/corpora']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/corpora/{corpus_id}']!).sort()).toEqual(['delete', 'get']);
    expect(doc.paths['/v1/corpora/{corpus_id}/utterances']!.get!.responses).toHaveProperty('200');
    expect(doc.paths['/v1/corpora']!.post!.responses).toHaveProperty('413');
    expect(doc.paths['/v1/corpora/{corpus_id}']!.delete!.responses).toHaveProperty('409');
  });
});

describe('corpora: every refusal of §10.3 leaves nothing behind', () => {
  let server: TestServer;
  const work = mkdtempSync(join(tmpdir(), 'voxctl-corpora-bad-'));
  const speech = recordings()[1]!;
  let wav: Buffer;
  let flac: Buffer;

  beforeAll(async () => {
    server = await startTestServer();
    convert(speech.wav, join(work, 'a.flac'));
    wav = readFileSync(speech.wav);
    flac = readFileSync(join(work, 'a.flac'));
  });
  afterEach(() => {
    Object.assign(server.runtime.corpora.limits, DEFAULT_CORPUS_LIMITS);
  });
  afterAll(async () => {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** Nothing stored: no corpus, no upload row, no corpus audio row or blob, no temp folder. */
  async function expectNothingStored() {
    const db = server.runtime.db;
    expect(Number(await db.value('SELECT COUNT(*) FROM corpora'))).toBe(0);
    expect(Number(await db.value('SELECT COUNT(*) FROM corpus_uploads'))).toBe(0);
    expect(Number(await db.value('SELECT COUNT(*) FROM corpus_utterances'))).toBe(0);
    expect(Number(await db.value("SELECT COUNT(*) FROM audio WHERE id LIKE 'aud_c%'"))).toBe(0);
    expect((await audioBlobNames(server.dataDir)).filter((n) => n.startsWith('aud_c'))).toEqual([]);
    const tmp = join(server.dataDir, 'tmp', 'corpora');
    expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]);
  }

  const metadata = (rows: string) => ({ name: 'metadata.csv', data: `file_name,text\n${rows}` });

  const cases: { name: string; archive: () => Promise<Buffer> | Buffer; status?: number; detail: string; limits?: Partial<typeof DEFAULT_CORPUS_LIMITS> }[] = [
    { name: 'not an archive', archive: () => Buffer.from('just some text, not a zip or a tar\n'.repeat(40)), detail: 'Archive is not a zip or tar file' },
    { name: 'an audio file instead of an archive', archive: () => wav, detail: 'Archive is not a zip or tar file' },
    {
      name: 'zip-slip (../x in a zip)',
      archive: async () => patchZipName(await zipOf([metadata('a.wav,hello\n'), { name: 'a.wav', data: wav }, { name: 'zz/evil.txt', data: 'x' }]), 'zz/evil.txt', '../evil.txt'),
      detail: 'Unsafe path in archive: ../evil.txt',
    },
    {
      name: 'absolute path in a zip',
      archive: async () => patchZipName(await zipOf([{ name: 'xtmp/evil.txt', data: 'x' }, metadata('a.wav,hi\n')]), 'xtmp/evil.txt', '/tmp/evil.txt'),
      detail: 'Unsafe path in archive: /tmp/evil.txt',
    },
    { name: 'symlink in a zip', archive: () => zipOf([metadata('a.wav,hi\n'), { name: 'a.wav', data: '/etc/passwd', mode: 0o120777 }]), detail: 'Unsafe path in archive: a.wav' },
    {
      name: 'symlink in a zip made on OS X (host 19)',
      archive: async () => patchZipHost(await zipOf([metadata('a.wav,hi\n'), { name: 'a.wav', data: '/etc/passwd', mode: 0o120777 }]), 19),
      detail: 'Unsafe path in archive: a.wav',
    },
    { name: 'FIFO in a zip made by an unknown host', archive: async () => patchZipHost(await zipOf([metadata('a.wav,hi\n'), { name: 'pipe', data: '', mode: 0o010644 }]), 30), detail: 'Unsafe path in archive: pipe' },
    { name: 'symlink in a tar', archive: () => rawTar([{ path: 'metadata.csv', data: 'file_name,text\na.wav,hi\n' }, { path: 'a.wav', type: 'SymbolicLink', linkpath: '/etc/passwd' }]), detail: 'Unsafe path in archive: a.wav' },
    { name: 'hard link in a tar', archive: () => rawTar([{ path: 'b.wav', data: wav }, { path: 'a.wav', type: 'Link', linkpath: 'b.wav' }]), detail: 'Unsafe path in archive: a.wav' },
    { name: 'FIFO in a tar', archive: () => rawTar([{ path: 'pipe', type: 'FIFO' }]), detail: 'Unsafe path in archive: pipe' },
    { name: 'character device in a tar', archive: () => rawTar([{ path: 'dev/null', type: 'CharacterDevice' }]), detail: 'Unsafe path in archive: dev/null' },
    { name: '.. in a tar', archive: () => rawTar([{ path: 'corpus/../../evil', data: 'x' }]), detail: 'Unsafe path in archive: corpus/../../evil' },
    { name: 'absolute path in a tar', archive: () => rawTar([{ path: '/tmp/evil', data: 'x' }]), detail: 'Unsafe path in archive: /tmp/evil' },
    {
      name: 'a zip bomb past a lowered limit',
      archive: () => zipOf([metadata('a.wav,hi\n'), { name: 'a.wav', data: Buffer.alloc(4 * 1024 * 1024) }]),
      limits: { maxExpandedBytes: 1024 * 1024 },
      detail: 'Archive expands beyond 10 GiB',
    },
    {
      name: 'a tar.gz bomb past a lowered limit',
      archive: async () => {
        const { gzipSync } = await import('node:zlib');
        return gzipSync(rawTar([{ path: 'metadata.csv', data: 'file_name,text\na.wav,hi\n' }, { path: 'a.wav', data: Buffer.alloc(4 * 1024 * 1024) }]));
      },
      limits: { maxExpandedBytes: 1024 * 1024 },
      detail: 'Archive expands beyond 10 GiB',
    },
    {
      name: 'more entries than a lowered limit',
      archive: () => zipOf(Array.from({ length: 12 }, (_, i) => ({ name: `f${i}.txt`, data: 'x' }))),
      limits: { maxEntries: 10 },
      detail: 'Archive has more than 100000 entries',
    },
    {
      name: 'more tar entries than a lowered limit',
      archive: () => rawTar(Array.from({ length: 12 }, (_, i) => ({ path: `f${i}.txt`, data: 'x' }))),
      limits: { maxEntries: 10 },
      detail: 'Archive has more than 100000 entries',
    },
    { name: 'an archive over the (lowered) size limit', archive: () => zipOf([metadata('a.wav,hi\n'), { name: 'a.wav', data: wav }]), limits: { archiveBytes: 10_000 }, status: 413, detail: 'Archive exceeds 2 GiB' },
    { name: 'no layout', archive: () => zipOf([{ name: 'a.wav', data: wav }, { name: 'notes.txt', data: 'x' }]), detail: UNRECOGNISED },
    { name: 'two layouts', archive: () => zipOf([metadata('a.wav,hi\n'), { name: 'a.wav', data: wav }, { name: '1-2.trans.txt', data: '1-2-3 HI\n' }, { name: '1-2-3.flac', data: flac }]), detail: UNRECOGNISED },
    { name: 'no utterances', archive: () => zipOf([metadata(''), { name: 'a.wav', data: wav }]), detail: 'Corpus has no utterances' },
    {
      name: 'more utterances than a lowered limit',
      archive: () => zipOf([metadata('a.wav,one\nb.wav,two\nc.wav,three\n'), ...['a', 'b', 'c'].map((n) => ({ name: `${n}.wav`, data: wav }))]),
      limits: { maxUtterances: 2 },
      detail: 'Corpus exceeds 20000 utterances',
    },
    { name: 'a missing file', archive: () => zipOf([metadata('a.wav,hello\nmissing.flac,there\n'), { name: 'a.wav', data: wav }]), detail: 'metadata.csv:3: audio file not found in the archive: missing.flac' },
    { name: 'a missing transcript', archive: () => zipOf([metadata('a.wav,hello\nb.wav,\n'), { name: 'a.wav', data: wav }, { name: 'b.wav', data: wav }]), detail: 'metadata.csv:3: missing transcript' },
    { name: 'a duplicate id', archive: () => rawTar([{ path: 'wav.scp', data: 'u1 a.wav\nu1 a.wav\n' }, { path: 'text', data: 'u1 hi\n' }, { path: 'a.wav', data: wav }]), detail: 'Duplicate utterance id: u1' },
    {
      name: 'a reference with nothing to speak',
      archive: () => zipOf([metadata('a.wav,"?!"\n'), { name: 'a.wav', data: wav }]),
      detail: 'Utterance a: Text has nothing to speak',
    },
    {
      name: 'corrupt audio (after good files were stored)',
      archive: () => zipOf([metadata('a.wav,one\nb.flac,two\nc.flac,three\nd.wav,four\n'), { name: 'a.wav', data: wav }, { name: 'b.flac', data: flac }, { name: 'c.flac', data: flac }, { name: 'd.wav', data: 'RIFF....WAVEjunk' }]),
      detail: 'd.wav: unsupported or corrupt audio',
    },
    {
      name: 'corrupt audio in a top folder (the path named relative to it)',
      archive: () => zipOf([{ name: 'top/metadata.csv', data: 'file_name,text\nclips/x.mp3,hi\n' }, { name: 'top/clips/x.mp3', data: Buffer.alloc(5000, 0x41) }]),
      detail: 'clips/x.mp3: unsupported or corrupt audio',
    },
    {
      name: 'audio longer than the (lowered) limit',
      archive: () => zipOf([metadata('a.wav,one\nb.flac,two\n'), { name: 'a.wav', data: wav }, { name: 'b.flac', data: flac }]),
      limits: { maxAudioSeconds: 1 },
      detail: 'a.wav: audio longer than 10 minutes',
    },
  ];

  it.each(cases)('$name → $detail', async ({ archive, status, detail, limits }) => {
    Object.assign(server.runtime.corpora.limits, limits ?? {});
    const res = await upload(server, await archive());
    expect([res.status, res.body.detail], JSON.stringify(res.body)).toEqual([status ?? 400, detail]);
    await expectNothingStored();
  });

  it('answers 413 at once when the declared size is far past the limit, storing nothing', async () => {
    server.runtime.corpora.limits.archiveBytes = 10_000;
    const res = await upload(server, await zipOf([metadata('a.wav,hi\n'), { name: 'a.wav', data: randomBytes(3 * 1024 * 1024) }]));
    expect([res.status, res.body.detail]).toEqual([413, 'Archive exceeds 2 GiB']);
    await expectNothingStored();
  });

  it('accepts archives as zip -r and GNU tar make them, and refuses their links and FIFOs', async () => {
    const dir = join(work, 'tools');
    mkdirSync(join(dir, 'corpus', 'audio'), { recursive: true });
    writeFileSync(join(dir, 'corpus', 'metadata.csv'), `file_name,text\naudio/a.flac,${speech.text}\n`);
    writeFileSync(join(dir, 'corpus', 'audio', 'a.flac'), flac);
    const pack = (args: string[], out: string) => {
      execFileSync(args[0]!, [...args.slice(1)], { cwd: dir, stdio: 'ignore' });
      return readFileSync(join(dir, out));
    };
    const gnuTgz = pack(['tar', 'czf', 'c.tgz', 'corpus'], 'c.tgz');
    const res = await upload(server, gnuTgz, { name: 'gnu tar' });
    expect([res.status, res.body.layout, res.body.utterances]).toEqual([201, 'audiofolder', 1]);
    expect((await call(server, 'DELETE', `/v1/corpora/${res.body.corpus_id}`, { key: server.key })).status).toBe(204);
    if (existsSync('/usr/bin/zip')) {
      const zipped = await upload(server, pack(['zip', '-qr', 'c.zip', 'corpus'], 'c.zip'), { name: 'zip -r' });
      expect([zipped.status, zipped.body.utterances]).toEqual([201, 1]);
      expect((await call(server, 'DELETE', `/v1/corpora/${zipped.body.corpus_id}`, { key: server.key })).status).toBe(204);
      symlinkSync('/etc/passwd', join(dir, 'corpus', 'audio', 'b.flac'));
      const link = await upload(server, pack(['zip', '-qry', 'l.zip', 'corpus'], 'l.zip'));
      expect([link.status, link.body.detail]).toEqual([400, 'Unsafe path in archive: corpus/audio/b.flac']);
      rmSync(join(dir, 'corpus', 'audio', 'b.flac'));
    }
    symlinkSync('/etc/passwd', join(dir, 'corpus', 'audio', 'b.flac'));
    expect((await upload(server, pack(['tar', 'cf', 's.tar', 'corpus'], 's.tar'))).body.detail).toBe('Unsafe path in archive: corpus/audio/b.flac');
    rmSync(join(dir, 'corpus', 'audio', 'b.flac'));
    linkSync(join(dir, 'corpus', 'audio', 'a.flac'), join(dir, 'corpus', 'audio', 'c.flac'));
    expect((await upload(server, pack(['tar', 'cf', 'h.tar', 'corpus'], 'h.tar'))).body.detail).toMatch(/^Unsafe path in archive: corpus\/audio\/[ac]\.flac$/);
    rmSync(join(dir, 'corpus', 'audio', 'c.flac'));
    execFileSync('mkfifo', [join(dir, 'corpus', 'fifo')]);
    expect((await upload(server, pack(['tar', 'cf', 'f.tar', 'corpus'], 'f.tar'))).body.detail).toBe('Unsafe path in archive: corpus/fifo');
    await expectNothingStored();
  });

  it('a client that hangs up mid-upload leaves no temp file', async () => {
    const { request } = await import('node:http');
    const boundary = 'xxBOUNDARYxx';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\ncut\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.tar"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const req = request(`${server.url}/v1/corpora`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.key}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(50 * 1024 * 1024) },
    });
    req.on('error', () => {});
    req.write(head);
    req.write(randomBytes(2 * 1024 * 1024));
    const tmp = join(server.dataDir, 'tmp', 'corpora');
    // The archive is being received: its folder exists.
    for (let i = 0; i < 500 && !(existsSync(tmp) && readdirSync(tmp).length > 0); i++) await new Promise((r) => setTimeout(r, 10));
    expect(readdirSync(tmp).length).toBe(1);
    req.destroy();
    for (let i = 0; i < 500 && readdirSync(tmp).length > 0; i++) await new Promise((r) => setTimeout(r, 10));
    await expectNothingStored();
  });

  it('never runs a wav.scp command pipeline', async () => {
    const marker = join(work, 'pwned');
    const res = await upload(server, rawTar([{ path: 'wav.scp', data: `u1 touch ${marker} |\n` }, { path: 'text', data: 'u1 hello\n' }, { path: 'a.wav', data: wav }]));
    expect([res.status, res.body.detail]).toEqual([400, 'wav.scp:1: command pipelines are not supported, only file paths']);
    expect(existsSync(marker)).toBe(false);
    await expectNothingStored();
  });

  it('wants a name of 1..200 characters and a file part', async () => {
    const archive = await zipOf([metadata('a.wav,hi\n'), { name: 'a.wav', data: wav }]);
    expect((await upload(server, archive, { name: '' })).body.detail).toBe("Missing required field 'name'");
    expect((await upload(server, archive, { name: '   ' })).body.detail).toBe('name must be 1 to 200 characters');
    expect((await upload(server, archive, { name: 'x'.repeat(201) })).body.detail).toBe('name must be 1 to 200 characters');
    const form = new FormData();
    form.append('name', 'no file');
    const res = await fetch(`${server.url}/v1/corpora`, { method: 'POST', headers: { authorization: `Bearer ${server.key}` }, body: form });
    expect(await res.json()).toMatchObject({ status_code: 400, detail: "Missing required file 'file'" });
    await expectNothingStored();
  });

  it('keeps the 25 MB multipart limit of the other upload routes', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(26 * 1024 * 1024)]), 'big.wav');
    const res = await fetch(`${server.url}/v1/audio`, { method: 'POST', headers: { authorization: `Bearer ${server.key}` }, body: form });
    expect(res.status).toBe(413);
  });
});

describe('corpora: audio in an S3-compatible store (DESIGN §9.2)', () => {
  let server: TestServer;
  let fake: FakeS3;
  const work = mkdtempSync(join(tmpdir(), 'voxctl-corpora-s3-'));
  const saved = { ...process.env };

  beforeAll(async () => {
    fake = await startFakeS3({ buckets: ['voxctl-audio'] });
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: fake.accessKeyId, AWS_SECRET_ACCESS_KEY: fake.secretAccessKey, AWS_REGION: fake.region });
    server = await startTestServer({ options: { audioStore: 's3://voxctl-audio/team', s3Endpoint: fake.endpoint } });
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
    for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    rmSync(work, { recursive: true, force: true });
  });

  const objects = () => [...(fake.buckets.get('voxctl-audio')?.keys() ?? [])].filter((k) => k.startsWith('team/aud_c')).sort();

  it('stores, serves and deletes corpus audio as objects; a refused upload leaves none', async () => {
    const recs = recordings();
    buildCorpus(work, 'kaldi', [recs[0]!, recs[6]!]);
    const archive = await tarOf(work, { gzip: true });
    const res = await upload(server, archive, { name: 'on s3' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(objects()).toHaveLength(2);
    const items = (await call(server, 'GET', `/v1/corpora/${res.body.corpus_id}/utterances`, { key: server.key })).body.items;
    for (const u of items) expect((await fetch(u.audio_url)).status).toBe(200);

    const bad = await upload(server, await zipOf([{ name: 'metadata.csv', data: 'file_name,text\na.wav,one\nb.wav,two\n' }, { name: 'a.wav', data: readFileSync(recs[0]!.wav) }, { name: 'b.wav', data: 'RIFFjunk' }]));
    expect([bad.status, bad.body.detail]).toEqual([400, 'b.wav: unsupported or corrupt audio']);
    expect(objects()).toHaveLength(2);

    expect((await call(server, 'DELETE', `/v1/corpora/${res.body.corpus_id}`, { key: server.key })).status).toBe(204);
    expect(objects()).toEqual([]);
  });
});
