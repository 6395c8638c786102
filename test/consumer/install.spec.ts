import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { redisUrl } from '../helpers/store.js';
import { childEnv, installApp, newWorkDir, packFreshCopy, pruneCache, run, tarballFiles } from './support/consumer.js';

/**
 * Spool as a user gets it: `npm pack` of a fresh copy of the repository,
 * installed into throwaway apps (test/consumer/apps) under a temp dir that
 * run against the harness's private Redis. Each app's own dependencies come
 * from the npm registry once, then from node_modules/.cache/spool-consumer.
 */
const APPS = ['nest11-cjs', 'nest12-esm', 'engine-only'];
const work = newWorkDir();
let tarball = '';
const timings: string[] = [];

function timed<T>(label: string, step: () => T): T {
  const start = Date.now();
  const value = step();
  timings.push(`${label} ${((Date.now() - start) / 1000).toFixed(1)} s`);
  return value;
}

function appEnv(): NodeJS.ProcessEnv {
  return childEnv({ REDIS_URL: redisUrl(), SPOOL_CONSUMER_QUEUE: `consumer-${randomUUID().slice(0, 8)}` });
}

beforeAll(() => {
  pruneCache(APPS);
  tarball = timed('pack', () => packFreshCopy(work));
}, 300_000);

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  process.stdout.write(`consumer tests: ${timings.join(', ')}\n`);
});

describe('the packed tarball', () => {
  it('ships the build, the sources its source maps name, and nothing of the repository besides', () => {
    const files = tarballFiles(tarball);
    for (const entry of ['dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json', 'dist/esm/index.mjs', 'dist/esm/engine.mjs', 'dist/esm/store.d.mts', 'dist/esm/testing.mjs', 'dist/cjs/testing/index.js', 'package.json', 'README.md']) {
      expect(files).toContain(entry);
    }
    expect(files.filter((f) => /^(test|bench|sample|\.ci|lua|node_modules)\//.test(f))).toEqual([]);
    const maps = files.filter((f) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(40);
    const unpacked = join(work, 'unpacked');
    run('mkdir', ['-p', unpacked], work);
    run('tar', ['-xzf', tarball, '-C', unpacked], work);
    const missing = maps.flatMap((map) => {
      const { sources } = JSON.parse(readFileSync(join(unpacked, 'package', map), 'utf8')) as { sources: string[] };
      return sources.map((s) => join(map, '..', s)).filter((source) => !files.includes(source));
    });
    expect(missing).toEqual([]);
    const lib = readFileSync(join(unpacked, 'package', 'dist', 'cjs', 'store', 'script-loader.js'), 'utf8');
    expect(lib).not.toMatch(/import\.meta/);
  });
});

describe('installed into a fresh app', () => {
  it('(a) a CommonJS Nest 11 app runs a QueueModule + @Processor spec and the README testing examples (spool/testing) under Nest\'s default jest (ts-jest)', () => {
    const { dir, cached } = timed('nest11-cjs install', () => installApp('nest11-cjs', work, tarball));
    timings.push(`(nest11-cjs ${cached ? 'warm' : 'cold'})`);
    timed('nest11-cjs tsc', () => run(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', '.'], dir));
    const out = timed('nest11-cjs jest', () => run(process.execPath, ['node_modules/jest/bin/jest.js', '--ci', '--json'], dir, appEnv()));
    const report = JSON.parse(out.slice(out.indexOf('{'))) as { success: boolean; numPassedTests: number; numTotalTests: number };
    expect(report).toMatchObject({ success: true, numPassedTests: 3, numTotalTests: 3 });
  }, 600_000);

  it('(b) an ES module Nest 12 app compiles with tsc and processes a job', () => {
    const { dir, cached } = timed('nest12-esm install', () => installApp('nest12-esm', work, tarball));
    timings.push(`(nest12-esm ${cached ? 'warm' : 'cold'})`);
    timed('nest12-esm tsc', () => run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], dir));
    const out = timed('nest12-esm run', () => run(process.execPath, ['dist/main.js'], dir, appEnv(), 60_000));
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({
      result: 'hello ada from esm',
      instanceOfQueue: true,
      sameAsRequire: true,
      sameAsEngine: true,
    });
  }, 600_000);

  it('(c) plain Node scripts use spool/engine from ESM and CommonJS with no Nest package installed; spool itself says what is missing', () => {
    const { dir } = timed('engine-only install', () => installApp('engine-only', work, tarball));
    expect(existsSync(join(dir, 'node_modules', 'spool', 'package.json'))).toBe(true);
    expect(existsSync(join(dir, 'node_modules', '@nestjs'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', 'class-validator'))).toBe(false);
    const env = appEnv();
    expect(JSON.parse(run(process.execPath, ['main.mjs'], dir, env, 60_000).trim())).toEqual({ result: 'hello ada from esm' });
    expect(JSON.parse(run(process.execPath, ['main.cjs'], dir, env, 60_000).trim())).toEqual({ result: 'hello ada from commonjs' });
    // The main entry without Nest: one sentence naming the peers and spool/engine, not Node's "Cannot find module".
    const main = JSON.parse(run(process.execPath, ['-e', "try { require('spool') } catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message })) }"], dir, env, 60_000).trim()) as { name: string; message: string };
    expect(main.name).toBe('PeerMissingError');
    expect(main.message).toMatch(/^spool needs the Nest peers @nestjs\/common, @nestjs\/core, reflect-metadata, rxjs, not installed: npm install .*'spool\/engine'/);
  }, 600_000);
});
