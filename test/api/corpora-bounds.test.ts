/**
 * DESIGN §17.1-17.4 against a real `voxctl serve` process: the hostile uploads of issue 33 end in a 201 or
 * a 4xx with DESIGN's message, the process lives on, `/health/live` answers every probe within DESIGN's
 * 2 s during the attack, and the process with its children stays within 400 MB of its idle RSS. What each
 * watch saw is printed (`[bounds]` lines) for the record.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/server.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { parseWav } from '../../src/server/audio/wav.js';
import {
  audioCorpusZip,
  bigZeroTgz,
  lyingZip,
  newlineTsvZip,
  soxMake,
  trailingZerosTgz,
  uploadFolderRoot,
  watchService,
  type WatchReport,
} from '../helpers/hostile-corpora.js';
import { until } from '../helpers/until.js';
import { rawTar } from '../helpers/corpora.js';

type Answer = { status: number; headers: Headers; body: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

async function upload(url: string, archive: Buffer, filename = 'corpus.zip', signal?: AbortSignal): Promise<Answer> {
  const form = new FormData();
  form.append('name', 'hostile');
  form.append('file', new Blob([archive]), filename);
  const res = await fetch(`${url}/v1/corpora`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: form, signal });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer['body'] };
}

const uploadFolders = (dataDir: string): string[] => (existsSync(uploadFolderRoot(dataDir)) ? readdirSync(uploadFolderRoot(dataDir)) : []);

describe('hostile uploads cannot stop, stall or swell the service (DESIGN §17, a real server process)', () => {
  const work = mkdtempSync(join(tmpdir(), 'voxctl-bounds-'));
  const dataDir = join(work, 'data');
  let server: ServeProcess;
  let pid: number;

  beforeAll(async () => {
    server = await startServe(dataDir);
    pid = server.proc.pid!;
  }, 60_000);
  afterAll(async () => {
    server.proc.kill('SIGKILL');
    await server.proc;
    rmSync(work, { recursive: true, force: true });
  });

  /** Runs `attack` under a watch, prints what the watch saw and checks DESIGN §17.1's bounds. */
  async function watched<T>(name: string, attack: () => Promise<T>): Promise<T> {
    const watch = watchService(server.url, pid);
    let result: T;
    let report: WatchReport;
    try {
      result = await attack();
    } finally {
      report = await watch.stop();
      console.log(`[bounds] ${name}: health max ${report.maxHealthMs} ms over ${report.probes.length} probes, RSS +${report.rssGrowthMb} MB`);
    }
    expect(server.proc.exitCode, 'the service process is alive').toBeNull();
    expect(report.probes.filter((p) => p.status !== 200), '/health/live answered every probe within 2 s').toEqual([]);
    expect(report.rssGrowthMb).toBeLessThan(400);
    const live = await fetch(`${server.url}/health/live`);
    expect(live.status).toBe(200);
    return result;
  }

  it('an entry holding more than it declares (7 KB zip, 1,500-level path) is 400 Corrupt archive entry', async () => {
    const { zip, name } = await lyingZip();
    expect(zip.length).toBeLessThan(16 * 1024);
    const res = await watched('lying zip entry', () => upload(server.url, zip));
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe(`Corrupt archive entry: ${name}`);
  }, 60_000);

  it('a .tsv of 30 M newlines is refused without stalling the service; one over 64 MB is Manifest too large', async () => {
    const small = await newlineTsvZip(30_000_000);
    const res = await watched('30 M newlines .tsv', () => upload(server.url, small));
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('Corpus has no utterances');

    const big = await newlineTsvZip(150_000_000);
    expect(big.length).toBeLessThan(512 * 1024);
    const tooLarge = await watched('150 M newlines .tsv', () => upload(server.url, big));
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.detail).toBe('Manifest too large: test.tsv');
  }, 120_000);

  it('bytes after a tar end-of-archive are ignored: a valid .tgz with 48 MB of trailing zeros is stored', async () => {
    const wav = soxMake(join(work, 'a.wav'), { rate: 16_000, channels: 1, seconds: 1, noise: true });
    const tgz = trailingZerosTgz(wav, 48 * 1024 * 1024);
    expect(tgz.length).toBeLessThan(256 * 1024);
    const res = await watched('tgz with trailing zeros', () => upload(server.url, tgz, 'corpus.tgz'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.utterances).toBe(1);
  }, 90_000);

  it('audio past 192 kHz or 8 channels is unsupported or corrupt, refused before decoding', async () => {
    const fast = soxMake(join(work, 'fast.flac'), { rate: 384_000, channels: 1, seconds: 300 });
    const zip = await audioCorpusZip([{ name: 'audio/fast.flac', data: fast }]);
    const res = await watched('384 kHz FLAC', () => upload(server.url, zip));
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('audio/fast.flac: unsupported or corrupt audio');

    const wide = soxMake(join(work, 'wide.wav'), { rate: 16_000, channels: 9, seconds: 1, noise: true });
    const nine = await upload(server.url, await audioCorpusZip([{ name: 'wide.wav', data: wide }]));
    expect(nine.status).toBe(400);
    expect(nine.body.detail).toBe('wide.wav: unsupported or corrupt audio');
  }, 120_000);

  it('an 8-channel 48 kHz FLAC is accepted and kept mono; beside a corrupt file it stays within the bounds', async () => {
    const eight = soxMake(join(work, 'eight.flac'), { rate: 48_000, channels: 8, seconds: 2, noise: true });
    const ok = await upload(server.url, await audioCorpusZip([{ name: 'eight.flac', data: eight }]));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const page = await fetch(`${server.url}/v1/corpora/${ok.body.corpus_id}/utterances`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    const [utterance] = ((await page.json()) as { items: { audio_url: string }[] }).items;
    const info = parseWav(new Uint8Array(await (await fetch(utterance!.audio_url)).arrayBuffer()));
    expect(info).toMatchObject({ channels: 1, sampleRate: 48_000 });
    expect(Math.abs(info.durationSeconds - 2)).toBeLessThan(0.05);

    // 5 minutes of 8 channels beside a corrupt file: the batch fails, and each file is decoded alone (before
    // the fallback mixed down too, it held all 8 channels: +700 MB). Not 10 minutes: the decoded 57 MB WAV
    // would then be written to the SQLite blob store in one synchronous transaction, which is not this test's.
    const long = soxMake(join(work, 'long.flac'), { rate: 48_000, channels: 8, seconds: 300 });
    const zip = await audioCorpusZip([
      { name: 'long.flac', data: long },
      { name: 'bad.flac', data: Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(200, 7)]) },
    ]);
    const res = await watched('8-channel FLAC beside a corrupt file', () => upload(server.url, zip));
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('bad.flac: unsupported or corrupt audio');
  }, 180_000);

  it('40,000 tiny broken WAVs, each decoded as soon as it is extracted, stay within the bounds and answer the first one named', async () => {
    // The early decoding (features/corpora/decodes.ts) is capped: an archive of tens of thousands of files
    // must not queue a decode for each, nor the manifest ask for every file at once.
    const header = Buffer.concat([Buffer.from('RIFF'), Buffer.from([36, 0, 0, 0]), Buffer.from('WAVEfmt '), Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x80, 0x3e, 0, 0, 0, 0x7d, 0, 0, 2, 0, 16, 0]), Buffer.from('data'), Buffer.alloc(4)]);
    const names = Array.from({ length: 40_000 }, (_, i) => `audio/${String(i).padStart(5, '0')}.wav`);
    const manifest = 'file_name,transcription\n' + names.slice(0, 19_000).map((n) => `${n},hello\n`).join('');
    const archive = rawTar([{ path: 'metadata.csv', data: manifest }, ...names.map((path) => ({ path, data: header }))]);
    const res = await watched('40,000 tiny broken WAVs', () => upload(server.url, archive, 'many.tar'));
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('audio/00000.wav: unsupported or corrupt audio');
    await until(() => uploadFolders(dataDir).length === 0, 10_000);
  }, 180_000);

  it('a third upload of one user at once is 429 Too many uploads in progress with Retry-After: 5; a client that leaves mid-body leaves no folder', async () => {
    // Two uploads whose bodies are left half-sent hold the user's two slots.
    const held = [0, 1].map(() => {
      const req = request(`${server.url}/v1/corpora`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'multipart/form-data; boundary=XYZ', 'content-length': String(10 * 1024 * 1024) },
      });
      req.on('error', () => undefined);
      req.write('--XYZ\r\nContent-Disposition: form-data; name="name"\r\n\r\nheld\r\n--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\n');
      req.write(Buffer.alloc(64 * 1024));
      return req;
    });
    try {
      await until(() => uploadFolders(dataDir).length === 2);
      // Answered before its body is read, the 429 must reach the client every time, not a reset
      // (a connection closed at once lost about one in four of these to EPIPE).
      const zip = await newlineTsvZip(10);
      for (let i = 0; i < 30; i++) {
        const third = await upload(server.url, zip);
        expect(third.status).toBe(429);
        expect(third.headers.get('retry-after')).toBe('5');
        expect(third.body.detail).toBe('Too many uploads in progress');
      }
    } finally {
      for (const req of held) req.destroy();
    }
    await until(() => uploadFolders(dataDir).length === 0, 30_000);
    // The slots are free again.
    const after = await upload(server.url, await newlineTsvZip(10));
    expect(after.status).toBe(400);
  }, 60_000);

  it('a client that leaves during extraction stops it, and its temporary folder goes', async () => {
    const size = 1024 * 1024 * 1024;
    const tgz = await bigZeroTgz(size);
    const leave = new AbortController();
    const answer = upload(server.url, tgz, 'big.tgz', leave.signal).catch(() => 'left' as const);
    let file: string | undefined;
    await until(() => {
      const [folder] = uploadFolders(dataDir);
      const path = folder && join(uploadFolderRoot(dataDir), folder, 'files', 'corpus', 'big.wav');
      if (path && existsSync(path)) file = path;
      return file !== undefined;
    });
    leave.abort();
    expect(await answer).toBe('left');
    let largest = 0;
    await until(() => {
      try {
        largest = Math.max(largest, statSync(file!).size);
      } catch {
        // gone
      }
      return uploadFolders(dataDir).length === 0;
    }, 60_000);
    expect(largest, 'extraction stopped before the whole entry was written').toBeLessThan(size);
  }, 120_000);
});
