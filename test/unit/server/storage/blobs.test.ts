import { createPostgresDb } from '../../../../src/server/storage/sql/postgres.js';
import { createTestDatabase, testBackend } from '../../../helpers/postgres.js';
import { randomBytes, createHash } from 'node:crypto';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { ServiceInputTypes, ServiceOutputTypes } from '@aws-sdk/client-s3';
import type { FinalizeHandler, FinalizeHandlerArguments } from '@smithy/types';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../../../src/server/storage/db.js';
import type { Db } from '../../../../src/server/storage/sql/types.js';
import { BLOB_CHUNK_SIZE, createDatabaseBlobStore } from '../../../../src/server/storage/blobs/database.js';
import { createFilesystemBlobStore, TEMP_PREFIX } from '../../../../src/server/storage/blobs/filesystem.js';
import { createS3BlobStore, parseS3Url, type S3BlobStore } from '../../../../src/server/storage/blobs/s3.js';
import { BlobNotFoundError, type AudioBlobStore } from '../../../../src/server/storage/blobs/types.js';
import { openAudioBlobStore } from '../../../../src/server/storage/blobs/index.js';
import { startFakeS3, type FakeS3 } from '../../../helpers/fake-s3.js';

const CHUNK = BLOB_CHUNK_SIZE;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part as Uint8Array));
  return Buffer.concat(parts);
}

/** One store under test, with what the contract needs that the interface does not offer. */
interface Harness {
  store: AudioBlobStore;
  /** Makes `name` look stored at `when` (file mtime, row time, object LastModified). */
  backdate(name: string, when: Date): Promise<void>;
  /** True when a stream opened before a replacement still yields the old bytes (the database store may fail it instead). */
  keepsOpenVersion: boolean;
  close(): Promise<void>;
}

/** The database store over a migrated `Db` of either dialect (the migrations own its tables). */
export function databaseHarness(db: Db, closeDb: () => Promise<void>): Harness {
  return {
    store: createDatabaseBlobStore(db),
    backdate: async (name, when) => {
      await db.run('UPDATE audio_blobs SET created_at = ? WHERE name = ?', [when.toISOString(), name]);
    },
    keepsOpenVersion: true,
    close: closeDb,
  };
}

const tempDirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-blobs-'));
  tempDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const ENV_KEYS = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_REGION', 'AWS_PROFILE'] as const;
/** Points the SDK's default credential chain at a fake through the standard variables. */
function useAwsEnv(fake: FakeS3): () => void {
  const saved = ENV_KEYS.map((k) => [k, process.env[k]] as const);
  for (const k of ENV_KEYS) delete process.env[k];
  process.env.AWS_ACCESS_KEY_ID = fake.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = fake.secretAccessKey;
  process.env.AWS_REGION = fake.region;
  return () => {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

const LOCAL_HARNESSES: [string, () => Promise<Harness>][] = [
  [
    'filesystem',
    async () => {
      const dir = join(tempDir(), 'audio');
      return {
        store: createFilesystemBlobStore(dir),
        backdate: async (name, when) => utimesSync(join(dir, name), when, when),
        keepsOpenVersion: true,
        close: async () => {},
      };
    },
  ],
  [
    'database (SQLite)',
    async () => {
      const db = await openSqliteDatabase(join(tempDir(), 'voxctl.db'));
      return databaseHarness(db, () => db.close());
    },
  ],
  [
    'S3 (loopback fake)',
    async () => {
      const fake = await startFakeS3({ pageSize: 2 });
      const restoreEnv = useAwsEnv(fake);
      const store = createS3BlobStore({ url: 's3://voxctl-audio/team/audio', endpoint: fake.endpoint });
      return {
        store,
        backdate: async (name, when) => fake.setLastModified('voxctl-audio', `team/audio/${name}`, when),
        keepsOpenVersion: true,
        close: async () => {
          store.client.destroy();
          restoreEnv();
          await fake.close();
        },
      };
    },
  ],
];

// On the PostgreSQL project the database store runs on a migrated database of the run's server instead.
const POSTGRES_HARNESS: [string, () => Promise<Harness>] = [
  'database (PostgreSQL)',
  async () => {
    const t = await createTestDatabase();
    const db = createPostgresDb({ connectionString: t.url, max: 4 });
    return databaseHarness(db, async () => {
      await db.close();
      await t.drop();
    });
  },
];
const HARNESSES = testBackend() === 'postgres' ? [POSTGRES_HARNESS] : LOCAL_HARNESSES;

describe.each(HARNESSES)('audio blob store contract: %s', (_label, makeHarness) => {
  let h: Harness;
  let store: AudioBlobStore;
  beforeEach(async () => {
    h = await makeHarness();
    store = h.store;
  });
  afterEach(async () => {
    await h.close();
  });

  it('stores, sizes, streams, replaces and deletes a blob', async () => {
    const bytes = randomBytes(1000);
    expect(await store.size('aud_a.wav')).toBeUndefined();
    await store.put('aud_a.wav', bytes);
    expect(await store.size('aud_a.wav')).toBe(1000);
    expect(sha(await readAll(await store.open('aud_a.wav')))).toBe(sha(bytes));

    const replacement = randomBytes(CHUNK + 5);
    await store.put('aud_a.wav', replacement);
    expect(await store.size('aud_a.wav')).toBe(CHUNK + 5);
    expect(sha(await readAll(await store.open('aud_a.wav')))).toBe(sha(replacement));

    await store.delete('aud_a.wav');
    expect(await store.size('aud_a.wav')).toBeUndefined();
    await expect(store.open('aud_a.wav')).rejects.toBeInstanceOf(BlobNotFoundError);
    await store.delete('aud_a.wav');
  });

  it('opens a missing blob as BlobNotFoundError, whole or ranged', async () => {
    await expect(store.open('aud_missing.wav')).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(store.open('aud_missing.wav', { start: 0, end: 0 })).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('serves inclusive byte ranges: first byte, last byte, across chunk boundaries, whole', async () => {
    const n = 3 * CHUNK + 123;
    const bytes = randomBytes(n);
    await store.put('aud_r.wav', bytes);
    const ranges = [
      [0, 0],
      [n - 1, n - 1],
      [CHUNK - 1, CHUNK],
      [CHUNK, 2 * CHUNK - 1],
      [CHUNK - 10, 2 * CHUNK + 10],
      [17, n - 1],
      [0, n - 1],
    ];
    for (const [start, end] of ranges) {
      const got = await readAll(await store.open('aud_r.wav', { start: start!, end: end! }));
      expect([start, end, got.length, sha(got)]).toEqual([start, end, end! - start! + 1, sha(bytes.subarray(start, end! + 1))]);
    }
  });

  it('refuses a range outside the blob', async () => {
    await store.put('aud_r.wav', randomBytes(100));
    for (const range of [
      { start: 100, end: 100 },
      { start: 0, end: 100 },
      { start: 5, end: 4 },
      { start: -1, end: 3 },
    ]) {
      await expect(store.open('aud_r.wav', range), JSON.stringify(range)).rejects.toBeInstanceOf(RangeError);
    }
  });

  it('stores an empty blob', async () => {
    await store.put('aud_empty.wav', new Uint8Array(0));
    expect(await store.size('aud_empty.wav')).toBe(0);
    expect((await readAll(await store.open('aud_empty.wav'))).length).toBe(0);
    await expect(store.open('aud_empty.wav', { start: 0, end: 0 })).rejects.toBeInstanceOf(RangeError);
  });

  it('round-trips a 3 MB blob, whole and by a middle range', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 7);
    await store.put('aud_big.wav', bytes);
    expect(await store.size('aud_big.wav')).toBe(bytes.length);
    expect(sha(await readAll(await store.open('aud_big.wav')))).toBe(sha(bytes));
    const [start, end] = [5 * CHUNK + 3, 7 * CHUNK + 11];
    expect(sha(await readAll(await store.open('aud_big.wav', { start, end })))).toBe(sha(bytes.subarray(start, end + 1)));
  });

  it('lists blobs stored before a cutoff', async () => {
    for (const name of ['aud_c.wav', 'aud_a.wav', 'aud_b.mp3', 'aud_d.wav', 'aud_e.wav']) await store.put(name, randomBytes(10));
    await h.backdate('aud_a.wav', new Date('2020-01-01T00:00:00Z'));
    await h.backdate('aud_b.mp3', new Date('2021-01-01T00:00:00Z'));
    await h.backdate('aud_e.wav', new Date('2021-02-01T00:00:00Z'));
    const list = async (cutoff: string) => {
      const names: string[] = [];
      for await (const name of store.listOlderThan(new Date(cutoff))) names.push(name);
      return names.sort();
    };
    expect(await list('2019-01-01T00:00:00Z')).toEqual([]);
    expect(await list('2020-06-01T00:00:00Z')).toEqual(['aud_a.wav']);
    expect(await list('2022-01-01T00:00:00Z')).toEqual(['aud_a.wav', 'aud_b.mp3', 'aud_e.wav']);
  });

  it('refuses names that are not plain file names', async () => {
    for (const name of ['../etc.wav', 'a/b.wav', `${TEMP_PREFIX}x.wav`, '', '.hidden']) {
      await expect(store.put(name, randomBytes(4)), name).rejects.toThrow(/Invalid audio blob name/);
      await expect(store.open(name), name).rejects.toThrow(/Invalid audio blob name/);
    }
  });

  it('is idempotent: the same bytes again leave one blob, and writers racing on one name raise nothing (DESIGN §14.10)', async () => {
    const bytes = randomBytes(CHUNK + 10);
    await store.put('aud_same.wav', bytes);
    await store.put('aud_same.wav', bytes);
    expect(sha(await readAll(await store.open('aud_same.wav')))).toBe(sha(bytes));
    // An item retried by its instance after an outage while a peer that took it over writes it too.
    for (let round = 0; round < 3; round++) {
      const versions = Array.from({ length: 4 }, () => randomBytes(1000 + round));
      await Promise.all(versions.map((v) => store.put('aud_same.wav', v)));
      expect(versions.map(sha)).toContain(sha(await readAll(await store.open('aud_same.wav'))));
      await Promise.all([store.put('aud_same.wav', versions[0]!), store.put('aud_same.wav', versions[0]!)]);
      expect(sha(await readAll(await store.open('aud_same.wav')))).toBe(sha(versions[0]!));
    }
    const names: string[] = [];
    for await (const name of store.listOlderThan(new Date(Date.now() + 3_600_000))) names.push(name);
    expect(names).toEqual(['aud_same.wav']);
  });

  it('readers during a replacement see the old bytes or the new, never a part', async () => {
    const old = randomBytes(2 * CHUNK + 99);
    const fresh = randomBytes(3 * CHUNK + 1);
    await store.put('aud_x.wav', old);
    const valid = new Set([sha(old), sha(fresh)]);
    const reads: Promise<string>[] = [];
    const writing = store.put('aud_x.wav', fresh);
    for (let i = 0; i < 6; i++) {
      reads.push(store.open('aud_x.wav').then(readAll).then(sha));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await writing;
    for (const got of await Promise.all(reads)) expect(valid.has(got)).toBe(true);
    expect(sha(await readAll(await store.open('aud_x.wav')))).toBe(sha(fresh));
  });

  it('a stream opened before a replacement yields the old bytes whole, or fails — never mixed bytes', async () => {
    const old = randomBytes(2 * CHUNK + 99);
    const fresh = randomBytes(2 * CHUNK + 99);
    await store.put('aud_y.wav', old);
    const stream = await store.open('aud_y.wav');
    await store.put('aud_y.wav', fresh);
    const outcome = await readAll(stream).then(
      (b) => sha(b),
      (err: Error) => `error: ${err.message}`,
    );
    if (h.keepsOpenVersion) expect(outcome).toBe(sha(old));
    else expect([sha(old), 'error: Audio blob aud_y.wav was replaced or deleted while it was being read']).toContain(outcome);
  });
});

// The store-specific tests run once, on the SQLite project.
if (testBackend() !== 'postgres') {
describe('database blob store on SQLite', () => {
  let db: Db;
  beforeEach(async () => {
    db = await openSqliteDatabase(join(tempDir(), 'voxctl.db'));
  });
  afterEach(async () => {
    await db.close();
  });

  /** The Db with every chunk read counted. */
  const counting = (inner: Db) => {
    const seqs: number[] = [];
    const wrapped: Db = {
      ...inner,
      value: <T>(sql: string, params?: Parameters<Db['value']>[1]) => {
        if (sql.includes('FROM audio_blob_chunks')) seqs.push((params as number[])[1]!);
        return inner.value<T>(sql, params);
      },
    };
    return { db: wrapped, seqs };
  };

  it('stores 256 KiB chunks in one transaction and reads only the chunks a range touches', async () => {
    const { db: spied, seqs } = counting(db);
    const store = createDatabaseBlobStore(spied);
    const bytes = randomBytes(3 * 1024 * 1024 + 7);
    await store.put('aud_big.wav', bytes);
    expect(await db.value('SELECT COUNT(*) FROM audio_blob_chunks')).toBe(13);
    expect(await db.column('SELECT length(data) FROM audio_blob_chunks ORDER BY seq')).toEqual([...Array<number>(12).fill(CHUNK), 7]);

    const got = await readAll(await store.open('aud_big.wav', { start: 5 * CHUNK + 3, end: 6 * CHUNK + 1 }));
    expect(sha(got)).toBe(sha(bytes.subarray(5 * CHUNK + 3, 6 * CHUNK + 2)));
    expect(seqs).toEqual([5, 6]);
    seqs.length = 0;
    await readAll(await store.open('aud_big.wav', { start: bytes.length - 1, end: bytes.length - 1 }));
    expect(seqs).toEqual([12]);
  });

  it('a failed put leaves the previous blob whole (the transaction rolls back)', async () => {
    const store = createDatabaseBlobStore(db);
    const old = randomBytes(2 * CHUNK);
    await store.put('aud_z.wav', old);
    // A trigger makes the last chunk insert fail, after the old version was dropped inside the transaction.
    await db.exec(`CREATE TRIGGER fail_third BEFORE INSERT ON audio_blob_chunks WHEN NEW.seq = 2 BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    await expect(store.put('aud_z.wav', randomBytes(3 * CHUNK))).rejects.toThrow(/disk full/);
    expect(await store.size('aud_z.wav')).toBe(old.length);
    expect(sha(await readAll(await store.open('aud_z.wav')))).toBe(sha(old));
    expect(await db.value('SELECT COUNT(*) FROM audio_blob_chunks')).toBe(2);
  });

  it('writing the same bytes again adds no version: no new chunk, nothing retired', async () => {
    const store = createDatabaseBlobStore(db);
    const bytes = randomBytes(2 * CHUNK + 5);
    await store.put('aud_again.wav', bytes);
    await store.put('aud_again.wav', Buffer.from(bytes));
    expect(await db.value('SELECT COUNT(*) FROM audio_blob_chunks')).toBe(3);
    expect(await db.value('SELECT COUNT(*) FROM audio_blob_retired')).toBe(0);
    // Other bytes are a new version, the old one retired once.
    await store.put('aud_again.wav', randomBytes(10));
    expect(await db.value('SELECT COUNT(*) FROM audio_blob_retired')).toBe(1);
    expect(await db.value('SELECT COUNT(*) FROM audio_blobs')).toBe(1);
  });

  it('delete retires the chunks; collecting frees them once the grace period is over', async () => {
    let now = new Date('2026-11-22T10:00:00Z');
    const store = createDatabaseBlobStore(db, { now: () => now });
    await store.put('aud_d.wav', randomBytes(CHUNK + 1));
    const stream = await store.open('aud_d.wav');
    await store.delete('aud_d.wav');
    expect(await db.value('SELECT COUNT(*) FROM audio_blobs')).toBe(0);
    // A stream opened before the delete still reads the whole retired version.
    expect((await readAll(stream)).length).toBe(CHUNK + 1);
    expect(await store.collectRetired!(new Date('2026-11-22T09:59:00Z'))).toBe(0);
    expect(await db.value('SELECT COUNT(*) FROM audio_blob_chunks')).toBe(2);
    now = new Date('2026-11-22T10:30:00Z');
    expect(await store.collectRetired!(new Date('2026-11-22T10:20:00Z'))).toBe(1);
    expect(await db.value('SELECT COUNT(*) FROM audio_blob_chunks')).toBe(0);
    expect(await db.value('SELECT COUNT(*) FROM audio_blob_retired')).toBe(0);
  });
});

describe('filesystem blob store', () => {
  it('leaves no temp file behind and skips debris when listing', async () => {
    const dir = join(tempDir(), 'audio');
    const store = createFilesystemBlobStore(dir);
    await store.put('aud_f.wav', randomBytes(10));
    const { readdirSync, writeFileSync } = await import('node:fs');
    expect(readdirSync(dir)).toEqual(['aud_f.wav']);
    writeFileSync(join(dir, `${TEMP_PREFIX}dead-aud_g.wav`), 'partial');
    const names: string[] = [];
    for await (const name of store.listOlderThan(new Date(Date.now() + 86_400_000))) names.push(name);
    expect(names).toEqual(['aud_f.wav']);
  });

  it('putFile moves a file in (the folder made on the way, a blob of that name replaced) and stores it as put would', async () => {
    const { existsSync, writeFileSync } = await import('node:fs');
    const dir = join(tempDir(), 'audio');
    const store = createFilesystemBlobStore(dir);
    const bytes = randomBytes(5000);
    const scratch = join(tempDir(), 'decoded.wav');
    writeFileSync(scratch, bytes);
    await store.putFile!('aud_m.wav', scratch, { durable: false });
    expect(existsSync(scratch)).toBe(false);
    expect(sha(await readAll(await store.open('aud_m.wav')))).toBe(sha(bytes));
    const newer = randomBytes(10);
    writeFileSync(scratch, newer);
    await store.putFile!('aud_m.wav', scratch);
    expect(await store.size('aud_m.wav')).toBe(10);
    await expect(store.putFile!('../escape.wav', scratch)).rejects.toThrow(/Invalid audio blob name/);
  });
});

describe('S3 blob store against the loopback fake', () => {
  let fake: FakeS3;
  let restoreEnv: () => void;
  const stores: S3BlobStore[] = [];
  const make = (url = 's3://voxctl-audio/team/audio', extra: Partial<Parameters<typeof createS3BlobStore>[0]> = {}) => {
    const store = createS3BlobStore({ url, endpoint: fake.endpoint, ...extra });
    stores.push(store);
    return store;
  };
  beforeAll(async () => {
    fake = await startFakeS3({ buckets: ['voxctl-audio', 'other'] });
    restoreEnv = useAwsEnv(fake);
  });
  afterEach(() => {
    for (const s of stores.splice(0)) s.client.destroy();
    fake.requests.length = 0;
    for (const bucket of fake.buckets.values()) bucket.clear();
  });
  afterAll(async () => {
    restoreEnv();
    await fake.close();
  });

  it('parses s3://bucket/prefix', () => {
    expect(parseS3Url('s3://voxctl-audio')).toEqual({ bucket: 'voxctl-audio', prefix: '' });
    expect(parseS3Url('s3://voxctl-audio/')).toEqual({ bucket: 'voxctl-audio', prefix: '' });
    expect(parseS3Url('s3://voxctl-audio/a/b/')).toEqual({ bucket: 'voxctl-audio', prefix: 'a/b' });
    for (const bad of ['http://x/y', 's3://', 's3://UPPER/x', 's3://a/x', 's3://bucket/../x']) expect(() => parseS3Url(bad), bad).toThrow(/Invalid S3/);
  });

  it('signs with the AWS_* variables, puts under the prefix, and asks for ranges with Range: bytes=a-b', async () => {
    const store = make();
    const bytes = randomBytes(5000);
    await store.put('aud_s.wav', bytes);
    expect([...fake.buckets.get('voxctl-audio')!.keys()]).toEqual(['team/audio/aud_s.wav']);
    expect(sha(await readAll(await store.open('aud_s.wav', { start: 10, end: 4009 })))).toBe(sha(bytes.subarray(10, 4010)));
    const get = fake.requests.find((r) => r.method === 'GET' && r.key === 'team/audio/aud_s.wav')!;
    expect([get.headers.range, get.status]).toEqual(['bytes=10-4009', 206]);
    expect(fake.requests.every((r) => String(r.headers.authorization).includes(`Credential=${fake.accessKeyId}/`))).toBe(true);
    expect(fake.requests.filter((r) => r.error)).toEqual([]);
  });

  it('a store at the bucket root and one under another prefix do not see each other', async () => {
    const root = make('s3://voxctl-audio');
    const team = make('s3://voxctl-audio/team');
    await root.put('aud_root.wav', randomBytes(3));
    await team.put('aud_team.wav', randomBytes(3));
    const list = async (s: S3BlobStore) => {
      const out: string[] = [];
      for await (const n of s.listOlderThan(new Date(Date.now() + 86_400_000))) out.push(n);
      return out;
    };
    // The root store skips team/aud_team.wav: a key with a slash is not one of its names.
    expect(await list(root)).toEqual(['aud_root.wav']);
    expect(await list(team)).toEqual(['aud_team.wav']);
    expect(await team.size('aud_root.wav')).toBeUndefined();
  });

  it('a wrong secret is refused with 403 SignatureDoesNotMatch and stores nothing', async () => {
    const store = make(undefined, { credentials: { accessKeyId: fake.accessKeyId, secretAccessKey: `${fake.secretAccessKey}x` } });
    await expect(store.put('aud_bad.wav', randomBytes(10))).rejects.toMatchObject({ name: 'SignatureDoesNotMatch', $metadata: { httpStatusCode: 403 } });
    expect(fake.buckets.get('voxctl-audio')!.size).toBe(0);
    expect(fake.requests.map((r) => [r.status, r.error])).toEqual([[403, 'SignatureDoesNotMatch']]);
  });

  it('an unknown access key is refused with 403 InvalidAccessKeyId', async () => {
    const store = make(undefined, { credentials: { accessKeyId: 'AKIANOTKNOWN0000000', secretAccessKey: fake.secretAccessKey } });
    await expect(store.size('aud_x.wav')).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    await expect(store.open('aud_x.wav')).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
  });

  it('stores the audio content type', async () => {
    const store = make();
    await store.put('aud_t.mp3', randomBytes(3));
    await store.put('aud_t.wav', randomBytes(3));
    const objects = fake.buckets.get('voxctl-audio')!;
    expect([objects.get('team/audio/aud_t.mp3')!.contentType, objects.get('team/audio/aud_t.wav')!.contentType]).toEqual(['audio/mpeg', 'audio/wav']);
  });

  it('a body changed after signing is refused (XAmzContentSHA256Mismatch)', async () => {
    const store = make();
    store.client.middlewareStack.addRelativeTo(
      (next: FinalizeHandler<ServiceInputTypes, ServiceOutputTypes>) => (args: FinalizeHandlerArguments<ServiceInputTypes>) => {
        const request = args.request as { body: Uint8Array };
        const body = Buffer.from(request.body);
        body[0] = body[0]! ^ 0xff;
        request.body = body;
        return next(args);
      },
      { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'tamperAfterSigning' },
    );
    await expect(store.put('aud_t.wav', randomBytes(100))).rejects.toMatchObject({ name: 'XAmzContentSHA256Mismatch', $metadata: { httpStatusCode: 400 } });
    expect(fake.buckets.get('voxctl-audio')!.size).toBe(0);
  });

  it('a whole-object read is checked against the stored CRC32: corrupted bytes fail the stream', async () => {
    const store = make();
    await store.put('aud_c.wav', randomBytes(1000));
    const stored = fake.buckets.get('voxctl-audio')!.get('team/audio/aud_c.wav')!;
    stored.data = Buffer.from(stored.data);
    stored.data[500] = stored.data[500]! ^ 1;
    await expect(store.open('aud_c.wav').then(readAll)).rejects.toThrow(/checksum/i);
  });

  it('a store that accepts connections but never answers fails the request after the idle timeout', async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const store = make(undefined, { endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, timeouts: { idleMs: 200 }, maxAttempts: 1 });
      await expect(store.size('aud_x.wav')).rejects.toMatchObject({ name: 'TimeoutError' });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a missing bucket is an error, not a missing blob', async () => {
    const store = make('s3://no-such-bucket/x');
    await expect(store.open('aud_x.wav')).rejects.toMatchObject({ name: 'NoSuchBucket' });
  });
});

describe('fake S3 strictness (requests the SDK would never send)', () => {
  let fake: FakeS3;
  beforeAll(async () => {
    fake = await startFakeS3();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('refuses an unsigned request and a request whose signed path was changed', async () => {
    const unsigned = await fetch(`${fake.endpoint}/voxctl-audio/aud_a.wav`);
    expect(unsigned.status).toBe(403);
    expect(await unsigned.text()).toContain('<Code>AccessDenied</Code>');

    // Sign a GET of one key with the real SDK signer, then send it for another key.
    const store = createS3BlobStore({ url: 's3://voxctl-audio', endpoint: fake.endpoint, credentials: { accessKeyId: fake.accessKeyId, secretAccessKey: fake.secretAccessKey }, region: fake.region });
    await store.put('aud_a.wav', randomBytes(4));
    const signedGet = fake.requests.find((r) => r.method === 'PUT')!;
    const headers = Object.fromEntries(
      Object.entries(signedGet.headers).filter(([k]) => ['authorization', 'x-amz-date', 'x-amz-content-sha256'].includes(k) || k.startsWith('x-amz-')),
    ) as Record<string, string>;
    const replay = await fetch(`${fake.endpoint}/voxctl-audio/aud_b.wav`, { method: 'PUT', headers, body: 'evil' });
    expect(replay.status).toBe(403);
    expect(await replay.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    store.client.destroy();
  });
});

describe('openAudioBlobStore picks the store from --audio-store and the dialect', () => {
  it('SQLite: filesystem by default, database or S3 on request; bad combinations are refused', async () => {
    const dataDir = tempDir();
    const db = await openSqliteDatabase(join(dataDir, 'voxctl.db'));
    try {
      const kinds: string[] = [];
      for (const audioStore of [undefined, 'filesystem', 'database', 's3://voxctl-audio/x']) {
        const opened = await openAudioBlobStore({ dataDir, db, ...(audioStore ? { audioStore } : {}), ...(audioStore?.startsWith('s3') ? { s3Endpoint: 'http://127.0.0.1:9' } : {}) });
        opened.close();
        kinds.push(opened.kind);
      }
      expect(kinds).toEqual(['filesystem', 'filesystem', 'database', 's3']);
      const { store: fsStore } = await openAudioBlobStore({ dataDir, db });
      await fsStore.put('aud_k.wav', randomBytes(3));
      expect(await createFilesystemBlobStore(join(dataDir, 'audio')).size('aud_k.wav')).toBe(3);
      await expect(openAudioBlobStore({ dataDir, db, s3Endpoint: 'http://127.0.0.1:9' })).rejects.toThrow(/--s3-endpoint needs/);
      await expect(openAudioBlobStore({ dataDir, db, audioStore: 'ftp://x' })).rejects.toThrow(/Unknown --audio-store/);
    } finally {
      await db.close();
    }
  });

  it('PostgreSQL: the database by default, never a local folder', async () => {
    // Only the dialect is read when choosing; no query runs.
    const pg = { dialect: 'postgres' } as Db;
    expect((await openAudioBlobStore({ dataDir: tempDir(), db: pg })).kind).toBe('database');
    await expect(openAudioBlobStore({ dataDir: tempDir(), db: pg, audioStore: 'filesystem' })).rejects.toThrow(/cannot be shared/);
  });
});
}
