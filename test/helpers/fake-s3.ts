/**
 * A loopback fake of the S3 REST API, path-style (`/bucket/key`), covering what the S3 audio store sends:
 * PutObject, HeadObject, GetObject (with `Range`), DeleteObject and ListObjectsV2. As strict as S3 about
 * what reaches it: every request must carry a valid AWS Signature Version 4 made with the fake's key and
 * secret (403 SignatureDoesNotMatch / InvalidAccessKeyId otherwise), a signed `x-amz-content-sha256` that
 * matches the body (or an unsigned-payload mode), and a CRC32 that matches when the SDK sends one (in a
 * header or as an `aws-chunked` trailer). Errors are S3's XML error documents with S3's status codes.
 *
 * Formats: AWS S3 API reference (GetObject, ListObjectsV2, "Error responses"), "Signature Calculations for
 * the Authorization Header" (sigv4-header-based-auth) and "Using trailing checksums with aws-chunked" —
 * written out here, not imported from the SDK, so the fake stays an independent oracle of the wire format.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';

export interface FakeS3Options {
  accessKeyId?: string;
  secretAccessKey?: string;
  region?: string;
  buckets?: string[];
  /** Most keys one ListObjectsV2 page returns (S3: 1000), small in tests to exercise continuation. */
  pageSize?: number;
}

export interface StoredObject {
  data: Buffer;
  lastModified: Date;
  etag: string;
  crc32?: string;
  contentType: string;
}

export interface S3Request {
  method: string;
  bucket: string;
  key: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  status: number;
  /** The S3 error code answered, if any. */
  error?: string;
}

export interface FakeS3 {
  /** `http://127.0.0.1:port`, for `--s3-endpoint`. */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  requests: S3Request[];
  buckets: Map<string, Map<string, StoredObject>>;
  /** Backdates an object (what its listing reports as LastModified). */
  setLastModified(bucket: string, key: string, when: Date): void;
  close(): Promise<void>;
}

class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }
}

const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();
const crc32Base64 = (data: Buffer): string => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data));
  return out.toString('base64');
};
const xmlEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** SigV4's UriEncode: RFC 3986 unreserved characters stay, everything else is %XX of its UTF-8 bytes. */
const uriEncode = (s: string, keepSlash = false): string => {
  const encoded = encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return keepSlash ? encoded.replace(/%2F/g, '/') : encoded;
};

const EMPTY_SHA256 = sha256Hex('');
const UNSIGNED = 'UNSIGNED-PAYLOAD';
const STREAMING_UNSIGNED_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
/** S3 refuses a request signed more than 15 minutes away from its clock. */
const MAX_SKEW_MS = 15 * 60 * 1000;
const AUTH = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;
/** Query parameters an object request may carry (`x-id` is the SDK's operation marker). */
const OBJECT_QUERY = ['x-id'];
const LIST_QUERY = ['list-type', 'prefix', 'continuation-token', 'max-keys', 'start-after', 'delimiter', 'encoding-type', 'fetch-owner', 'x-id'];

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });

/** Starts the fake on an ephemeral loopback port. */
export async function startFakeS3(options: FakeS3Options = {}): Promise<FakeS3> {
  const accessKeyId = options.accessKeyId ?? 'AKIAFAKES3TEST000001';
  const secretAccessKey = options.secretAccessKey ?? randomBytes(30).toString('base64');
  const region = options.region ?? 'us-east-1';
  const pageSize = options.pageSize ?? 1000;
  const buckets = new Map<string, Map<string, StoredObject>>((options.buckets ?? ['voxctl-audio']).map((b) => [b, new Map()]));
  const requests: S3Request[] = [];

  /** Checks the Authorization header as S3 does; returns the payload hash the client declared. */
  const verifySignature = (req: IncomingMessage, url: URL): string => {
    const auth = req.headers.authorization;
    if (!auth) throw new S3Error(403, 'AccessDenied', 'Access Denied');
    const m = AUTH.exec(auth);
    if (!m) throw new S3Error(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed.');
    const [, keyId, day, scopeRegion, service, signedList, signature] = m as unknown as string[];
    if (keyId !== accessKeyId) throw new S3Error(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    if (service !== 's3' || scopeRegion !== region) {
      throw new S3Error(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed; the region '${scopeRegion}' is wrong; expecting '${region}'`, { Region: region });
    }
    const amzDate = String(req.headers['x-amz-date'] ?? '');
    const dm = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
    if (!dm) throw new S3Error(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
    if (amzDate.slice(0, 8) !== day) throw new S3Error(403, 'SignatureDoesNotMatch', 'Credential scope date does not match x-amz-date.');
    const signedAt = Date.UTC(+dm[1]!, +dm[2]! - 1, +dm[3]!, +dm[4]!, +dm[5]!, +dm[6]!);
    if (Math.abs(Date.now() - signedAt) > MAX_SKEW_MS) {
      throw new S3Error(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
    }
    const payloadHash = req.headers['x-amz-content-sha256'];
    if (typeof payloadHash !== 'string') throw new S3Error(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
    const signed = signedList!.split(';');
    const sorted = [...signed].sort();
    if (signed.join(';') !== sorted.join(';') || new Set(signed).size !== signed.length) {
      throw new S3Error(400, 'AuthorizationHeaderMalformed', 'SignedHeaders must be sorted and unique.');
    }
    // S3 requires host and every x-amz-* header sent to be signed.
    for (const name of ['host', ...Object.keys(req.headers).filter((h) => h.startsWith('x-amz-'))]) {
      if (!signed.includes(name)) throw new S3Error(403, 'AccessDenied', `There were headers present in the request which were not signed: ${name}`);
    }
    const canonicalHeaders = signed.map((name) => {
      const value = req.headers[name];
      const text = Array.isArray(value) ? value.join(',') : (value ?? '');
      return `${name}:${text.trim().replace(/\s+/g, ' ')}\n`;
    });
    const canonicalPath = url.pathname
      .split('/')
      .map((seg) => uriEncode(decodeURIComponent(seg)))
      .join('/');
    const canonicalQuery = [...url.searchParams]
      .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
      .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const canonicalRequest = [req.method, canonicalPath, canonicalQuery, canonicalHeaders.join(''), signedList, payloadHash].join('\n');
    const scope = `${day}/${region}/s3/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
    let key: Buffer = hmac(`AWS4${secretAccessKey}`, day!);
    for (const part of [region, 's3', 'aws4_request']) key = hmac(key, part);
    const expected = hmac(key, stringToSign);
    const given = Buffer.from(signature!, 'hex');
    if (!timingSafeEqual(expected, given)) {
      throw new S3Error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
    }
    return payloadHash;
  };

  /** The object bytes of a PUT, after checking them against the declared SHA-256 and CRC32. */
  const payloadOf = (req: IncomingMessage, raw: Buffer, payloadHash: string): { data: Buffer; crc?: string } => {
    let data = raw;
    let crc = req.headers['x-amz-checksum-crc32'] as string | undefined;
    if (payloadHash === STREAMING_UNSIGNED_TRAILER) {
      const encodings = String(req.headers['content-encoding'] ?? '').split(',').map((s) => s.trim());
      if (!encodings.includes('aws-chunked')) throw new S3Error(400, 'InvalidRequest', 'STREAMING-UNSIGNED-PAYLOAD-TRAILER requires Content-Encoding: aws-chunked');
      const decoded = decodeAwsChunked(raw);
      const declared = Number(req.headers['x-amz-decoded-content-length']);
      if (decoded.data.length !== declared) throw new S3Error(400, 'IncompleteBody', 'The decoded body does not match x-amz-decoded-content-length.');
      const trailer = String(req.headers['x-amz-trailer'] ?? '');
      for (const name of Object.keys(decoded.trailers)) {
        if (name !== trailer) throw new S3Error(400, 'MalformedTrailerError', `Trailer ${name} was not declared in x-amz-trailer.`);
      }
      if (trailer && decoded.trailers[trailer] === undefined) throw new S3Error(400, 'MalformedTrailerError', `Declared trailer ${trailer} is missing.`);
      data = decoded.data;
      crc = decoded.trailers['x-amz-checksum-crc32'] ?? crc;
    } else if (payloadHash !== UNSIGNED) {
      if (!/^[0-9a-f]{64}$/.test(payloadHash)) throw new S3Error(400, 'InvalidArgument', 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, or a valid sha256 value.');
      if (sha256Hex(raw) !== payloadHash) throw new S3Error(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
    }
    for (const h of Object.keys(req.headers)) {
      if (h.startsWith('x-amz-checksum-') && h !== 'x-amz-checksum-crc32' && h !== 'x-amz-checksum-algorithm') {
        throw new S3Error(400, 'InvalidRequest', `This fake verifies CRC32 checksums only, not ${h}`);
      }
    }
    if (crc !== undefined && crc !== crc32Base64(data)) throw new S3Error(400, 'BadDigest', 'The CRC32 you specified did not match the calculated checksum.');
    const length = req.headers['content-length'];
    if (payloadHash !== STREAMING_UNSIGNED_TRAILER && length !== undefined && Number(length) !== raw.length) {
      throw new S3Error(400, 'IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header.');
    }
    return crc === undefined ? { data } : { data, crc };
  };

  const sendError = (res: ServerResponse, err: S3Error, resource: string, head: boolean): void => {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    res.statusCode = err.status;
    res.setHeader('x-amz-request-id', requestId);
    if (head) {
      // HEAD responses carry no body: the SDK sees only the status.
      res.end();
      return;
    }
    const extra = Object.entries(err.extra)
      .map(([k, v]) => `<${k}>${xmlEscape(v)}</${k}>`)
      .join('');
    res.setHeader('Content-Type', 'application/xml');
    res.end(
      `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${err.code}</Code><Message>${xmlEscape(err.message)}</Message>${extra}` +
        `<Resource>${xmlEscape(resource)}</Resource><RequestId>${requestId}</RequestId></Error>`,
    );
  };

  const objectHeaders = (res: ServerResponse, obj: StoredObject): void => {
    res.setHeader('ETag', obj.etag);
    res.setHeader('Last-Modified', obj.lastModified.toUTCString());
    res.setHeader('Accept-Ranges', 'bytes');
    res.setHeader('Content-Type', obj.contentType);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, record: S3Request): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const [, bucketName = '', ...rest] = url.pathname.split('/');
    record.bucket = decodeURIComponent(bucketName);
    record.key = decodeURIComponent(rest.join('/'));
    record.query = url.searchParams;
    const raw = await readBody(req);
    const payloadHash = verifySignature(req, url);
    if (req.method !== 'PUT' && payloadHash !== EMPTY_SHA256 && payloadHash !== UNSIGNED) {
      throw new S3Error(400, 'InvalidRequest', `A ${req.method} request has no payload to hash`);
    }
    const bucket = buckets.get(record.bucket);
    if (!bucket) throw new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: record.bucket });
    const key = record.key;
    const allowed = key ? OBJECT_QUERY : LIST_QUERY;
    for (const name of url.searchParams.keys()) {
      if (!allowed.includes(name)) throw new S3Error(501, 'NotImplemented', `This fake does not implement the '${name}' parameter`);
    }

    if (!key) {
      if (req.method !== 'GET' || url.searchParams.get('list-type') !== '2') throw new S3Error(501, 'NotImplemented', 'This fake implements ListObjectsV2 only on a bucket');
      listObjects(res, record.bucket, bucket, url.searchParams);
      return;
    }

    switch (req.method) {
      case 'PUT': {
        if (req.headers['x-amz-copy-source']) throw new S3Error(501, 'NotImplemented', 'CopyObject is not implemented');
        const { data, crc } = payloadOf(req, raw, payloadHash);
        const obj: StoredObject = {
          data,
          lastModified: new Date(),
          etag: `"${createHash('md5').update(data).digest('hex')}"`,
          contentType: String(req.headers['content-type'] ?? 'binary/octet-stream'),
          ...(crc === undefined ? {} : { crc32: crc }),
        };
        // Stored only now, whole: a concurrent GET sees the previous object or this one.
        bucket.set(key, obj);
        res.setHeader('ETag', obj.etag);
        if (crc !== undefined) res.setHeader('x-amz-checksum-crc32', crc);
        res.end();
        return;
      }
      case 'HEAD':
      case 'GET': {
        const obj = bucket.get(key);
        if (!obj) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key });
        objectHeaders(res, obj);
        const size = obj.data.length;
        const rangeHeader = req.headers.range;
        if (rangeHeader !== undefined) {
          const r = parseRange(rangeHeader, size);
          res.statusCode = 206;
          res.setHeader('Content-Range', `bytes ${r.start}-${r.end}/${size}`);
          res.setHeader('Content-Length', r.end - r.start + 1);
          res.end(req.method === 'GET' ? obj.data.subarray(r.start, r.end + 1) : undefined);
          return;
        }
        res.setHeader('Content-Length', size);
        // S3 returns the stored full-object checksum when the client asks for it; the SDK then verifies the body.
        if (obj.crc32 !== undefined && req.headers['x-amz-checksum-mode'] === 'ENABLED') {
          res.setHeader('x-amz-checksum-crc32', obj.crc32);
          res.setHeader('x-amz-checksum-type', 'FULL_OBJECT');
        }
        res.end(req.method === 'GET' ? obj.data : undefined);
        return;
      }
      case 'DELETE':
        bucket.delete(key);
        res.statusCode = 204;
        res.end();
        return;
      default:
        throw new S3Error(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
    }
  };

  const listObjects = (res: ServerResponse, name: string, bucket: Map<string, StoredObject>, q: URLSearchParams): void => {
    const prefix = q.get('prefix') ?? '';
    const urlEncoded = q.get('encoding-type') === 'url';
    if (q.has('encoding-type') && !urlEncoded) throw new S3Error(400, 'InvalidArgument', 'Invalid Encoding Method specified in Request');
    if (q.has('delimiter')) throw new S3Error(501, 'NotImplemented', 'This fake does not implement delimiter listings');
    const maxKeys = q.has('max-keys') ? Number(q.get('max-keys')) : 1000;
    if (!Number.isInteger(maxKeys) || maxKeys < 0) throw new S3Error(400, 'InvalidArgument', 'Provided max-keys not an integer or within integer range');
    const token = q.get('continuation-token');
    let after = q.get('start-after') ?? '';
    if (token !== null) {
      const decoded = Buffer.from(token, 'base64url').toString('utf8');
      if (!decoded.startsWith('k:')) throw new S3Error(400, 'InvalidArgument', 'The continuation token provided is incorrect');
      after = decoded.slice(2);
    }
    // S3 lists keys in UTF-8 binary order.
    const keys = [...bucket.keys()].filter((k) => k.startsWith(prefix) && Buffer.compare(Buffer.from(k), Buffer.from(after)) > 0);
    keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const limit = Math.min(maxKeys, pageSize);
    const page = keys.slice(0, limit);
    const truncated = keys.length > page.length;
    const enc = (s: string) => xmlEscape(urlEncoded ? uriEncode(s, true) : s);
    const contents = page
      .map((k) => {
        const o = bucket.get(k)!;
        return `<Contents><Key>${enc(k)}</Key><LastModified>${o.lastModified.toISOString()}</LastModified><ETag>${xmlEscape(o.etag)}</ETag><Size>${o.data.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
      })
      .join('');
    res.setHeader('Content-Type', 'application/xml');
    res.end(
      `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
        `<Name>${xmlEscape(name)}</Name><Prefix>${enc(prefix)}</Prefix><KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys>` +
        (urlEncoded ? '<EncodingType>url</EncodingType>' : '') +
        `<IsTruncated>${truncated}</IsTruncated>${contents}` +
        (token !== null ? `<ContinuationToken>${xmlEscape(token)}</ContinuationToken>` : '') +
        (truncated ? `<NextContinuationToken>${Buffer.from(`k:${page[page.length - 1]}`).toString('base64url')}</NextContinuationToken>` : '') +
        '</ListBucketResult>',
    );
  };

  const server: Server = createServer((req, res) => {
    const record: S3Request = { method: req.method ?? '', bucket: '', key: '', query: new URLSearchParams(), headers: req.headers, status: 0 };
    requests.push(record);
    res.on('finish', () => {
      record.status = res.statusCode;
    });
    handle(req, res, record).catch((err: unknown) => {
      const s3err = err instanceof S3Error ? err : new S3Error(500, 'InternalError', (err as Error).message);
      record.error = s3err.code;
      if (res.headersSent) res.destroy();
      else sendError(res, s3err, new URL(req.url ?? '/', 'http://fake').pathname, req.method === 'HEAD');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId,
    secretAccessKey,
    region,
    requests,
    buckets,
    setLastModified(bucket, key, when) {
      const obj = buckets.get(bucket)?.get(key);
      if (!obj) throw new Error(`fake S3 has no ${bucket}/${key}`);
      obj.lastModified = when;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** One `bytes=` range as RFC 9110 and S3 read it (`a-b`, `a-`, `-n`); 416 InvalidRange when unsatisfiable. */
function parseRange(header: string, size: number): { start: number; end: number } {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) throw new S3Error(501, 'NotImplemented', `This fake does not implement the range ${header}`);
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) throw new S3Error(501, 'NotImplemented', `Invalid range ${header}`);
  }
  if (start >= size || size === 0) throw new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable', { RangeRequested: header, ActualObjectSize: String(size) });
  return { start, end };
}

/** Decodes an `aws-chunked` body: `hex-size\r\n data \r\n` … `0\r\n`, then `name:value\r\n` trailers and `\r\n`. */
function decodeAwsChunked(body: Buffer): { data: Buffer; trailers: Record<string, string> } {
  const parts: Buffer[] = [];
  let at = 0;
  const line = (): string => {
    const nl = body.indexOf('\r\n', at);
    if (nl < 0) throw new S3Error(400, 'IncompleteBody', 'aws-chunked body ended inside a line');
    const text = body.subarray(at, nl).toString('latin1');
    at = nl + 2;
    return text;
  };
  for (;;) {
    const header = line();
    // A signed chunk would read `size;chunk-signature=…`; the unsigned-trailer mode has none.
    if (!/^[0-9a-fA-F]+$/.test(header)) throw new S3Error(400, 'InvalidChunkSizeError', `Bad aws-chunked size line ${JSON.stringify(header)}`);
    const size = parseInt(header, 16);
    if (size === 0) break;
    if (at + size + 2 > body.length || body.subarray(at + size, at + size + 2).toString('latin1') !== '\r\n') {
      throw new S3Error(400, 'IncompleteBody', 'aws-chunked chunk is shorter than its size line');
    }
    parts.push(body.subarray(at, at + size));
    at += size + 2;
  }
  const trailers: Record<string, string> = {};
  for (;;) {
    const t = line();
    if (t === '') break;
    const colon = t.indexOf(':');
    if (colon < 1) throw new S3Error(400, 'MalformedTrailerError', `Bad trailer line ${JSON.stringify(t)}`);
    trailers[t.slice(0, colon).trim().toLowerCase()] = t.slice(colon + 1).trim();
  }
  if (at !== body.length) throw new S3Error(400, 'IncompleteBody', 'Bytes after the aws-chunked trailers');
  return { data: Buffer.concat(parts), trailers };
}
