import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { assertBlobName, assertRange, BlobNotFoundError, isBlobName, type AudioBlobStore, type ByteRange } from './types.js';
import { parseS3Url as parseLocation, type S3Location } from '../../../shared/s3-url.js';

/** Where `--audio-store s3://bucket/prefix` points. */
export type { S3Location };

/** Parses `s3://bucket` or `s3://bucket/prefix/…` with the CLI's rule (src/shared/s3-url.ts); throws on anything else. */
export function parseS3Url(url: string): S3Location {
  const location = parseLocation(url);
  if (!location) throw new Error(`Invalid S3 audio store ${JSON.stringify(url)}: expected s3://bucket/prefix`);
  return location;
}

/** Options of the S3 store. Credentials come from the SDK's default chain (`AWS_*` variables, profiles) unless given. */
export interface S3BlobStoreOptions {
  /** `s3://bucket/prefix`. */
  url: string;
  /** An S3-compatible endpoint (MinIO, R2, …); addressed path-style. */
  endpoint?: string;
  /** Defaults to AWS_REGION, then AWS_DEFAULT_REGION, then us-east-1 (what most S3-compatible stores accept). */
  region?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Connect timeout (default 5 s) and idle-socket timeout (default 60 s), so a store that stops answering fails requests instead of hanging them. */
  timeouts?: { connectMs?: number; idleMs?: number };
  /** Attempts per operation, retries included (the SDK's default is 3). */
  maxAttempts?: number;
}

// Objects carry their audio type, so a bucket browsed or served directly plays them.
const CONTENT_TYPES: Record<string, string> = { wav: 'audio/wav', mp3: 'audio/mpeg', m4a: 'audio/mp4' };

const status = (err: unknown): number | undefined => (err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined);

/** The S3 store with its client, so the owner can `destroy()` the client's sockets at shutdown. */
export interface S3BlobStore extends AudioBlobStore {
  readonly client: S3Client;
  readonly location: S3Location;
}

/**
 * Audio blobs as objects of an S3-compatible bucket. A PUT replaces an object atomically and a GET
 * streams one version, so readers never see a part; a range is one `Range: bytes=a-b` GET.
 */
export function createS3BlobStore(options: S3BlobStoreOptions): S3BlobStore {
  const location = parseS3Url(options.url);
  const { bucket, prefix } = location;
  // On Node 20 (which voxctl supports) the SDK warns that its future releases will need Node 22: news for
  // whoever upgrades the lockfile, not for someone running `voxctl serve`, and a warning the tests fail on.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = new S3Client({
    region: options.region ?? 'us-east-1',
    ...(options.endpoint ? { endpoint: options.endpoint, forcePathStyle: true } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    requestHandler: { connectionTimeout: options.timeouts?.connectMs ?? 5000, socketTimeout: options.timeouts?.idleMs ?? 60_000 },
  });
  const keyPrefix = prefix ? `${prefix}/` : '';
  const keyOf = (name: string): string => {
    assertBlobName(name);
    return keyPrefix + name;
  };

  return {
    client,
    location,

    async put(name, bytes) {
      const key = keyOf(name);
      const contentType = CONTENT_TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentLength: bytes.byteLength, ContentType: contentType }));
    },

    async size(name) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: keyOf(name) }));
        return head.ContentLength;
      } catch (err) {
        // HEAD answers carry no error body, so a missing bucket also reads as "no blob" here; `open` tells them apart.
        if (status(err) === 404) return undefined;
        throw err;
      }
    },

    async open(name, range?: ByteRange): Promise<Readable> {
      const key = keyOf(name);
      if (range) assertRange(range, Number.MAX_SAFE_INTEGER);
      let out;
      try {
        out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
      } catch (err) {
        // A missing bucket is a 404 too (NoSuchBucket): a configuration error, not a missing blob.
        if (err instanceof S3ServiceException && err.name === 'NoSuchKey') throw new BlobNotFoundError(name);
        if (status(err) === 416 && range) throw new RangeError(`Byte range ${range.start}-${range.end} is outside audio blob ${name}`);
        throw err;
      }
      const body = out.Body as Readable | undefined;
      if (!body) throw new Error(`S3 returned no body for ${name}`);
      if (range) {
        // S3 cuts a range that runs past the end short; the contract refuses it like the other stores.
        const total = Number(/\/(\d+)$/.exec(out.ContentRange ?? '')?.[1]);
        if (!(range.end < total)) {
          body.destroy();
          throw new RangeError(`Byte range ${range.start}-${range.end} is outside audio blob ${name} (${out.ContentRange ?? 'no Content-Range'})`);
        }
      }
      return body;
    },

    async delete(name) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(name) }));
    },

    async *listOlderThan(cutoff) {
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: keyPrefix, ...(token ? { ContinuationToken: token } : {}) }));
        for (const object of page.Contents ?? []) {
          const name = object.Key?.slice(keyPrefix.length) ?? '';
          // Keys under a deeper "folder" of the prefix are not ours.
          if (isBlobName(name) && object.LastModified && object.LastModified < cutoff) yield name;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
  };
}
