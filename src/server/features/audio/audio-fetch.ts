/**
 * Gets the bytes behind a transcription's `audio_url` (DESIGN §4.11): this server's own signed audio URLs
 * are read from storage; any other http(s) URL is fetched with undici — at most 25 MB (counted while
 * streaming), 3 redirects (each hop checked again) and 30 s — and refused with 400 when its host resolves
 * to a loopback/private/link-local/CGNAT/multicast/metadata address, unless `allowPrivate`. The socket is
 * pinned to the address that was checked, so a second DNS answer (rebinding) cannot swap it.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type * as Undici from 'undici';
import type { Clock } from '../../clock.js';
import type { Db } from '../../storage/db.js';
import { DomainError, validationFailed } from '../../../shared/errors.js';
import { getAudio } from './repository.js';
import { readAudioBytes, type AudioBlobStore } from './audio-store.js';
import { audioExpired } from './retention.js';
import { AUDIO_ID_PATTERN, type UrlSigner } from './audio-urls.js';
import { blockedReason } from './address-policy.js';
import { MAX_UPLOAD_BYTES } from '../../../shared/constants.js';

/** Largest audio fetched (DESIGN §4.11): the upload limit. */
export const MAX_AUDIO_BYTES = MAX_UPLOAD_BYTES;
/** Redirects followed at most. */
export const MAX_REDIRECTS = 3;
/** Whole-fetch deadline (all hops, body included). */
export const FETCH_TIMEOUT_MS = 30_000;

/** One resolved address of a host name. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (default: the OS resolver, every address). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** Test seams: a fake resolver, and where to really connect once an address passed the check. */
export interface AudioFetchHooks {
  resolve?: Resolver;
  /** Replaces the checked (public) address by a local test server, e.g. 93.184.216.34:80 → 127.0.0.1:PORT. */
  connectTarget?: (address: string, port: number) => { host: string; port: number };
}

/** Everything `loadAudio` needs. */
export interface AudioSourceDeps {
  db: Db;
  blobs: AudioBlobStore;
  /** Checks the server's own audio URLs (the runtime's signer). */
  urls: Pick<UrlSigner, 'verifyAudio'>;
  clock: Clock;
  /** `--allow-private-audio-urls`: skip the address check (the pinning still applies). */
  allowPrivate: boolean;
  hooks?: AudioFetchHooks;
  /** `--audio-retention-days`, for the answer about audio it deleted. */
  retentionDays?: number;
  /** Overrides of the limits (tests, benchmarks). */
  maxBytes?: number;
  timeoutMs?: number;
}

const systemResolver: Resolver = async (hostname) => {
  const all = await dnsLookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** The bytes of `audioUrl`: from storage when it is one of ours, else fetched under the SSRF rules. */
export async function loadAudio(deps: AudioSourceDeps, audioUrl: string): Promise<Buffer> {
  let url: URL;
  try {
    url = new URL(audioUrl);
  } catch {
    throw validationFailed('audio_url must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw validationFailed('audio_url must be an absolute http(s) URL');
  const own = await readOwnAudio(deps, url);
  if (own) return own;
  return fetchExternal(deps, url);
}

/**
 * One of our signed URLs (`/v1/audio/{id}.wav?expires&sig`, any host: the server may sit behind a proxy)
 * is read from disk with no HTTP round trip. A URL whose signature does not verify is not ours to
 * vouch for and is treated like any other URL.
 */
async function readOwnAudio(deps: AudioSourceDeps, url: URL): Promise<Buffer | undefined> {
  const m = /\/v1\/audio\/([^/]+)\.wav$/.exec(url.pathname);
  const id = m?.[1];
  if (!id || !AUDIO_ID_PATTERN.test(id)) return undefined;
  const check = deps.urls.verifyAudio({
    audioId: id,
    expires: url.searchParams.get('expires') ?? undefined,
    sig: url.searchParams.get('sig') ?? undefined,
    now: deps.clock.now(),
  });
  if (check === 'tampered') return undefined;
  if (check === 'expired') throw new DomainError('url_expired', 'Audio URL has expired');
  const row = await getAudio(deps.db, id);
  if (!row) throw new DomainError('audio_not_found', 'Audio not found');
  if (row.expired_at) throw audioExpired(deps.retentionDays);
  const bytes = await readAudioBytes(deps.blobs, row);
  if (!bytes) throw new DomainError('audio_not_found', 'Audio not found');
  return bytes;
}

/** Resolves `url`'s host and checks every address; returns the one to connect to. */
async function checkedAddress(deps: AudioSourceDeps, url: URL): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: ResolvedAddress[];
  const literal = isIP(host);
  if (literal) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await (deps.hooks?.resolve ?? systemResolver)(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) throw validationFailed(`Could not resolve the host of audio_url: ${host}`);
  }
  if (!deps.allowPrivate) {
    // Every answer must be public: a resolver may rotate among them.
    for (const a of addresses) {
      const why = blockedReason(a.address);
      if (why) {
        throw validationFailed(`audio_url resolves to a ${why} address (${a.address}); this server does not fetch such URLs unless started with --allow-private-audio-urls`);
      }
    }
  }
  return addresses[0] as ResolvedAddress;
}

/** A dispatcher whose every connection goes to `target`, whatever DNS says by then. */
function pinnedAgent(undici: typeof Undici, target: ResolvedAddress, hooks: AudioFetchHooks | undefined): Undici.Agent {
  const { Agent, buildConnector } = undici;
  const connectTarget = hooks?.connectTarget;
  if (connectTarget) {
    const plain = buildConnector({ timeout: 10_000 });
    return new Agent({
      connect: (opts, cb) => {
        const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
        const t = connectTarget(target.address, port);
        plain({ ...opts, hostname: t.host, port: String(t.port) }, cb);
      },
    });
  }
  const lookup = (_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
  return new Agent({ connect: { timeout: 10_000, lookup: lookup as never } });
}

async function fetchExternal(deps: AudioSourceDeps, first: URL): Promise<Buffer> {
  const maxBytes = deps.maxBytes ?? MAX_AUDIO_BYTES;
  const timeoutMs = deps.timeoutMs ?? FETCH_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  // Loaded with the first external fetch: most servers never fetch an audio_url.
  const undici = await import('undici');
  let url = first;
  for (let hop = 0; ; hop++) {
    const target = await checkedAddress(deps, url);
    const agent = pinnedAgent(undici, target, deps.hooks);
    try {
      let res: Undici.Dispatcher.ResponseData;
      try {
        res = await undici.request(url, { method: 'GET', dispatcher: agent, signal, headers: { accept: 'audio/*, */*;q=0.5', 'user-agent': 'voxctl' } });
      } catch (err) {
        throw fetchFailure(err, signal, timeoutMs);
      }
      // Destroying the agent after an early exit errors the body: nobody is reading it by then.
      res.body.on('error', () => undefined);
      if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
        await res.body.dump().catch(() => undefined);
        if (hop >= MAX_REDIRECTS) throw validationFailed(`audio_url redirected more than ${MAX_REDIRECTS} times`);
        const location = Array.isArray(res.headers.location) ? res.headers.location[0] : res.headers.location;
        let next: URL;
        try {
          next = new URL(location as string, url);
        } catch {
          throw validationFailed('audio_url redirected to an invalid URL');
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') throw validationFailed('audio_url redirected to a non-http(s) URL');
        url = next;
        continue;
      }
      if (res.statusCode < 200 || res.statusCode > 299) {
        await res.body.dump().catch(() => undefined);
        throw validationFailed(`Could not fetch audio_url: HTTP ${res.statusCode}`);
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        res.body.destroy();
        throw validationFailed(`Audio exceeds ${Math.round(maxBytes / 1048576)} MB`);
      }
      return await readCapped(res.body, maxBytes, signal, timeoutMs);
    } finally {
      agent.destroy().catch(() => undefined);
    }
  }
}

/** Reads the body, counting bytes as they arrive: a lying or absent Content-Length cannot exceed the cap. */
async function readCapped(body: Undici.Dispatcher.ResponseData['body'], maxBytes: number, signal: AbortSignal, timeoutMs: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      total += (chunk as Buffer).length;
      if (total > maxBytes) {
        body.destroy();
        throw validationFailed(`Audio exceeds ${Math.round(maxBytes / 1048576)} MB`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw fetchFailure(err, signal, timeoutMs);
  }
  return Buffer.concat(chunks, total);
}

function fetchFailure(err: unknown, signal: AbortSignal, timeoutMs: number): DomainError {
  if (err instanceof DomainError) return err;
  if (signal.aborted) return validationFailed(`Timed out fetching audio_url after ${Math.round(timeoutMs / 1000)} s`);
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  return validationFailed(`Could not fetch audio_url${code ? `: ${code}` : ''}`);
}
