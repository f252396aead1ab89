/**
 * A corpus evaluation in the evaluation work kind (DESIGN §10.5): each item's stored recording is what
 * the providers hear — never a synthesis — at its own rate under `clean`; a recording that is gone fails
 * its item with its own message, and the evaluation ends partial. Real SQLite, real recordings.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type Db } from '../../../../src/server/storage/db.js';
import { createUserWithKey } from '../../../../src/server/features/accounts/users.js';
import { refundCharacters } from '../../../../src/server/features/limits/quota.js';
import { storeAudio, wavInput } from '../../../../src/server/features/audio/audio-store.js';
import { decodeWavToPcm16 } from '../../../../src/server/audio/wav.js';
import { ConcurrencyLimit } from '../../../../src/server/engines/stt/limit.js';
import type { SttAudio } from '../../../../src/server/engines/stt/types.js';
import type { SttResult } from '../../../../src/shared/schemas/stt.js';
import { systemClock } from '../../../../src/server/clock.js';
import { evaluationSynthesesKind } from '../../../../src/server/features/evaluations/utterance-work.js';
import { createWorkLoop, type WorkLoop } from '../../../../src/server/work/loop.js';
import { getEvaluation, insertCorpusEvaluation } from '../../../../src/server/features/evaluations/repository.js';
import { dataDirBlobs, soloWork } from '../../../helpers/work.js';
import { TESTDATA } from '../../../helpers/corpus-fixtures.js';

describe('a corpus evaluation in the work loop', () => {
  let dir: string;
  let db: Db;
  let loop: WorkLoop | undefined;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'voxctl-corpus-work-'));
    db = await openSqliteDatabase(join(dir, 'voxctl.db'));
  });
  afterEach(async () => {
    await loop?.stop();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hears the stored recordings at their own rate, synthesises nothing, and fails an item whose recording is gone', async () => {
    const userId = (await createUserWithKey(db, { email: 'corpus-work@example.com', tier: 'pro', now: new Date() })).user.id;
    const blobs = dataDirBlobs(dir);
    // One recording at 16 kHz as recorded, one resampled by sox to 22.05 kHz.
    const at16 = decodeWavToPcm16(readFileSync(join(TESTDATA, 'cards', '004.wav')));
    execFileSync('sox', [join(TESTDATA, 'cards', '001.wav'), '-r', '22050', join(dir, 'r22.wav')]);
    const at22 = decodeWavToPcm16(readFileSync(join(dir, 'r22.wav')));
    const now = new Date();
    const a = await storeAudio(db, blobs, wavInput(at16.pcm, at16.sampleRate, { userId, kind: 'upload', now }));
    const b = await storeAudio(db, blobs, wavInput(at22.pcm, at22.sampleRate, { userId, kind: 'upload', now }));
    const id = 'ev_corpuswork000000000';
    await insertCorpusEvaluation(
      db,
      {
        id, user_id: userId, name: null, total_utterances: 3 * 2, providers: JSON.stringify(['stt-c']), conditions: JSON.stringify(['clean', 'telephone']),
        group_by: 'speaker', normalizer: 'basic', normalizer_version: 1, seed: 0, period: '2026-11-01', created_at: now.toISOString(),
        corpus_id: 'cor_x', corpus_name: 'x',
      },
      [
        { utteranceId: 'five', speaker: 's1', audioId: a.id, reference: 'five five', block: 's1', group: 's1' },
        { utteranceId: 'ten', speaker: null, audioId: b.id, reference: 'ten of clubs', block: 'utterance:ten', group: 'unknown' },
        { utteranceId: 'gone', speaker: 's1', audioId: 'aud_gone', reference: 'seven of clubs', block: 's1', group: 's1' },
      ],
    );
    const heard: { rate: number; samples: number }[] = [];
    let syntheses = 0;
    const kind = evaluationSynthesesKind({
      db,
      blobs,
      capacity: 2,
      async synthesize() {
        syntheses++;
        throw new Error('a corpus evaluation must not synthesise');
      },
      async transcribe(_p: string, audio: SttAudio): Promise<SttResult> {
        heard.push({ rate: audio.sampleRate, samples: audio.pcm.length });
        return { transcript: 'five five', latency_ms: 3, confidence: 0.9 };
      },
      limitFor: () => new ConcurrencyLimit(2),
      refund: refundCharacters,
    });
    loop = createWorkLoop(kind, { db, clock: systemClock, work: soloWork() });
    await loop.start();
    const deadline = Date.now() + 30_000;
    while (!['completed', 'partial', 'failed'].includes((await getEvaluation(db, id))!.status)) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(syntheses).toBe(0);
    expect(await getEvaluation(db, id)).toMatchObject({ status: 'partial', failed_syntheses: 1, completed_utterances: 6 });
    // clean at each recording's own rate and length; telephone at 8 kHz.
    expect(heard.map((h) => h.rate).sort()).toEqual([16000, 22050, 8000, 8000].sort());
    expect(heard).toContainEqual({ rate: 16000, samples: at16.pcm.length });
    expect(heard).toContainEqual({ rate: 22050, samples: at22.pcm.length });
    const failed = await db.all<{ error_code: string; error_message: string }>(
      'SELECT error_code, error_message FROM evaluation_utterances WHERE evaluation_id = ? AND text_index = 2',
      [id],
    );
    expect(failed).toEqual([
      { error_code: 'synthesis_failed', error_message: 'Recording could not be read: it is no longer stored' },
      { error_code: 'synthesis_failed', error_message: 'Recording could not be read: it is no longer stored' },
    ]);
    const summary = JSON.parse((await getEvaluation(db, id))!.summary!) as { group: string; condition: string; speakers: number; utterances: number }[];
    // Blocks: s1 and the speakerless utterance on its own.
    expect(summary.find((r) => r.group === 'all' && r.condition === 'clean')).toMatchObject({ utterances: 2, speakers: 2 });
  });
});
