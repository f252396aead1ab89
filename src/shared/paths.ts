import envPaths from 'env-paths';

/** The service's data dir: `--data-dir`, else VOXCTL_DATA_DIR, else the OS user data dir (DESIGN §5). */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag ?? env.VOXCTL_DATA_DIR ?? envPaths('voxctl', { suffix: '' }).data;
}

/** The CLI's config dir (conf store, fallback key file): OS user config dir, overridable for tests. */
export function resolveConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.VOXCTL_CONFIG_DIR ?? envPaths('voxctl', { suffix: '' }).config;
}
