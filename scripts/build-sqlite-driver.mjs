#!/usr/bin/env node
// postinstall: build better-sqlite3 12, the SQLite driver of Node 20, against the headers of the Node that
// runs this install (src/server/storage/sqlite-driver.ts says which driver each Node uses).
//
// Why here and not in better-sqlite3's own install script (denied in package.json `allowScripts`): offline,
// its `prebuild-install || node-gyp rebuild` can neither download a prebuilt binary nor the headers, and
// npm then drops the optional package without a word. node-gyp can only be pointed at local headers through
// npm config (`nodedir` in .npmrc, which npm 11 warns is unknown on every command) or the environment;
// from our own script we pass `--nodedir` directly, with no config at all. On Node 22+ the Node-API build
// (better-sqlite3 13, prebuilt inside its package) is used and v12 is never loaded: nothing to build.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const NAPI_DRIVER_SINCE_MAJOR = 22;
const major = Number.parseInt(process.versions.node, 10);
if (major >= NAPI_DRIVER_SINCE_MAJOR) process.exit(0);

const require = createRequire(import.meta.url);
let dir;
try {
  dir = dirname(require.resolve('better-sqlite3/package.json'));
} catch {
  // Not installed (an optional dependency npm skipped): the driver seam says what to do when it is needed.
  process.exit(0);
}

/** True when the built addon loads on this Node (a leftover build for another ABI does not). */
function loads() {
  if (!existsSync(join(dir, 'build', 'Release', 'better_sqlite3.node'))) return false;
  try {
    const Database = require(dir);
    new Database(':memory:').close();
    return true;
  } catch {
    return false;
  }
}

if (loads()) process.exit(0);

// npm trusts its record of node_modules (node_modules/.package-lock.json) only while no package folder is
// newer than it; adding build/ inside better-sqlite3 would make every later npm and npx command re-read
// the whole tree. The package's files do not change, so its folder keeps its time.
const folderTimes = statSync(dir);
const done = () => {
  utimesSync(dir, folderTimes.atime, folderTimes.mtime);
  process.exit(0);
};

/**
 * The headers of the running Node: official tarballs, nvm, the `node` npm package and Debian/NodeSource all
 * keep them at <prefix>/include/node beside <prefix>/bin/node. Used only when their version matches.
 */
function localHeaders() {
  const prefix = dirname(dirname(process.execPath));
  try {
    const h = readFileSync(join(prefix, 'include', 'node', 'node_version.h'), 'utf8');
    const part = (name) => h.match(new RegExp(`#define NODE_${name}_VERSION (\\d+)`))?.[1];
    return `v${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}` === process.version ? prefix : undefined;
  } catch {
    return undefined;
  }
}

const run = (cmd, args) => spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', env: process.env });
const log = [];

// A prebuilt binary when the network allows (a second), else a compile (a minute or two).
const prebuild = run(process.execPath, [require.resolve('prebuild-install/bin.js', { paths: [dir] })]);
log.push(prebuild.stdout, prebuild.stderr);
if (prebuild.status === 0 && loads()) done();

// npm hands its bundled node-gyp to every lifecycle script (npm_config_node_gyp); outside npm, use PATH's.
const nodeGyp = process.env.npm_config_node_gyp;
const configured = process.env.npm_config_nodedir || process.env.npm_package_config_node_gyp_nodedir;
const headers = configured ? undefined : localHeaders();
const gypArgs = ['rebuild', '--release', ...(headers ? [`--nodedir=${headers}`] : [])];
console.error(`Building better-sqlite3 (the SQLite driver of Node ${major}) from source${headers ? ` with the headers in ${headers}/include/node` : ''} ...`);
const gyp = nodeGyp ? run(process.execPath, [nodeGyp, ...gypArgs]) : run('node-gyp', gypArgs);
log.push(gyp.stdout, gyp.stderr, gyp.error?.message);
if (gyp.status === 0 && loads()) done();

console.error(log.filter(Boolean).join('\n').split('\n').slice(-40).join('\n'));
console.error(
  `\nCould not build better-sqlite3 for Node ${process.version}: it needs python3, make and a C++ compiler, and ` +
    "this Node's headers (at <prefix>/include/node, or downloadable). Install them and run `npm ci` again, or use Node 22 or newer.",
);
process.exit(1);
