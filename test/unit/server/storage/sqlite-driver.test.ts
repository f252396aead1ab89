import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../../../src/server/storage/db.js';
import { loadSqliteDriver, sqliteDriverFor } from '../../../../src/server/storage/sqlite-driver.js';

const require = createRequire(import.meta.url);
const ROOT = new URL('../../../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'voxctl-driver-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The directory of an installed driver package, or undefined when npm skipped it on this Node. */
function packageDir(name: string): string | undefined {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    return undefined;
  }
}

describe('sqliteDriverFor', () => {
  it('keeps Node 20 on better-sqlite3 12, whose Node-API successor segfaults there', () => {
    expect(sqliteDriverFor('20.19.0')).toBe('better-sqlite3');
    expect(sqliteDriverFor('v20.20.2')).toBe('better-sqlite3');
  });

  it('moves Node 22 and later to the Node-API build, since 12 aborts Node >= 24.19', () => {
    expect(sqliteDriverFor('22.13.0')).toBe('better-sqlite3-napi');
    expect(sqliteDriverFor('24.19.0')).toBe('better-sqlite3-napi');
    expect(sqliteDriverFor('v26.0.0')).toBe('better-sqlite3-napi');
  });

  it('rejects a string that is not a Node version', () => {
    expect(() => sqliteDriverFor('lts')).toThrow('Not a Node version: "lts"');
  });
});

describe('loadSqliteDriver on this Node', () => {
  const chosen = sqliteDriverFor(process.versions.node);
  const other = chosen === 'better-sqlite3' ? 'better-sqlite3-napi' : 'better-sqlite3';

  it('loads the chosen package: major 12 on Node 20, 13 on Node 22 and later', () => {
    expect(loadSqliteDriver()).toBe(require(chosen));
    const { version } = JSON.parse(readFileSync(join(packageDir(chosen)!, 'package.json'), 'utf8')) as { version: string };
    expect(Number.parseInt(version, 10)).toBe(chosen === 'better-sqlite3' ? 12 : 13);
  });

  it('says how to install the driver when npm dropped it', () => {
    const missing = (name: string) => {
      throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
    };
    expect(() => loadSqliteDriver(missing)).toThrow(
      `The SQLite driver for Node ${process.versions.node} (${chosen}) is not installed. Run \`npm ci\` with this Node version;`,
    );
  });

  it('never loads the other build, even after the service opened a database', async () => {
    await (await openSqliteDatabase(join(dir, 'seam.db'))).close();
    const otherDir = packageDir(other);
    const loaded = Object.keys(require.cache).filter((file) => otherDir !== undefined && file.startsWith(otherDir + '/'));
    expect(loaded).toEqual([]);
  });

  it('opens, writes, closes and reopens a database file', async () => {
    const file = join(dir, 'reopen.db');
    const db = await openSqliteDatabase(file);
    await db.exec('CREATE TABLE notes (body TEXT NOT NULL)');
    await db.run('INSERT INTO notes (body) VALUES (?)', ['kept across a reopen']);
    await db.close();
    const again = await openSqliteDatabase(file);
    expect(await again.all('SELECT body FROM notes')).toEqual([{ body: 'kept across a reopen' }]);
    expect(await again.value('PRAGMA journal_mode')).toBe('wal');
    await again.close();
  });
});

// The Node 24 abort came from a finaliser run by the garbage collector as the process tore down, after the
// test had passed: only a separate process that collects garbage and exits shows it (and any warning).
describe('a process that uses the built storage seam', () => {
  it('exits cleanly and silently after writing, closing, reopening and collecting garbage', () => {
    const dbUrl = new URL('dist/server/storage/db.js', `file://${ROOT}`);
    if (!existsSync(dbUrl)) execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
    const file = join(dir, 'child.db');
    const script = `
      const { openSqliteDatabase } = await import(${JSON.stringify(dbUrl.href)});
      let db = await openSqliteDatabase(${JSON.stringify(file)});
      await db.exec('CREATE TABLE t (n INTEGER)');
      for (let n = 0; n < 500; n++) await db.run('INSERT INTO t (n) VALUES (?)', [n]);
      await db.close();
      db = await openSqliteDatabase(${JSON.stringify(file)});
      for (let n = 0; n < 500; n++) await db.get('SELECT n FROM t WHERE n = ?', [n]);
      console.log(await db.value('SELECT count(*) AS c FROM t'));
      await db.close();
      globalThis.gc();`;
    const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    expect(child.stdout.trim()).toBe('500');
    expect(readdirSync(dir)).toContain('child.db');
  });
});

// Loading better-sqlite3 directly would bring back the build that aborts (Node 24) or segfaults (Node 20).
describe('the seam is the only place that loads a driver', () => {
  it('no file in src, test or bench imports or requires a driver package for its value', () => {
    const valueImport = /^\s*import\s+(?!type\b)[^;]*from\s+'better-sqlite3(-napi)?'|require\('better-sqlite3(-napi)?'\)/m;
    const offenders = ['src', 'test', 'bench'].flatMap((top) =>
      readdirSync(join(ROOT, top), { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.(ts|mjs|js)$/.test(file))
        .map((file) => join(top, file))
        .filter((file) => file !== join('src', 'server', 'storage', 'sqlite-driver.ts'))
        .filter((file) => valueImport.test(readFileSync(join(ROOT, file), 'utf8'))),
    );
    expect(offenders).toEqual([]);
  });
});
