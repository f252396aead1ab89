/**
 * Typed getters over the environment, read on every call (never memoised) so tests can change them.
 * The one place the CLI reads environment variables.
 */
export interface CliEnv {
  /** VOXCTL_BASE_URL: the service the client talks to. */
  baseUrl(): string | undefined;
  /** VOXCTL_API_KEY: the key, above the keychain. */
  apiKey(): string | undefined;
  /** VOXCTL_DATA_DIR: the local service's data dir. */
  dataDir(): string | undefined;
  /** NO_COLOR (any non-empty value) or FORCE_COLOR=0 turn colours off. */
  noColor(): boolean;
  /** GITHUB_STEP_SUMMARY: the file GitHub Actions shows as the job summary (evaluation outputs append to it). */
  githubStepSummary(): string | undefined;
  /** The raw environment, for child processes. */
  raw(): NodeJS.ProcessEnv;
}

/** Builds the getters over `source` (default: process.env, read live). */
export function createEnv(source: NodeJS.ProcessEnv = process.env): CliEnv {
  const get = (name: string) => {
    const v = source[name];
    return v === undefined || v === '' ? undefined : v;
  };
  return {
    baseUrl: () => get('VOXCTL_BASE_URL'),
    apiKey: () => get('VOXCTL_API_KEY'),
    dataDir: () => get('VOXCTL_DATA_DIR'),
    noColor: () => get('NO_COLOR') !== undefined || source.FORCE_COLOR === '0',
    githubStepSummary: () => get('GITHUB_STEP_SUMMARY'),
    raw: () => source,
  };
}
