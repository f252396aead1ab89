import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call } from '../helpers/core-http.js';
import { charactersUsed, fetchAudio, fliteSpeaker, pollJob, postMultipart, promoteToEnterprise } from '../helpers/audio-jobs.js';
import { parseWav } from '../../src/server/audio/wav.js';
import { createUserWithKey } from '../../src/server/features/accounts/users.js';
import { updateUserSubscription } from '../../src/server/features/accounts/users-repository.js';

describe('/v1/datasets', () => {
  let server: TestServer;
  let speaker: string;
  beforeAll(async () => {
    server = await startTestServer();
    await promoteToEnterprise(server);
    speaker = await fliteSpeaker(server.runtime.db);
  });
  afterAll(async () => server.close());

  const upload = (csv: string | Uint8Array, fields: Record<string, string> = { name: 'test set' }, key = server.key, fileFirst = false) =>
    postMultipart(server, '/v1/datasets/upload', { file: { bytes: csv, name: 'data.csv', type: 'text/csv' }, fields, fileFirst }, key);
  const countDatasets = async () => Number(await server.runtime.db.value('SELECT COUNT(*) FROM datasets'));
  const countRows = async () => Number(await server.runtime.db.value('SELECT COUNT(*) FROM dataset_rows'));

  it('stores a dataset (BOM, CRLF, quotes, newlines, extra columns), assigns and records random speakers', async () => {
    const csv = `\ufeffid,text,speaker_id,notes\r\n1,"Hello, ""world""",${speaker},x\r\n2,"Two\r\nlines",,y\r\n3,Third,  ,z\r\n`;
    const res = await upload(csv, { name: 'My set' }, server.key, true);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ dataset_id: expect.stringMatching(/^dst_/), name: 'My set', row_count: 3, created_at: expect.any(String) });
    const got = await call(server, 'GET', `/v1/datasets/${res.body.dataset_id}`, { key: server.key });
    expect(got.status).toBe(200);
    expect(got.body.rows.map((r: { index: number; text: string }) => [r.index, r.text])).toEqual([
      [0, 'Hello, "world"'],
      [1, 'Two\r\nlines'],
      [2, 'Third'],
    ]);
    expect(got.body.rows[0].speaker_id).toBe(speaker);
    for (const r of got.body.rows) {
      expect(r.speaker_id).toMatch(/^spk_/);
      expect(r.audio_url).toBeUndefined();
      expect((await call(server, 'GET', `/v1/speakers/${r.speaker_id}`, { key: server.key })).status).toBe(200);
    }
    // The random choice is recorded: reading again gives the same speakers.
    const again = await call(server, 'GET', `/v1/datasets/${res.body.dataset_id}`, { key: server.key });
    expect(again.body.rows).toEqual(got.body.rows);
  });

  it('reports every documented error with its line, storing nothing', async () => {
    const before = [await countDatasets(), await countRows()];
    const cases: [string, string][] = [
      ['name,speaker_id\nhello,\n', "CSV is missing required column 'text'"],
      ['text,speaker_id\r\n', 'CSV has no data rows'],
      ['text\nfine\n  \n', 'Line 3: text must not be empty'],
      [`text\nfine\n"a\nb"\n${'z'.repeat(2001)}\n`, 'Line 5: Text exceeds maximum length of 2000 characters'],
      [`text,speaker_id\nfine,${speaker}\nbad,spk_ghost\n`, 'Line 3: Speaker not found: spk_ghost'],
      ['text\n' + 'row\n'.repeat(10_001), 'CSV exceeds 10000 rows'],
      ['text\nfine\n"open quote\nnever closed\n', 'Malformed CSV at line 3: unclosed quoted field'],
    ];
    for (const [csv, detail] of cases) {
      const res = await upload(csv);
      expect(res.status, detail).toBe(400);
      expect(res.body.detail).toBe(detail);
    }
    const big = await upload('text\n' + 'row\n'.repeat(2_700_000));
    expect(big.status).toBe(400);
    expect(big.body.detail).toBe('File exceeds 10 MB');
    expect([await countDatasets(), await countRows()]).toEqual(before);
  });

  it('validates name and generate_audio and the file part', async () => {
    const csv = 'text\nhello\n';
    for (const [fields, detail] of [
      [{}, "Missing required field 'name'"],
      [{ name: '' }, 'name must be 1 to 200 characters'],
      [{ name: 'n'.repeat(201) }, 'name must be 1 to 200 characters'],
      [{ name: 'ok', generate_audio: 'yes' }, 'generate_audio must be one of true, false, 1, 0'],
    ] as [Record<string, string>, string][]) {
      const res = await upload(csv, fields);
      expect(res.status).toBe(400);
      expect(res.body.detail).toBe(detail);
    }
    expect((await upload(csv, { name: 'n'.repeat(200), generate_audio: '0' })).status).toBe(201);
    const noFile = await postMultipart(server, '/v1/datasets/upload', { fields: { name: 'x' } });
    expect(noFile.status).toBe(400);
    expect((await call(server, 'POST', '/v1/datasets/upload', { key: server.key, json: { name: 'x' } })).status).toBe(415);
  });

  it('generate_audio starts a pending job over every row; rows get audio_url as items finish', async () => {
    const used = await charactersUsed(server);
    const texts = ['First row.', 'Second row.', 'Third row.'];
    const res = await upload(`text,speaker_id\n${texts.map((t) => `${t},${speaker}`).join('\n')}\n`, { name: 'gen', generate_audio: 'true' });
    expect(res.status).toBe(201);
    expect(res.body.job_id).toMatch(/^job_/);
    expect(await charactersUsed(server)).toBe(used + texts.join('').length);
    const { final } = await pollJob(server, res.body.job_id);
    expect(final).toMatchObject({ status: 'completed', total_items: 3 });
    const ds = await call(server, 'GET', `/v1/datasets/${res.body.dataset_id}`, { key: server.key });
    expect(ds.body.job_id).toBe(res.body.job_id);
    for (const row of ds.body.rows) {
      const audio = await fetchAudio(row.audio_url);
      expect(audio.status).toBe(200);
      expect(parseWav(audio.bytes).frames).toBeGreaterThan(1000);
    }
  });

  it('refuses generation for a cancelled subscription (403) and over quota (429), storing nothing', async () => {
    const { user, key } = await createUserWithKey(server.runtime.db, { email: 'ds-cancel@example.com', tier: 'free', now: new Date() });
    const before = await countDatasets();
    const over = await upload(`text\n${'q'.repeat(2000)}\n`.repeat(1) + `${'q'.repeat(2000)}\n`.repeat(5), { name: 'big', generate_audio: '1' }, key.key);
    expect(over.status).toBe(429);
    await updateUserSubscription(server.runtime.db, user.id, { status: 'cancelled', cancelAtPeriodEnd: false });
    const cancelled = await upload('text\nhello\n', { name: 'c', generate_audio: 'true' }, key.key);
    expect(cancelled.status).toBe(403);
    expect(cancelled.body.detail).toBe('Subscription is cancelled');
    expect(await countDatasets()).toBe(before);
    // Without generation a cancelled user may still store a dataset.
    expect((await upload('text\nhello\n', { name: 'c' }, key.key)).status).toBe(201);
  });

  it('lists datasets newest first with the paging envelope; 404 for unknown or foreign ids', async () => {
    const { key } = await createUserWithKey(server.runtime.db, { email: 'lister@example.com', now: new Date() });
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) ids.push((await upload('text\nhi\n', { name }, key.key)).body.dataset_id);
    const page = await call(server, 'GET', '/v1/datasets?limit=2', { key: key.key });
    expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 0, has_more: true });
    expect(page.body.items.map((d: { dataset_id: string }) => d.dataset_id)).toEqual([ids[2], ids[1]]);
    expect(Object.keys(page.body.items[0]).sort()).toEqual(['created_at', 'dataset_id', 'name', 'row_count']);
    const last = await call(server, 'GET', '/v1/datasets?limit=2&offset=2', { key: key.key });
    expect(last.body).toMatchObject({ total: 3, has_more: false });
    expect((await call(server, 'GET', '/v1/datasets?limit=101', { key: key.key })).status).toBe(400);
    const foreign = await call(server, 'GET', `/v1/datasets/${ids[0]}`, { key: server.key });
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toBe('Dataset not found');
    expect((await call(server, 'GET', '/v1/datasets/dst_nope', { key: key.key })).body.detail).toBe('Dataset not found');
  });

  it('fuzz: random bytes and CSV shapes never give a 5xx nor a partial dataset', async () => {
    const cell = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', '"', '""', ',', '\n', '\r\n', speaker, 'spk_ghost', '\ufeff', '\u0000'));
    const shape = fc
      .tuple(fc.array(fc.array(cell, { maxLength: 4 }), { maxLength: 6 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
      .map(([rows, eol, header]) => (header ? `text,speaker_id${eol}` : '') + rows.map((r) => r.join(',')).join(eol));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.uint8Array({ maxLength: 300 }), shape), async (data) => {
        const datasets = await countDatasets();
        const rows = await countRows();
        const res = await upload(data);
        expect(res.status).toBeLessThan(500);
        if (res.status === 201) {
          expect(await countRows()).toBe(rows + res.body.row_count);
          expect(await countDatasets()).toBe(datasets + 1);
        } else {
          expect(res.status).toBe(400);
          expect([await countDatasets(), await countRows()]).toEqual([datasets, rows]);
        }
      }),
      { numRuns: 60 },
    );
  });
});
