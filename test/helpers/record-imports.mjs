// Loaded with `node --import`: writes every module the process resolves to stderr as `IMPORT <url>`,
// so a test can tell what a CLI command loads at start-up.
import { register } from 'node:module';

register('data:text/javascript,' + encodeURIComponent(`
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  process.stderr.write('IMPORT ' + result.url + '\\n');
  return result;
}`));
