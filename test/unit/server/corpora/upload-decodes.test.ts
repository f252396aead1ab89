/**
 * An upload's decoding (issue 33's benchmark): audio starts decoding as the extraction writes it, and the
 * manifest's turn reuses that work only when it is of the same bytes under limits that cover it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DecodeOutcome, DecodePool } from '../../../../src/server/audio/decode-pool.js';
import { FileDecodeError, type FileDecodeLimits } from '../../../../src/server/audio/file-decode.js';
import { createUploadDecodes } from '../../../../src/server/features/corpora/decodes.js';

const EARLY = { maxBytes: 1000, maxSeconds: 60 };
const CALL = { maxBytes: 5000, maxSeconds: 3600 };

/** A pool that answers `outcomeOf(path, limits)` and notes every file it was given; `hold` keeps files running until aborted. */
function fakePool(outcomeOf: (path: string, limits: FileDecodeLimits) => DecodeOutcome, hold = false) {
  const calls: { path: string; limits: FileDecodeLimits }[] = [];
  const pool: DecodePool = {
    decodeToFile(path, _out, limits, { signal } = {}) {
      calls.push({ path, limits });
      if (!hold) return Promise.resolve(outcomeOf(path, limits));
      return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error)));
    },
    stats: () => ({ workers: 0, busy: 0, queued: 0 }),
    close: async () => undefined,
  };
  return { pool, calls };
}

/** Files reach the pool once the output folder is made (a turn of the event loop or two). */
const reachPool = () => new Promise((resolve) => setTimeout(resolve, 20));

const decoded = { sampleRate: 16000, frames: 16000, bytes: 32044 };

describe('an upload’s decoding', () => {
  const root = mkdtempSync(join(tmpdir(), 'voxctl-upload-decodes-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const decodesOn = (pool: DecodePool, name: string) => createUploadDecodes(pool, { filesDir: join(root, name, 'files'), outDir: join(root, name, 'decoded'), early: EARLY });

  it('audio written by the extraction is decoded then, once; the manifest’s turn gets that result', async () => {
    const { pool, calls } = fakePool(() => decoded);
    const decodes = decodesOn(pool, 'once');
    decodes.written('audio/a.flac');
    decodes.written('metadata.csv');
    await reachPool();
    expect(calls).toEqual([{ path: join(root, 'once', 'files', 'audio/a.flac'), limits: EARLY }]);
    const result = await decodes.outcome('audio/a.flac', EARLY);
    expect(result.outcome).toEqual(decoded);
    expect(result.file.startsWith(join(root, 'once', 'decoded'))).toBe(true);
    expect(calls).toHaveLength(1);
    // A file not decoded as it came (not named as audio) is decoded when asked for.
    await decodes.outcome('audio/b.audio', EARLY);
    expect(calls.map((c) => c.path.slice(join(root, 'once', 'files').length + 1))).toEqual(['audio/a.flac', 'audio/b.audio']);
    await decodes.close();
  });

  it('a path the archive writes twice is decoded again when asked for: the early result was of the first bytes', async () => {
    const { pool, calls } = fakePool(() => decoded);
    const decodes = decodesOn(pool, 'twice');
    decodes.written('a.wav');
    decodes.written('a.wav');
    decodes.written('a.wav');
    await reachPool();
    expect(calls).toHaveLength(1);
    await decodes.outcome('a.wav', EARLY);
    expect(calls).toHaveLength(2);
    await decodes.close();
  });

  it('a recorded call’s wider limits keep a decoded file or a corrupt one, and decode again what the utterance limits refused as too long or big', async () => {
    const { pool, calls } = fakePool((path, limits) =>
      path.endsWith('long.flac') && limits.maxSeconds === EARLY.maxSeconds ? new FileDecodeError('too_long', 'audio longer than the limit') : path.endsWith('bad.flac') ? new FileDecodeError('corrupt', 'x') : decoded,
    );
    const decodes = decodesOn(pool, 'calls');
    for (const name of ['short.flac', 'long.flac', 'bad.flac']) decodes.written(name);
    expect((await decodes.outcome('short.flac', CALL)).outcome).toEqual(decoded);
    expect((await decodes.outcome('long.flac', CALL)).outcome).toEqual(decoded);
    expect(((await decodes.outcome('bad.flac', CALL)).outcome as FileDecodeError).reason).toBe('corrupt');
    expect(calls.map((c) => [c.path.split('/').pop(), c.limits.maxSeconds])).toEqual([
      ['short.flac', 60],
      ['long.flac', 60],
      ['bad.flac', 60],
      ['long.flac', 3600],
    ]);
    // Narrower limits than the early ones are never served from them.
    await decodes.outcome('short.flac', { maxBytes: 10, maxSeconds: 1 });
    expect(calls).toHaveLength(5);
    await decodes.close();
  });

  it('close stops what is still decoding and returns once nothing runs; nothing starts after it', async () => {
    const { pool, calls } = fakePool(() => decoded, true);
    const decodes = decodesOn(pool, 'close');
    decodes.written('a.flac');
    decodes.written('b.flac');
    const asked = decodes.outcome('c.flac', EARLY);
    const left = expect(asked).rejects.toThrow();
    await reachPool();
    expect(calls).toHaveLength(3);
    await decodes.close();
    await left;
    decodes.written('d.flac');
    expect(calls).toHaveLength(3);
  });
});
