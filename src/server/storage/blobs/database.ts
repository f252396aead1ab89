import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Db } from '../sql/types.js';
import { assertBlobName, assertRange, BlobNotFoundError, type AudioBlobStore, type ByteRange } from './types.js';

/** Bytes per stored chunk: a range read fetches only the chunks it touches. */
export const BLOB_CHUNK_SIZE = 256 * 1024;

// The tables (audio_blobs, audio_blob_chunks, audio_blob_retired) belong to the migrations of both
// dialects. `audio_blobs` names the current version of each blob; its bytes are `audio_blob_chunks` rows
// of that version's random `blob_id`. A replacement writes a new version and drops the old one in one
// transaction, so a reader that found a version never mixes its chunks with another's.

interface Head {
  blob_id: string;
  size: number | string;
}

/** Options of the database store; `now` and `chunkSize` exist for tests. */
export interface DatabaseBlobStoreOptions {
  chunkSize?: number;
  now?: () => Date;
}

/**
 * Audio blobs as chunk rows in the shared database (SQLite or PostgreSQL, through the async seam).
 * `put` writes every chunk in one transaction; `open` reads one chunk per query as the stream is
 * consumed, so a large blob is never held in memory whole and a range reads only its chunks.
 */
export function createDatabaseBlobStore(db: Db, options: DatabaseBlobStoreOptions = {}): AudioBlobStore {
  const chunkSize = options.chunkSize ?? BLOB_CHUNK_SIZE;
  const now = options.now ?? (() => new Date());

  const head = async (name: string): Promise<{ blobId: string; size: number } | undefined> => {
    const row = await db.get<Head>('SELECT blob_id, size FROM audio_blobs WHERE name = ?', [name]);
    // node-postgres returns 64-bit integers as strings.
    return row && { blobId: row.blob_id, size: Number(row.size) };
  };
  const chunk = (blobId: string, seq: number): Promise<Buffer | undefined> =>
    db.value<Buffer>('SELECT data FROM audio_blob_chunks WHERE blob_id = ? AND seq = ?', [blobId, seq]);

  // A replaced or deleted version is retired, not dropped: a stream that read its head a moment ago can
  // finish it. `collectRetired` drops retired chunks once no reader can still be on them. Two writers of
  // one name (an item retried by its instance while a peer took it over) may retire the same version:
  // the second retirement is a no-op, never a duplicate key.
  const retire = (blobId: string): Promise<number> =>
    db.run('INSERT INTO audio_blob_retired (blob_id, retired_at) VALUES (?, ?) ON CONFLICT (blob_id) DO NOTHING', [blobId, now().toISOString()]);
  // The head row locked on PostgreSQL, so two writers of one name take turns instead of both replacing it.
  const lockedHead = async (name: string): Promise<{ blobId: string; size: number } | undefined> => {
    const row = await db.get<Head>(`SELECT blob_id, size FROM audio_blobs WHERE name = ?${db.dialect === 'postgres' ? ' FOR UPDATE' : ''}`, [name]);
    return row && { blobId: row.blob_id, size: Number(row.size) };
  };
  const dropVersion = async (name: string): Promise<void> => {
    const old = await lockedHead(name);
    if (old === undefined) return;
    await retire(old.blobId);
    await db.run('DELETE FROM audio_blobs WHERE name = ?', [name]);
  };
  /** True when the stored version `blobId` holds exactly `data` (a retried write of the same audio). */
  const holds = async (blobId: string, data: Buffer): Promise<boolean> => {
    for (let seq = 0; seq * chunkSize < data.length; seq++) {
      const stored = await chunk(blobId, seq);
      if (!stored || !data.subarray(seq * chunkSize, (seq + 1) * chunkSize).equals(stored)) return false;
    }
    return true;
  };

  return {
    async put(name, bytes) {
      assertBlobName(name);
      // Drawn before the transaction: a PostgreSQL retry must write the same version.
      const blobId = randomBytes(12).toString('base64url');
      const createdAt = now().toISOString();
      const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      // Idempotent (DESIGN §14.10): writing the same bytes again leaves the one blob as it is, and two
      // writers of one name at once leave one blob and raise nothing — the head is locked (PostgreSQL) or
      // the write lock held (SQLite), every insert that could meet a twin says ON CONFLICT.
      await db.transaction(async () => {
        const old = await lockedHead(name);
        if (old && old.size === data.length && (await holds(old.blobId, data))) return;
        for (let seq = 0; seq * chunkSize < data.length; seq++) {
          await db.run('INSERT INTO audio_blob_chunks (blob_id, seq, data) VALUES (?, ?, ?)', [
            blobId,
            seq,
            data.subarray(seq * chunkSize, (seq + 1) * chunkSize),
          ]);
        }
        if (old) await retire(old.blobId);
        await db.run(
          `INSERT INTO audio_blobs (name, blob_id, size, created_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET blob_id = excluded.blob_id, size = excluded.size, created_at = excluded.created_at`,
          [name, blobId, data.length, createdAt],
        );
      });
    },

    async size(name) {
      assertBlobName(name);
      return (await head(name))?.size;
    },

    async open(name, range?: ByteRange): Promise<Readable> {
      assertBlobName(name);
      const found = await head(name);
      if (!found) throw new BlobNotFoundError(name);
      const { blobId, size } = found;
      if (range) assertRange(range, size);
      const start = range?.start ?? 0;
      const end = range?.end ?? size - 1;
      const first = Math.floor(start / chunkSize);
      const last = Math.floor(end / chunkSize);
      // The first chunk is read now, so a blob replaced since its head was read fails `open`, not the stream.
      const firstData = size === 0 ? Buffer.alloc(0) : await chunk(blobId, first);
      if (firstData === undefined) throw new BlobNotFoundError(name);

      async function* chunks(): AsyncGenerator<Buffer> {
        for (let seq = first; seq <= last && size > 0; seq++) {
          const data = seq === first ? firstData : await chunk(blobId, seq);
          // Replaced or deleted mid-stream: end with an error rather than splice another version's bytes in.
          if (data === undefined) throw new Error(`Audio blob ${name} was replaced or deleted while it was being read`);
          const from = seq === first ? start - seq * chunkSize : 0;
          const to = seq === last ? end - seq * chunkSize + 1 : data.length;
          yield Buffer.from(data.subarray(from, to));
        }
      }
      return Readable.from(chunks(), { objectMode: false });
    },

    async delete(name) {
      assertBlobName(name);
      await db.transaction(() => dropVersion(name));
    },

    async collectRetired(cutoff) {
      const ids = await db.column<string>('SELECT blob_id FROM audio_blob_retired WHERE retired_at < ? ORDER BY retired_at LIMIT 1000', [cutoff.toISOString()]);
      for (const id of ids) {
        await db.transaction(async () => {
          await db.run('DELETE FROM audio_blob_chunks WHERE blob_id = ?', [id]);
          await db.run('DELETE FROM audio_blob_retired WHERE blob_id = ?', [id]);
        });
      }
      return ids.length;
    },

    async *listOlderThan(cutoff) {
      // Keyset pages: the walk never holds every name, and blobs added meanwhile do not shift it.
      let after = '';
      for (;;) {
        const names = await db.column<string>('SELECT name FROM audio_blobs WHERE created_at < ? AND name > ? ORDER BY name LIMIT 500', [
          cutoff.toISOString(),
          after,
        ]);
        yield* names;
        if (names.length < 500) return;
        after = names[names.length - 1]!;
      }
    },
  };
}
