// Loaded with `node --import`: writes every module the process resolves to stderr as `IMPORT <url>`,
// so a test can tell what a CLI command loads at start-up. The hooks run on their own thread (Node ≥ 22 at
// least): a synchronous write to fd 2 keeps their lines from being lost when `--version` exits at once.
import { register } from 'node:module';

register('data:text/javascript,' + encodeURIComponent(`
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  writeSync(2, 'IMPORT ' + result.url + '\\n');
  return result;
}`));
