import type { TestServer } from './server.js';

/** A parsed response: status, headers and the JSON body (or the raw text when it is not JSON). */
export interface Reply {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

/** One request to the test server over loopback; `key` becomes a Bearer header, `json` a JSON body. */
export async function call(
  server: Pick<TestServer, 'url'>,
  method: string,
  path: string,
  opts: { key?: string; json?: unknown; body?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
  let body: string | Uint8Array | undefined = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(server.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON (e.g. 204): keep the text.
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** A clock the test moves by hand (rate windows, periods). */
export function manualClock(iso: string) {
  let ms = Date.parse(iso);
  return {
    now: () => new Date(ms),
    advance(deltaMs: number) {
      ms += deltaMs;
    },
    set(isoTime: string) {
      ms = Date.parse(isoTime);
    },
  };
}
