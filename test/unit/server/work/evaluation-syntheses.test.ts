/**
 * The evaluation runner's scheduling and crash safety, with the real TTS pool and a recogniser that
 * plays a hosted vendor (controllable delay, failures and hangs), on a real SQLite file.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type Db } from '../../../../src/server/storage/db.js';
import { createUserWithKey } from '../../../../src/server/features/accounts/users.js';
import { refundCharacters } from '../../../../src/server/features/limits/quota.js';
import { renderSpeech, speakerVoice } from '../../../../src/server/features/synthesis/synthesis.js';
import { createTtsPool } from '../../../../src/server/engines/tts/pool.js';
import type { TtsPool } from '../../../../src/server/engines/tts/types.js';
import { ConcurrencyLimit } from '../../../../src/server/engines/stt/limit.js';
import type { SttAudio } from '../../../../src/server/engines/stt/types.js';
import type { SttResult } from '../../../../src/shared/schemas/stt.js';
import { systemClock } from '../../../../src/server/clock.js';
import { createEvaluation } from '../../../../src/server/features/evaluations/create.js';
import { readCorpusForEvaluation } from '../../../../src/server/features/evaluations/corpus-reader.js';
import { cancelEvaluationFor } from '../../../../src/server/features/evaluations/service.js';
import { evaluationSynthesesKind } from '../../../../src/server/features/evaluations/utterance-work.js';
import { createWorkLoop, type WorkLoop } from '../../../../src/server/work/loop.js';
import { getEvaluation } from '../../../../src/server/features/evaluations/repository.js';
import { fliteSpeaker } from '../../../helpers/audio-jobs.js';
import { dataDirBlobs, soloWork } from '../../../helpers/work.js';
import { until } from '../../../helpers/until.js';

describe('evaluation runner', () => {
  let pool: TtsPool;
  let dir: string;
  let db: Db;
  let userId: string;
  let speakers: string[];
  let runners: WorkLoop[];
  beforeAll(() => {
    pool = createTtsPool({ size: 2 });
  });
  afterAll(async () => pool.close());
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'voxctl-evalrunner-'));
    db = await openSqliteDatabase(join(dir, 'voxctl.db'));
    userId = (await createUserWithKey(db, { email: 'runner@example.com', tier: 'pro', now: new Date() })).user.id;
    speakers = [await fliteSpeaker(db, 'slt'), await fliteSpeaker(db, 'rms')];
    runners = [];
  });
  afterEach(async () => {
    for (const r of runners) await r.stop();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A recogniser standing in for a vendor: records concurrency, answers after `delayMs`, or hangs. */
  function vendor(opts: { delayMs?: number; hangAfter?: number } = {}) {
    const state = { calls: 0, inFlight: 0, maxInFlight: 0 };
    const transcribe = async (_provider: string, _audio: SttAudio, signal: AbortSignal): Promise<SttResult> => {
      state.calls++;
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      try {
        if (opts.hangAfter !== undefined && state.calls > opts.hangAfter) {
          await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
        }
        await new Promise((r) => setTimeout(r, opts.delayMs ?? 5));
        return { transcript: 'one two three four', latency_ms: 5, confidence: 0.9 };
      } catch {
        return { transcript: null, latency_ms: 5, confidence: null, error: { code: 'timeout', message: 'aborted' } };
      } finally {
        state.inFlight--;
      }
    };
    return { state, transcribe };
  }

  async function runner(transcribe: ReturnType<typeof vendor>['transcribe'], syntheses: { count: number }): Promise<WorkLoop> {
    const limits = new Map<string, ConcurrencyLimit>();
    const kind = evaluationSynthesesKind({
      db,
      blobs: dataDirBlobs(dir),
      capacity: 3,
      async synthesize(speakerId, text) {
        syntheses.count++;
        if (text.includes('FAIL')) throw new Error('engine crashed');
        return renderSpeech(pool, { text, voice: await speakerVoice(db, speakerId) });
      },
      transcribe,
      limitFor: (p) => limits.get(p) ?? limits.set(p, new ConcurrencyLimit(2)).get(p)!,
      refund: refundCharacters,
    });
    const r = createWorkLoop(kind, { db, clock: systemClock, work: soloWork() });
    runners.push(r);
    await r.start();
    return r;
  }

  const create = async (texts: string[], providers = ['stt-a-model-1', 'stt-c']) =>
    (await createEvaluation({ db, now: new Date(), isConfigured: () => true, corpora: readCorpusForEvaluation }, { userId, body: { texts, speakers: { ids: speakers }, providers, conditions: ['clean', 'noise:10'] } }))
      .evaluation_id;
  const stored = async (id: string) => Number(await db.value('SELECT COUNT(*) FROM evaluation_utterances WHERE evaluation_id = ?', [id]));
  const used = async () => (await db.value<number>('SELECT characters_used FROM usage_periods WHERE user_id = ?', [userId]))!;
  const status = async (id: string) => (await getEvaluation(db, id))!.status;

  it('synthesises each text × speaker once, keeps each provider within its limit, stores every utterance once', async () => {
    const id = await create(['One two three four.', 'Five six seven.', 'Eight nine ten.']);
    const v = vendor({ delayMs: 30 });
    const syntheses = { count: 0 };
    await runner(v.transcribe, syntheses);
    await until(async () => (await status(id)) === 'completed');
    expect(syntheses.count).toBe(3 * 2);
    expect(v.state.calls).toBe(3 * 2 * 2 * 2);
    // Two providers, each limited to 2 at once.
    expect(v.state.maxInFlight).toBeLessThanOrEqual(4);
    expect(v.state.maxInFlight).toBeGreaterThan(1);
    expect(await stored(id)).toBe(24);
    const row = (await getEvaluation(db, id))!;
    expect(row).toMatchObject({ completed_utterances: 24, failed_syntheses: 0 });
    expect(JSON.parse(row.summary!)).toHaveLength(2 * 2 * 2);
    // One file per conditioned audio, none left half-written.
    expect(readdirSync(join(dir, 'audio')).filter((f) => f.startsWith('aud_ev'))).toHaveLength(3 * 2 * 2);
  });

  it('records a failed synthesis on its utterances, refunds its characters once, and ends partial', async () => {
    const texts = ['Good text here.', 'FAIL this one.'];
    const id = await create(texts);
    const charged = await used();
    await runner(vendor().transcribe, { count: 0 });
    await until(async () => !['processing', 'pending'].includes(await status(id)));
    expect(await getEvaluation(db, id)).toMatchObject({ status: 'partial', failed_syntheses: 2, completed_utterances: 16 });
    expect(await used()).toBe(charged - [...texts[1]!].length * 2);
    const failed = await db.all<Record<string, unknown>>(
      `SELECT error_code, error_message, audio_id FROM evaluation_utterances WHERE evaluation_id = ? AND text_index = 1`,
      [id],
    );
    expect(failed).toHaveLength(8);
    expect(failed.every((u) => u.error_code === 'synthesis_failed' && u.audio_id === null && String(u.error_message).includes('engine crashed'))).toBe(true);
  });

  it('resumes after a stop mid-run: reads the stored audio back, asks only for the missing utterances', async () => {
    const id = await create(['One two three four.', 'Five six seven.', 'Eight nine ten.']);
    const first = vendor({ hangAfter: 5 });
    const firstSyntheses = { count: 0 };
    const r1 = await runner(first.transcribe, firstSyntheses);
    await until(async () => (await stored(id)) === 5 && first.state.inFlight > 0);
    await r1.stop();
    expect(await stored(id)).toBe(5);
    const synthesised = Number(await db.value('SELECT COUNT(*) FROM evaluation_syntheses WHERE evaluation_id = ? AND synthesized = 1', [id]));
    expect(synthesised).toBeGreaterThan(0);

    const second = vendor();
    const secondSyntheses = { count: 0 };
    await runner(second.transcribe, secondSyntheses);
    await until(async () => (await status(id)) === 'completed');
    expect(await stored(id)).toBe(24);
    expect(second.state.calls).toBe(24 - 5);
    // Audio already made was read back, not synthesised again.
    expect(secondSyntheses.count).toBe(6 - synthesised);
    expect(await used()).toBe(['One two three four.', 'Five six seven.', 'Eight nine ten.'].reduce((n, t) => n + [...t].length, 0) * 2);
  });

  it('stops asking providers once the evaluation is cancelled', async () => {
    const id = await create(Array.from({ length: 8 }, (_, i) => `Sentence number ${i}.`), ['stt-a-model-1']);
    const v = vendor({ delayMs: 40 });
    await runner(v.transcribe, { count: 0 });
    await until(async () => (await stored(id)) >= 2);
    await cancelEvaluationFor({ db, now: new Date(), refund: refundCharacters }, { id, userId });
    const callsAtCancel = v.state.calls;
    const storedAtCancel = await stored(id);
    await runners[0]!.idle();
    // Requests already running may finish, but nothing new starts and nothing more is stored.
    expect(v.state.calls - callsAtCancel).toBeLessThanOrEqual(2);
    expect(await stored(id)).toBe(storedAtCancel);
    expect(await status(id)).toBe('cancelled');
  });
});
