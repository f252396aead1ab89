import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Db } from '../../src/server/storage/db.js';
import { parseWav, decodeWavToPcm16, encodeWav } from '../../src/server/audio/wav.js';
import { resamplePcm16 } from '../../src/server/audio/resample.js';
import { calculateAccuracy } from '../../src/shared/accuracy.js';
import { call, type Reply } from './core-http.js';
import { updateUserTier } from '../../src/server/features/accounts/users-repository.js';
import type { TestServer } from './server.js';

/** A catalogue speaker bound to a given Flite voice, with neutral-ish prosody first (clearest speech). */
export async function fliteSpeaker(db: Db, voice = 'slt'): Promise<string> {
  return (await db.value<string>(`SELECT id FROM speakers WHERE engine = 'flite' AND voice = ? ORDER BY abs(pitch) + abs(rate - 1) * 10 LIMIT 1`, [voice]))!;
}

/**
 * `n` distinct catalogue speakers of one Flite voice, the plainest first: enough bootstrap blocks for a
 * verdict (5 or more, DESIGN §15.1) when the audio's content does not matter (a fake vendor hears it).
 */
export async function fliteSpeakers(db: Db, voice: string, n: number): Promise<string[]> {
  return db.all<{ id: string }>(`SELECT id FROM speakers WHERE engine = 'flite' AND voice = ? ORDER BY abs(pitch) + abs(rate - 1) * 10, id LIMIT ?`, [voice, n]).then((rows) => rows.map((r) => r.id));
}

/** A catalogue speaker of the eSpeak engine. */
export async function espeakSpeaker(db: Db): Promise<string> {
  return (await db.value<string>(`SELECT id FROM speakers WHERE engine = 'espeak' AND voice LIKE 'en%' LIMIT 1`))!;
}

/** Root mean square of PCM16 samples (0 = silence). */
export function rms(pcm: Int16Array): number {
  let sum = 0;
  for (const s of pcm) sum += s * s;
  return pcm.length ? Math.sqrt(sum / pcm.length) : 0;
}

/** Fetches a (signed) audio URL and returns the raw bytes and response. */
export async function fetchAudio(url: string): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const res = await fetch(url);
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

/** Transcribes a WAV with PocketSphinx (resampled to 16 kHz mono first) and returns the WER against `reference`. */
export async function sphinxWer(wav: Buffer, reference: string): Promise<{ hypothesis: string; wer: number }> {
  const { pcm, sampleRate } = decodeWavToPcm16(wav);
  const pcm16k = await resamplePcm16(pcm, sampleRate, 16000);
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-sphinx-'));
  try {
    const file = join(dir, 'in.wav');
    writeFileSync(file, encodeWav(pcm16k, 16000));
    const model = '/usr/share/pocketsphinx/model/en-us';
    const { stdout } = await execa('pocketsphinx_continuous', [
      '-infile', file,
      '-hmm', `${model}/en-us`,
      '-lm', `${model}/en-us.lm.bin`,
      '-dict', `${model}/cmudict-en-us.dict`,
      '-logfn', '/dev/null',
    ]);
    const hypothesis = stdout.trim();
    return { hypothesis, wer: calculateAccuracy(reference, hypothesis).wer };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Polls GET /v1/jobs/{id} until `done` holds (or the timeout), returning every body seen. */
export async function pollJob(
  server: TestServer,
  jobId: string,
  opts: { key?: string; timeoutMs?: number; intervalMs?: number } = {},
): Promise<{ final: Reply['body']; seen: Reply['body'][] }> {
  const deadline = Date.now() + (opts.timeoutMs ?? 50_000);
  const seen: Reply['body'][] = [];
  for (;;) {
    const res = await call(server, 'GET', `/v1/jobs/${jobId}`, { key: opts.key ?? server.key });
    if (res.status !== 200) throw new Error(`GET job ${jobId}: ${res.status} ${res.text}`);
    seen.push(res.body);
    if (['completed', 'partial', 'failed'].includes(res.body.status)) return { final: res.body, seen };
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}

/** Posts multipart form data (`file` as a Blob with a name) and parses the JSON answer. */
export async function postMultipart(
  server: TestServer,
  path: string,
  parts: { file?: { bytes: Uint8Array | string; name?: string; type?: string }; fields?: Record<string, string>; fileFirst?: boolean },
  key = server.key,
): Promise<Reply> {
  const form = new FormData();
  const addFile = () => {
    if (parts.file) {
      const data = typeof parts.file.bytes === 'string' ? parts.file.bytes : new Uint8Array(parts.file.bytes);
      form.append('file', new Blob([data], { type: parts.file.type ?? 'application/octet-stream' }), parts.file.name ?? 'file.bin');
    }
  };
  if (parts.fileFirst) addFile();
  for (const [k, v] of Object.entries(parts.fields ?? {})) form.append(k, v);
  if (!parts.fileFirst) addFile();
  const res = await fetch(server.url + path, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Characters used this period by the bootstrap user. */
export async function charactersUsed(server: TestServer, key = server.key): Promise<number> {
  const res = await call(server, 'GET', '/v1/users/usage', { key });
  return res.body.characters_used as number;
}

/** Raises the bootstrap user to enterprise (1,000 requests/min) so polling tests stay clear of rate limits. */
export async function promoteToEnterprise(server: TestServer): Promise<void> {
  const me = await call(server, 'GET', '/v1/users/me', { key: server.key });
  await updateUserTier(server.runtime.db, me.body.id as string, 'enterprise');
}

export { parseWav, call };
