/** An `s3://bucket/prefix` audio store location (DESIGN §9.2). */
export interface S3Location {
  bucket: string;
  /** Key prefix without leading or trailing slash; '' for the bucket's root. */
  prefix: string;
}

/**
 * Parses `s3://bucket/prefix` (an S3 bucket name; a prefix without `.`/`..` segments); undefined when it is
 * not one. The CLI checks `--audio-store` with it and the S3 store opens its location with it.
 */
export function parseS3Url(url: string): S3Location | undefined {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!m) return undefined;
  const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((part) => part === '.' || part === '..')) return undefined;
  return { bucket: m[1]!, prefix };
}

/** The message for an `--audio-store` value that is not `s3://bucket/prefix`, or undefined when it is. */
export function s3UrlProblem(url: string): string | undefined {
  return parseS3Url(url) ? undefined : `Invalid --audio-store: expected s3://bucket/prefix, got '${url}'`;
}
