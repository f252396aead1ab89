import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { migratePostgres } from '../../src/server/storage/migrations/migrate-postgres.js';
import { evaluationSetupMigration } from '../../src/server/storage/migrations/next/c-evaluation-setup.js';
import { createTestDatabase } from '../helpers/postgres.js';

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const d of drops.splice(0)) await d();
});

describe('migration evaluation-setup (PostgreSQL)', () => {
  it('fills the setup of an existing evaluation with what its columns know', async () => {
    const db = await createTestDatabase({ fromTemplate: false });
    drops.push(db.drop);
    await migratePostgres(db.url);
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      // The schema just before this migration: its columns gone again, holding an evaluation made then.
      await c.query('ALTER TABLE evaluations DROP COLUMN setup, DROP COLUMN baseline_id, DROP COLUMN prices');
      await c.query(
        `INSERT INTO evaluations (id, user_id, status, total_utterances, providers, conditions, group_by, normalizer, normalizer_version, seed, period, created_at)
         VALUES ('ev_old', 'usr_1', 'completed', 4, '["stt-b","local-sphinx"]', '["clean","noise:5"]', 'accent', 'whisper-en', 2, 42, '2026-11', '2026-11-01T00:00:00Z')`,
      );
      await c.query(evaluationSetupMigration.postgres);
      const { rows } = await c.query<{ setup: string; baseline_id: null; prices: null }>(`SELECT setup, baseline_id, prices FROM evaluations WHERE id = 'ev_old'`);
      const setup = JSON.parse(rows[0]!.setup);
      expect(setup).toEqual({
        voxctl_version: null,
        normalizer: { name: 'whisper-en', version: 2 },
        providers: { 'stt-b': { adapter: null, model: null, language: null }, 'local-sphinx': { adapter: null, model: null, language: null } },
        conditions: ['clean', 'noise:5'],
        seed: 42,
      });
      expect(Object.keys(setup.providers)).toEqual(['stt-b', 'local-sphinx']);
      expect(rows[0]).toMatchObject({ baseline_id: null, prices: null });
    } finally {
      await c.end();
    }
  });
});
