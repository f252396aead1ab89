import { describe, expect, it } from 'vitest';
import { loadSqliteDriver } from '../../../../src/server/storage/sqlite-driver.js';
import { migrate } from '../../../../src/server/storage/migrations/index.js';
import { NEXT_MIGRATIONS } from '../../../../src/server/storage/migrations/next/index.js';
import { evaluationSetupMigration } from '../../../../src/server/storage/migrations/next/c-evaluation-setup.js';
import { COMPARE_SQL } from '../../../../src/server/features/evaluations/compare-repository.js';

const Database = loadSqliteDriver();

describe('migration evaluation-setup (SQLite)', () => {
  it('fills the setup of an existing evaluation with what its columns know; adapter, model, language and version unknown', () => {
    const raw = new Database(':memory:');
    const index = NEXT_MIGRATIONS.indexOf(evaluationSetupMigration);
    expect(index).toBeGreaterThan(0);
    // The schema just before this migration (the legacy ones, then the next ones before it), holding an
    // evaluation made then.
    migrate(raw);
    for (const m of NEXT_MIGRATIONS.slice(0, index)) raw.exec(m.sqlite);
    raw
      .prepare(
        `INSERT INTO evaluations (id, user_id, status, total_utterances, providers, conditions, group_by, normalizer, normalizer_version, seed, period, created_at)
         VALUES ('ev_old', 'usr_1', 'completed', 4, '["stt-b","local-sphinx"]', '["clean","noise:5"]', 'accent', 'whisper-en', 2, 42, '2026-11', '2026-11-01T00:00:00Z')`,
      )
      .run();
    raw.exec(evaluationSetupMigration.sqlite);
    const row = raw.prepare(`SELECT setup, baseline_id, prices FROM evaluations WHERE id = 'ev_old'`).get() as { setup: string; baseline_id: null; prices: null };
    expect(JSON.parse(row.setup)).toEqual({
      voxctl_version: null,
      normalizer: { name: 'whisper-en', version: 2 },
      providers: { 'stt-b': { adapter: null, model: null, language: null }, 'local-sphinx': { adapter: null, model: null, language: null } },
      conditions: ['clean', 'noise:5'],
      seed: 42,
    });
    // Key order follows the request order of the providers.
    expect(Object.keys(JSON.parse(row.setup).providers)).toEqual(['stt-b', 'local-sphinx']);
    expect(row.baseline_id).toBeNull();
    expect(row.prices).toBeNull();
    raw.close();
  });
});

describe('the comparison read', () => {
  it("reads one evaluation's utterances along the primary key, sorting nothing", () => {
    const raw = new Database(':memory:');
    migrate(raw);
    const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${COMPARE_SQL}`).all('ev_x') as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan).toMatch(/SEARCH evaluation_utterances USING PRIMARY KEY \(evaluation_id=\?\)/);
    expect(plan).not.toContain('TEMP B-TREE');
    raw.close();
  });
});
