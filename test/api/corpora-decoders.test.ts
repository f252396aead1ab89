/**
 * DESIGN §17.4 against a real `voxctl serve` process whose PATH has no ffmpeg: FLAC, Ogg Vorbis, Opus and
 * MP3 uploads decode in WebAssembly and are stored; an M4A upload is 400 `{path}: M4A needs ffmpeg
 * (apt-get install ffmpeg)`; two minutes of silent 8-channel 192 kHz FLAC (184 M samples in under 1 MB)
 * decodes within DESIGN §17.1's bounds (`/health/live` within 2 s, RSS within 400 MB of idle).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/server.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { audioCorpusZip, watchService } from '../helpers/hostile-corpora.js';

const SPEECH = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav';
type Answer = { status: number; body: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

async function upload(url: string, archive: Buffer): Promise<Answer> {
  const form = new FormData();
  form.append('name', 'decoders');
  form.append('file', new Blob([archive]), 'corpus.zip');
  const res = await fetch(`${url}/v1/corpora`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}` }, body: form });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

describe('corpus audio without an ffmpeg on PATH (DESIGN §17.4, a real server process)', () => {
  const work = mkdtempSync(join(tmpdir(), 'voxctl-decoders-'));
  const f = (name: string) => join(work, name);
  let server: ServeProcess;

  beforeAll(async () => {
    // A PATH holding `node` and nothing else: the service finds no ffmpeg.
    const bin = f('bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    server = await startServe(f('data'), { env: { PATH: bin } });
  }, 60_000);
  afterAll(async () => {
    server.proc.kill('SIGKILL');
    await server.proc;
    rmSync(work, { recursive: true, force: true });
  });

  it('stores FLAC, Ogg Vorbis, Opus and MP3, and refuses M4A with DESIGN’s message', async () => {
    const ffmpeg = (args: string[]) => execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-i', SPEECH, ...args]);
    execFileSync('sox', [SPEECH, f('a.flac')]);
    execFileSync('sox', [SPEECH, f('a.ogg')]);
    ffmpeg(['-c:a', 'libopus', f('a.opus')]);
    ffmpeg(['-c:a', 'libmp3lame', f('a.mp3')]);
    ffmpeg(['-c:a', 'aac', f('a.m4a')]);
    // Utterance ids are the paths without their extension: one name per format.
    const files = [['a.flac', 'flac'], ['a.ogg', 'vorbis'], ['a.opus', 'opus'], ['a.mp3', 'mp3']];
    const ok = await upload(server.url, await audioCorpusZip(files.map(([file, id]) => ({ name: `audio/${id}${file!.slice(1)}`, data: readFileSync(f(file!)) }))));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.utterances).toBe(4);
    const page = await fetch(`${server.url}/v1/corpora/${ok.body.corpus_id}/utterances`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    const items = ((await page.json()) as { items: { utterance_id: string; duration_seconds: number }[] }).items;
    // Each is the 2.99 s recording (the lossy codecs' encoder delay trimmed as their decoders do).
    expect(items.map((u) => Math.round(u.duration_seconds * 10) / 10)).toEqual([3, 3, 3, 3]);

    const m4a = await upload(server.url, await audioCorpusZip([{ name: 'audio/a.m4a', data: readFileSync(f('a.m4a')) }]));
    expect(m4a.status).toBe(400);
    expect(m4a.body.detail).toBe('audio/a.m4a: M4A needs ffmpeg (apt-get install ffmpeg)');
  }, 120_000);

  it('decodes two minutes of silent 8-channel 192 kHz FLAC within the bounds of DESIGN §17.1', async () => {
    execFileSync('sox', ['-D', '-n', '-r', '192000', '-c', '8', '-b', '16', f('silence.flac'), 'trim', '0', '120']);
    const flac = readFileSync(f('silence.flac'));
    expect(flac.length).toBeLessThan(2 * 1024 * 1024);
    const watch = watchService(server.url, server.proc.pid!);
    let res: Answer;
    try {
      res = await upload(server.url, await audioCorpusZip([{ name: 'silence.flac', data: flac }]));
    } finally {
      const report = await watch.stop();
      console.log(`[bounds] silent 8-channel 192 kHz FLAC: health max ${report.maxHealthMs} ms over ${report.probes.length} probes, RSS +${report.rssGrowthMb} MB`);
      expect(report.probes.filter((p) => p.status !== 200), '/health/live answered every probe within 2 s').toEqual([]);
      expect(report.rssGrowthMb).toBeLessThan(400);
    }
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.total_duration_seconds).toBeCloseTo(120, 0);
  }, 240_000);
});
