/**
 * A request over `node:http`/`node:https` for the common case — no dispatcher, a JSON body or none. A
 * CLI command is one or two requests: loading Node's bundled fetch (undici, with its WebAssembly HTTP
 * parser) cost more than the request itself, while `node:http` is already part of Node's snapshot.
 */
import type { IncomingMessage } from 'node:http';
import { builtin } from '../shared/builtin.js';

/** The answer as the client reads it: status, lower-case headers (repeated ones joined) and the body. */
export interface NodeAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Sends one request and collects the answer; rejects on a transport failure or when `timeoutMs` passes
 * (the socket is destroyed). `onChunk` sees a 2xx body as it arrives.
 */
export async function nodeRequest(
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number; onChunk?: (chunk: Uint8Array) => void },
): Promise<NodeAnswer> {
  const { request } = url.protocol === 'https:' ? builtin('node:https') : builtin('node:http');
  return new Promise<NodeAnswer>((resolve, reject) => {
    const headers = init.body === undefined ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) };
    const req = request(url, { method: init.method, headers, signal: AbortSignal.timeout(init.timeoutMs) }, (res: IncomingMessage) => {
      const parts: Buffer[] = [];
      const ok = (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300;
      res.on('data', (chunk: Buffer) => {
        parts.push(chunk);
        if (ok) init.onChunk?.(chunk);
      });
      res.on('error', reject);
      res.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 0, headers: flat, body: Buffer.concat(parts) });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
