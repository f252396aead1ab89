/**
 * The hostile uploads of issue 33 / DESIGN §17, built in the test (yazl, node-tar's headers, zlib, sox),
 * and a watch on a real service while one runs: `/health/live` latency and the resident memory of the
 * process with its children (ffmpeg), read from /proc.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGzip, gzipSync } from 'node:zlib';
import * as tar from 'tar';
import { zipOf } from './corpora.js';

/** Sets a zip's declared uncompressed size of its first entry (local header and central directory). */
export function declareZipSize(zip: Buffer, size: number): Buffer {
  const out = Buffer.from(zip);
  if (out.readUInt32LE(0) !== 0x04034b50) throw new Error('not a zip local header');
  out.writeUInt32LE(size, 22);
  const central = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  if (central < 0) throw new Error('no central directory');
  out.writeUInt32LE(size, central + 24);
  return out;
}

/**
 * Issue 33 case 1: an entry holding 1 MB of zeros behind a 1,500-level folder path that declares 1,024
 * bytes (a 7 KB zip). Returns the zip and the entry's name.
 */
export async function lyingZip(): Promise<{ zip: Buffer; name: string }> {
  const name = `${'d/'.repeat(1500)}x.wav`;
  const zip = await zipOf([{ name, data: Buffer.alloc(1024 * 1024) }]);
  return { zip: declareZipSize(zip, 1024), name };
}

/** A zip of a Common Voice header followed by `newlines` line breaks (issue 33 case 2). */
export function newlineTsvZip(newlines: number): Promise<Buffer> {
  const header = Buffer.from('client_id\tpath\tsentence\n');
  return zipOf([{ name: 'corpus/test.tsv', data: Buffer.concat([header, Buffer.alloc(newlines, 0x0a)]) }]);
}

/** One tar entry of `data` (header and padding). */
function tarEntry(path: string, data: Buffer): Buffer {
  const header = new tar.Header({ path, type: 'File', size: data.length, mode: 0o644, uid: 0, gid: 0, mtime: new Date(0) });
  header.encode();
  return Buffer.concat([header.block!, data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}

/**
 * Issue 33 case 3: a valid .tgz corpus (one WAV and its metadata.csv) whose end-of-archive blocks are
 * followed by `trailing` bytes of zeros, all gzip'd small.
 */
export function trailingZerosTgz(wav: Buffer, trailing: number): Buffer {
  const tarred = Buffer.concat([
    tarEntry('corpus/metadata.csv', Buffer.from('file_name,text\na.wav,hello there\n')),
    tarEntry('corpus/a.wav', wav),
    Buffer.alloc(1024),
    Buffer.alloc(trailing),
  ]);
  return gzipSync(tarred, { level: 9 });
}

/** A .tgz holding `corpus/big.wav` of `bytes` zeros (gzip'd as it is made: never in memory whole). */
export async function bigZeroTgz(bytes: number): Promise<Buffer> {
  const gz = createGzip({ level: 1 });
  const chunks: Buffer[] = [];
  gz.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((r) => gz.on('end', r));
  const header = new tar.Header({ path: 'corpus/big.wav', type: 'File', size: bytes, mode: 0o644, uid: 0, gid: 0, mtime: new Date(0) });
  header.encode();
  gz.write(header.block!);
  const zeros = Buffer.alloc(1024 * 1024);
  for (let left = bytes; left > 0; left -= zeros.length) {
    if (!gz.write(left >= zeros.length ? zeros : zeros.subarray(0, left))) await new Promise((r) => gz.once('drain', r));
  }
  gz.end(Buffer.alloc(1024 + ((512 - (bytes % 512)) % 512)));
  await done;
  return Buffer.concat(chunks);
}

/** A file made by sox from nothing: `args` are sox's output options and effects (e.g. rate, channels, `trim`). */
export function soxMake(out: string, opts: { rate: number; channels: number; seconds: number; noise?: boolean }): Buffer {
  execFileSync('sox', ['-D', '-n', '-r', String(opts.rate), '-c', String(opts.channels), '-b', '16', out, 'synth', String(opts.seconds), opts.noise ? 'whitenoise' : 'sine', '0']);
  return readFileSync(out);
}

/** A zip corpus (audiofolder) of the given audio files, each with a transcript. */
export function audioCorpusZip(files: { name: string; data: Buffer }[]): Promise<Buffer> {
  const csv = ['file_name,text', ...files.map((f) => `${f.name},hello there`)].join('\n') + '\n';
  return zipOf([{ name: 'corpus/metadata.csv', data: csv }, ...files.map((f) => ({ name: `corpus/${f.name}`, data: f.data }))]);
}

/** Resident memory of `pid` and all its descendants, in bytes (VmRSS of /proc/PID/status). */
export function treeRss(pid: number): number {
  const rss = (p: number) => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : 0;
    } catch {
      return 0;
    }
  };
  const children = (p: number): number[] => {
    try {
      return readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  let total = 0;
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop()!;
    total += rss(p);
    stack.push(...children(p));
  }
  return total;
}

/** What a watch saw: every health probe's answer (status, or 0 when it got none in time) and latency. */
export interface WatchReport {
  probes: { status: number; ms: number }[];
  maxHealthMs: number;
  /** Highest resident memory seen minus the idle figure taken at the start, in MB. */
  rssGrowthMb: number;
}

/**
 * Watches a service while an attack runs: `/health/live` one probe after the other (each given
 * `probeTimeoutMs`, DESIGN §17.1's 2 s) and the process tree's RSS every 100 ms, against its RSS when the
 * watch starts.
 */
export function watchService(url: string, pid: number, probeTimeoutMs = 2000): { stop(): Promise<WatchReport> } {
  const idle = treeRss(pid);
  let peak = idle;
  let running = true;
  const probes: { status: number; ms: number }[] = [];
  const rssTimer = setInterval(() => (peak = Math.max(peak, treeRss(pid))), 100);
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const status = await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(probeTimeoutMs) }).then(
        async (r) => (await r.arrayBuffer(), r.status),
        () => 0,
      );
      probes.push({ status, ms: Math.round(performance.now() - t0) });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      clearInterval(rssTimer);
      peak = Math.max(peak, treeRss(pid));
      return { probes, maxHealthMs: Math.max(0, ...probes.map((p) => p.ms)), rssGrowthMb: Math.round((peak - idle) / (1024 * 1024)) };
    },
  };
}

/** The upload folders of a data dir (one per upload in progress). */
export const uploadFolderRoot = (dataDir: string) => join(dataDir, 'tmp', 'corpora');
