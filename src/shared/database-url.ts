/** The URL schemes `--database-url` / `VOXCTL_DATABASE_URL` accept (PostgreSQL, DESIGN §9.1). */
const SCHEMES = new Set(['postgres:', 'postgresql:']);

/**
 * Checks a database URL and returns an error message, or undefined when it is usable. The message never
 * repeats the URL: it may carry a password.
 */
export function databaseUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Invalid database URL: expected postgres://user:password@host:5432/database';
  }
  if (!SCHEMES.has(parsed.protocol)) return `Invalid database URL: unsupported scheme "${parsed.protocol.replace(/:$/, '')}" (expected postgres://)`;
  if (!parsed.hostname && !parsed.searchParams.has('host')) return 'Invalid database URL: no host';
  return undefined;
}

/** The URL with its password replaced by `***`, for logs, `/health`, `serve status` and error messages. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const key of [...parsed.searchParams.keys()]) {
      if (key.toLowerCase() === 'password') parsed.searchParams.set(key, '***');
    }
    return parsed.toString();
  } catch {
    return '(unparsable database URL)';
  }
}
