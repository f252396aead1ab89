// Latency is the vendor's (DESIGN §15.4): the service's own CPU work of an evaluation runs below the
// event loop that times vendor requests — PocketSphinx children at nice 10 (batch, and streaming behind
// its setpriv/stdbuf wrapper), TTS worker threads at nice 10, the main thread and libuv's thread pool
// untouched — and the evaluation's view reports the event loop's delay measured while its work ran.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { espeakSpeaker, fliteSpeaker, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { pollEvaluation } from '../helpers/evaluations.js';

const TEXT = 'Please call me back after the meeting tomorrow morning, and bring the report with you.';
const TTS_WORKERS = 2;

/** Fields of /proc/…/stat after the command: `fields[0]` is field 3 (state), so field n is `fields[n - 3]`. */
function stat(path: string): { comm: string; fields: string[] } | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    const close = text.lastIndexOf(')');
    return { comm: text.slice(text.indexOf('(') + 1, close), fields: text.slice(close + 2).split(' ') };
  } catch {
    return undefined; // gone between listing and reading
  }
}

/** The nice value (field 19) of each PocketSphinx child of this process now. */
function sphinxChildren(): number[] {
  const nices: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const s = stat(`/proc/${pid}/stat`);
    if (s && Number(s.fields[1]) === process.pid && s.comm.startsWith('pocketsphinx')) nices.push(Number(s.fields[16]));
  }
  return nices;
}

/** The nice value of each thread of this process, by thread id. */
function threadNices(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const s = stat(`/proc/self/task/${tid}/stat`);
    if (s) out.set(Number(tid), Number(s.fields[16]));
  }
  return out;
}

/** Samples the PocketSphinx children every few ms until `stop()`, which returns every nice value seen. */
function watchSphinx(): { stop(): number[] } {
  const seen: number[] = [];
  const timer = setInterval(() => seen.push(...sphinxChildren()), 5);
  return {
    stop() {
      clearInterval(timer);
      return seen;
    },
  };
}

describe.skipIf(process.platform !== 'linux')('the service’s own CPU work runs below its event loop (DESIGN §15.4)', () => {
  let s: TestServer;
  let speakers: string[];
  // A batch evaluation on local-sphinx, run once: its view before and after, and the nice values seen meanwhile.
  let pending: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  let detail: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  let sphinxNices: number[];

  beforeAll(async () => {
    s = await startTestServer({ options: { ttsWorkers: TTS_WORKERS } });
    await promoteToEnterprise(s);
    speakers = [await fliteSpeaker(s.runtime.db), await espeakSpeaker(s.runtime.db)];
    const created = await call(s, 'POST', '/v1/evaluations', { key: s.key, json: { texts: [TEXT], speakers: { ids: speakers }, providers: ['local-sphinx'] } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.evaluation_id as string;
    pending = (await call(s, 'GET', `/v1/evaluations/${id}`, { key: s.key })).body;
    const watch = watchSphinx();
    detail = await pollEvaluation(s, id, { timeoutMs: 120_000, intervalMs: 50 });
    sphinxNices = watch.stop();
    expect(detail.status).toBe('completed');
  }, 150_000);
  afterAll(async () => {
    await s.close();
  });

  it('runs the PocketSphinx children of a batch evaluation at nice 10', () => {
    expect(sphinxNices.length, 'no PocketSphinx child was seen').toBeGreaterThan(0);
    expect(new Set(sphinxNices)).toEqual(new Set([10]));
  });

  it('runs the TTS worker threads at nice 10, and the event loop and libuv’s thread pool at 0', () => {
    // Exactly the workers: the pool's threads were born before a worker lowered itself, at the main thread's nice.
    const threads = threadNices();
    expect(threads.get(process.pid)).toBe(0);
    expect([...threads.values()].filter((n) => n === 10)).toHaveLength(TTS_WORKERS);
    expect([...threads.values()].filter((n) => n !== 0 && n !== 10)).toEqual([]);
  });

  it('reports the event loop’s delay in the view once the work has ended: null before, {p50, p99} in ms after', () => {
    expect(pending.event_loop_lag_ms).toBeNull();
    expect(detail.event_loop_lag_ms).toEqual({ p50: expect.any(Number), p99: expect.any(Number) });
    expect(detail.event_loop_lag_ms.p50).toBeGreaterThanOrEqual(0);
    expect(detail.event_loop_lag_ms.p99).toBeGreaterThanOrEqual(detail.event_loop_lag_ms.p50);
  });

  it('runs the PocketSphinx of a streaming evaluation, started through setpriv and stdbuf, at nice 10', async () => {
    const created = await call(s, 'POST', '/v1/evaluations', {
      key: s.key,
      json: { texts: [TEXT], speakers: { ids: [speakers[0]] }, providers: ['local-sphinx'], mode: 'streaming', pace: 4 },
    });
    expect(created.status, created.text).toBe(201);
    const watch = watchSphinx();
    const streamed = await pollEvaluation(s, created.body.evaluation_id, { timeoutMs: 120_000, intervalMs: 50 });
    const nices = watch.stop();
    expect(streamed.status).toBe('completed');
    expect(nices.length, 'no PocketSphinx child was seen').toBeGreaterThan(0);
    expect(new Set(nices)).toEqual(new Set([10]));
  }, 150_000);
});
