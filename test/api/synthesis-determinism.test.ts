import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/core-http.js';
import { TEST_KEY } from '../helpers/server.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { withBackendDb } from '../helpers/backend-db.js';

const SHORT = 'Press two for technical support.';
const LONG = Array.from({ length: 6 }, (_, i) => `Option ${i + 1}: press two for technical support, or hold the line.`).join(' ');
const RATES = [undefined, 8000, 16000, 22050, 24000] as const;

/** One synthesis on `server` and the bytes of the WAV it stored. */
async function synthesize(server: ServeProcess, speaker_id: string, text: string, sample_rate?: number): Promise<Buffer> {
  const res = await call(server, 'POST', '/v1/tts/synthesize', { key: TEST_KEY, json: { speaker_id, text, ...(sample_rate ? { sample_rate } : {}) } });
  expect(res.status, `${speaker_id} @ ${sample_rate}: ${res.text}`).toBe(200);
  const audio = await fetch(res.body.audio_url as string);
  expect(audio.status).toBe(200);
  return Buffer.from(await audio.arrayBuffer());
}

// DESIGN §4.6: the same text, speaker and sample rate give byte-identical audio on every run and every
// instance. Two server processes on their own data dirs, with different worker counts, and each request
// made twice; eSpeak's breathy and klatt variants draw on its random generator.
describe('synthesis is deterministic across runs and instances (two real server processes)', () => {
  const dirs = [mkdtempSync(join(tmpdir(), 'voxctl-det-a-')), mkdtempSync(join(tmpdir(), 'voxctl-det-b-'))];
  const servers: ServeProcess[] = [];
  afterAll(async () => {
    await Promise.allSettled(servers.map((s) => s.stop()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('every engine, a spread of voices and variants, with and without resampling: the same bytes', async () => {
    servers.push(await startServe(dirs[0]!, { args: ['--workers', '1'] }));
    servers.push(await startServe(dirs[1]!, { args: ['--workers', '2'] }));
    const speakers = await withBackendDb(dirs[0]!, async (db) => {
      const flite = await db.column<string>(`SELECT MIN(id) FROM speakers WHERE engine = 'flite' AND pitch <> 0 GROUP BY voice ORDER BY 1`);
      const espeak = await db.column<string>(
        `SELECT MIN(id) FROM speakers WHERE engine = 'espeak' AND variant IN ('klatt', 'klatt3', 'f3', 'm1', 'grandma', 'shelby', 'Annie', 'Andy') GROUP BY variant ORDER BY 1`,
      );
      return [...flite, 'spk_en_002', ...espeak];
    });
    expect(speakers.length).toBeGreaterThanOrEqual(12);
    const [a, b] = servers as [ServeProcess, ServeProcess];
    const cases = speakers.flatMap((id, i) => [
      { id, text: SHORT, rate: undefined },
      { id, text: SHORT, rate: RATES[1 + (i % 4)] },
    ]);
    cases.push({ id: 'spk_en_002', text: LONG, rate: undefined }, { id: speakers.at(-1)!, text: LONG, rate: 16000 });
    for (const c of cases) {
      const label = `${c.id} ${c.text === LONG ? 'long' : 'short'} @ ${c.rate ?? 'native'}`;
      const first = await synthesize(a, c.id, c.text, c.rate);
      const [again, other] = await Promise.all([synthesize(a, c.id, c.text, c.rate), synthesize(b, c.id, c.text, c.rate)]);
      expect(first.length, label).toBeGreaterThan(1000);
      expect(again.equals(first), `${label}: second run on the same instance`).toBe(true);
      expect(other.equals(first), `${label}: another instance`).toBe(true);
    }
  }, 240_000);
});
