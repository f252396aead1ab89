import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/server.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { audioBlobNames, withBackendDb } from '../helpers/backend-db.js';
import { convert, recordings, tarOf } from '../helpers/corpora.js';
import { until } from '../helpers/until.js';

/** Starts POST /v1/corpora of `archive`; the promise settles when the server answers or dies. */
function startUpload(url: string, archive: Buffer): Promise<number | 'died'> {
  const form = new FormData();
  form.append('name', 'killed');
  form.append('file', new Blob([archive]), 'corpus.tar.gz');
  return fetch(`${url}/v1/corpora`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: form }).then(
    (r) => r.status,
    () => 'died' as const,
  );
}

/** Polls `check` every 5 ms until it holds (or fails after `ms`). */

const uploadFolders = (dataDir: string): string[] => {
  const root = join(dataDir, 'tmp', 'corpora');
  return existsSync(root) ? readdirSync(root) : [];
};

/** What a half-done upload may have left in the database. */
const leftRows = (dataDir: string) =>
  withBackendDb(dataDir, async (db) => ({
    corpora: Number(await db.value('SELECT COUNT(*) FROM corpora')),
    uploads: Number(await db.value('SELECT COUNT(*) FROM corpus_uploads')),
    utterances: Number(await db.value('SELECT COUNT(*) FROM corpus_utterances')),
    audio: Number(await db.value("SELECT COUNT(*) FROM audio WHERE id LIKE 'aud_c%'")),
  }));

const corpusBlobs = async (dataDir: string) => (await audioBlobNames(dataDir)).filter((n) => n.startsWith('aud_c'));

describe('corpus uploads survive SIGKILL (a real server process): nothing half-stored', () => {
  const work = mkdtempSync(join(tmpdir(), 'voxctl-corpus-crash-'));
  const procs: ResultPromise[] = [];
  const serve = async (dataDir: string): Promise<ServeProcess> => {
    const s = await startServe(dataDir);
    procs.push(s.proc);
    return s;
  };
  afterAll(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await Promise.allSettled(procs);
    rmSync(work, { recursive: true, force: true });
  });

  it('killed while extracting: the restart removes the temp folder, no corpus exists', async () => {
    const dataDir = join(work, 'extract');
    // 300 MB of zeros: a small .tar.gz whose extraction takes long enough to be caught in the middle.
    const src = join(work, 'big');
    mkdirSync(join(src, 'corpus'), { recursive: true });
    writeFileSync(join(src, 'corpus', 'metadata.csv'), 'file_name,text\nbig.wav,hello\n');
    writeFileSync(join(src, 'corpus', 'big.wav'), '');
    truncateSync(join(src, 'corpus', 'big.wav'), 300 * 1024 * 1024);
    const archive = await tarOf(src, { gzip: true });
    rmSync(src, { recursive: true, force: true });

    let server = await serve(dataDir);
    const answer = startUpload(server.url, archive);
    await until(() => uploadFolders(dataDir).some((f) => existsSync(join(dataDir, 'tmp', 'corpora', f, 'files', 'corpus', 'big.wav'))));
    server.proc.kill('SIGKILL');
    await server.proc;
    expect(await answer).toBe('died');
    expect(uploadFolders(dataDir)).toHaveLength(1);

    server = await serve(dataDir);
    expect(uploadFolders(dataDir)).toEqual([]);
    expect(await leftRows(dataDir)).toEqual({ corpora: 0, uploads: 0, utterances: 0, audio: 0 });
    await server.stop();
  }, 180_000);

  it('killed while decoding, blobs already written: the restart removes them and the upload row', async () => {
    const dataDir = join(work, 'decode');
    // 80 FLAC utterances (copies of one real recording): decoding takes a second or two on two workers.
    const src = join(work, 'flac');
    const speech = recordings()[0]!;
    convert(speech.wav, join(src, 'corpus', 'audio', 'u0.flac'));
    const flac = readFileSync(join(src, 'corpus', 'audio', 'u0.flac'));
    const rows = ['file_name,text'];
    for (let i = 0; i < 80; i++) {
      writeFileSync(join(src, 'corpus', 'audio', `u${i}.flac`), flac);
      rows.push(`audio/u${i}.flac,${speech.text}`);
    }
    writeFileSync(join(src, 'corpus', 'metadata.csv'), rows.join('\n') + '\n');
    const archive = await tarOf(src, { gzip: true });

    let server = await serve(dataDir);
    const answer = startUpload(server.url, archive);
    await until(async () => (await corpusBlobs(dataDir)).length >= 3);
    server.proc.kill('SIGKILL');
    await server.proc;
    expect(await answer).toBe('died');
    const left = await leftRows(dataDir);
    // The kill caught it after the upload row was committed and blobs were written, before the corpus was.
    expect(left).toMatchObject({ corpora: 0, uploads: 1, utterances: 0, audio: 0 });
    expect((await corpusBlobs(dataDir)).length).toBeGreaterThanOrEqual(3);

    server = await serve(dataDir);
    expect(await leftRows(dataDir)).toEqual({ corpora: 0, uploads: 0, utterances: 0, audio: 0 });
    expect(await corpusBlobs(dataDir)).toEqual([]);
    expect(uploadFolders(dataDir)).toEqual([]);
    // And the same archive then goes in whole.
    expect(await startUpload(server.url, archive)).toBe(201);
    expect(await leftRows(dataDir)).toEqual({ corpora: 1, uploads: 0, utterances: 80, audio: 80 });
    expect(await corpusBlobs(dataDir)).toHaveLength(80);
    await server.stop();
  }, 180_000);
});
