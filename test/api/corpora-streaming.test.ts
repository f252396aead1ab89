/**
 * A tar upload is extracted as it arrives (issue 33's benchmark; DESIGN §10.3): its bytes never go to an
 * archive file first. A zip, whose central directory is at its end, is still received whole. The upload is
 * held open half-sent while the test looks into its folder.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { rawTar, recordings, zipOf } from '../helpers/corpora.js';
import { until, untilFound } from '../helpers/until.js';

/** The upload folders of the server (one per upload in progress). */
const uploadFolders = (server: TestServer): string[] => {
  const root = join(server.dataDir, 'tmp', 'corpora');
  return existsSync(root) ? readdirSync(root).map((name) => join(root, name)) : [];
};

/** Waits until no upload folder is left. */
const noUploadFolders = (server: TestServer) => until(() => uploadFolders(server).length === 0);

/**
 * POSTs `archive` as the `file` of a multipart body, sending only its first `held` bytes until `release`
 * is called; resolves to the status.
 */
function heldUpload(server: TestServer, archive: Buffer, held: number, filename: string): { release(): void; status: Promise<number> } {
  const boundary = '----voxctlstreamingtest';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nstreamed\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const req = request(`${server.url}/v1/corpora`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${server.key}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': head.length + archive.length + tail.length,
    },
  });
  const status = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write(Buffer.concat([head, archive.subarray(0, held)]));
  return { release: () => req.end(Buffer.concat([archive.subarray(held), tail])), status };
}

describe('corpus uploads: a tar is extracted as it is received', () => {
  let server: TestServer;
  const recs = recordings();
  const audio = [0, 1, 2].map((i) => readFileSync(recs[i]!.wav));
  const manifest = 'file_name,transcription\n' + audio.map((_, i) => `u${i}.wav,${recs[i]!.text}`).join('\n') + '\n';

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('a half-sent tar already has its first files extracted and no archive file', async () => {
    await noUploadFolders(server);
    const archive = rawTar([{ path: 'corpus/metadata.csv', data: manifest }, ...audio.map((data, i) => ({ path: `corpus/u${i}.wav`, data }))]);
    // The manifest and the first recording are sent whole; the rest waits.
    const held = 512 + Math.ceil(manifest.length / 512) * 512 + 512 + Math.ceil(audio[0]!.length / 512) * 512;
    const upload = heldUpload(server, archive, held, 'corpus.tar');
    try {
      // Either the archive is being written (received whole before extraction) or its files are already out
      // (the manifest written to its end: a file just created is empty for a moment).
      const seen = await untilFound(() => {
        for (const folder of uploadFolders(server)) {
          if (existsSync(join(folder, 'archive'))) return 'archive file';
          const extracted = join(folder, 'files', 'corpus', 'metadata.csv');
          if (existsSync(extracted) && statSync(extracted).size === Buffer.byteLength(manifest)) return 'extracted';
        }
        return undefined;
      });
      expect(seen).toBe('extracted');
      const folder = uploadFolders(server)[0]!;
      expect(readFileSync(join(folder, 'files', 'corpus', 'metadata.csv'), 'utf8')).toBe(manifest);
      // Its audio may be decoding already (`decoded`); there is no archive file.
      expect(readdirSync(folder).filter((name) => name !== 'decoded')).toEqual(['files']);
    } finally {
      upload.release();
    }
    expect(await upload.status).toBe(201);
  }, 120_000);

  it('a zip is received whole into its archive file before anything is extracted', async () => {
    // The last upload's folder goes just after its answer.
    await noUploadFolders(server);
    const archive = await zipOf([{ name: 'corpus/metadata.csv', data: manifest }, ...audio.map((data, i) => ({ name: `corpus/u${i}.wav`, data }))]);
    const upload = heldUpload(server, archive, archive.length >> 1, 'corpus.zip');
    try {
      const folder = await untilFound(() => uploadFolders(server).find((f) => existsSync(join(f, 'archive'))));
      expect(readdirSync(folder)).toEqual(['archive']);
    } finally {
      upload.release();
    }
    expect(await upload.status).toBe(201);
  }, 120_000);
});
