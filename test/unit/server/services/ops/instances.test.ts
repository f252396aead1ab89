/**
 * An instance's heartbeat and its right to judge its peers (DESIGN §14.10): never while the database is
 * away, and after an outage only once its own heartbeat is written again and a full 30 s have passed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type Db } from '../../../../../src/server/storage/db.js';
import type { Logger } from '../../../../../src/server/logger.js';
import { JUDGE_AFTER_MS, startInstancePresence, type InstancePresence } from '../../../../../src/server/features/ops/instances.js';
import { isConnectionFailure } from '../../../../../src/server/storage/database-availability.js';
import { manualClock } from '../../../../helpers/core-http.js';
import { dataDirBlobs } from '../../../../helpers/work.js';

describe('instance presence: when an instance may judge its peers', () => {
  let dir: string;
  let db: Db;
  let presence: InstancePresence | undefined;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'voxctl-presence-'));
    db = await openSqliteDatabase(join(dir, 'voxctl.db'));
  });
  afterEach(async () => {
    await presence?.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // The heartbeat timer ticks every second of real time; the judgement reads the test's clock.
  const tick = () => new Promise((r) => setTimeout(r, 1_300));

  it('judges at start; not while the database is away; after it returns, only 30 s after its own heartbeat is written again', async () => {
    const clock = manualClock('2026-11-28T10:00:00.000Z');
    let down = false;
    const database = { report: (err: unknown) => isConnectionFailure(err), isDown: () => down };
    const logger = pino({ level: 'silent' }) as unknown as Logger;
    presence = await startInstancePresence({ db, clock, id: 'inst_self', blobs: dataDirBlobs(dir), pendingBlobs: async () => [], logger, database });
    const heartbeat = () => db.value<string>("SELECT heartbeat_at FROM instances WHERE id = 'inst_self'");
    // Nothing was seen go wrong before the start: a peer killed earlier is found dead at once.
    expect(presence.mayJudge()).toBe(true);

    down = true;
    clock.advance(45_000);
    expect(presence.mayJudge()).toBe(false);
    await tick();
    clock.advance(1_000);
    down = false;
    // Back, but its own heartbeat not yet written again.
    expect(presence.mayJudge()).toBe(false);
    await tick();
    const rewritten = clock.now().toISOString();
    expect(await heartbeat()).toBe(rewritten);
    expect(presence.mayJudge()).toBe(false);
    clock.advance(JUDGE_AFTER_MS / 2);
    await tick();
    expect(presence.mayJudge()).toBe(false);
    clock.advance(JUDGE_AFTER_MS / 2 - 1);
    expect(presence.mayJudge()).toBe(false);
    clock.advance(1);
    expect(presence.mayJudge()).toBe(true);
  }, 30_000);

  it('writes its row again when a peer forgot it during a long outage', async () => {
    const clock = manualClock('2026-11-28T10:00:00.000Z');
    const logger = pino({ level: 'silent' }) as unknown as Logger;
    presence = await startInstancePresence({ db, clock, id: 'inst_self', blobs: dataDirBlobs(dir), pendingBlobs: async () => [], logger });
    await db.run("DELETE FROM instances WHERE id = 'inst_self'");
    clock.advance(10_000);
    await tick();
    expect(await db.value("SELECT heartbeat_at FROM instances WHERE id = 'inst_self'")).toBe(clock.now().toISOString());
  }, 30_000);
});
