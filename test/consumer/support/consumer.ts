import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const APPS = join(ROOT, 'test', 'consumer', 'apps');
/** Installed node_modules of each throwaway app, keyed by a hash of its package.json and the Node major. */
export const CACHE = join(ROOT, 'node_modules', '.cache', 'spool-consumer');

/** The environment of a child: no npm lifecycle variables (they are npm config to a nested npm), no jest flags. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'NODE_OPTIONS' && key !== 'JEST_WORKER_ID' && !key.startsWith('SPOOL_TEST')) env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs a command to the end; throws with its output when it fails. */
export function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = childEnv(), timeout = 300_000): string {
  const result: SpawnSyncReturns<string> = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout, maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    const why = result.error ? String(result.error) : `exit ${result.status ?? result.signal}`;
    throw new Error(`${command} ${args.join(' ')} in ${cwd}: ${why}\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

/**
 * `npm pack` of a fresh copy of the repository (the files git tracks or would
 * track: no dist/, no node_modules/, no generated lua-sources.ts), so the
 * tarball is what a clone gives: its `prepare` script has to build dist/.
 * The copy borrows the repository's node_modules for the build tools.
 */
export function packFreshCopy(work: string): string {
  const src = join(work, 'clone');
  const files = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], ROOT).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(ROOT, file))) continue; // deleted in the work tree, not yet committed
    mkdirSync(dirname(join(src, file)), { recursive: true });
    cpSync(join(ROOT, file), join(src, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules'), 'dir');
  const out = run('npm', ['pack', '--json', '--pack-destination', work], src);
  const [{ filename }] = JSON.parse(out.slice(out.indexOf('['))) as [{ filename: string }];
  return join(work, filename);
}

/** The file names in a tarball, without the leading `package/`. */
export function tarballFiles(tarball: string): string[] {
  return run('tar', ['-tzf', tarball], dirname(tarball))
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
}

/** Hard-links a directory tree (cp -al) where it can, copies it where it cannot. */
function linkTree(from: string, to: string): void {
  const linked = spawnSync('cp', ['-al', from, to]);
  if (linked.status !== 0) {
    rmSync(to, { recursive: true, force: true });
    cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  }
}

/**
 * Copies apps/<name> to `work`/<name> and installs its dependencies (from the
 * cache when its package.json was installed before), then the Spool tarball
 * the way a user installs it: `npm install <tarball>`.
 */
export function installApp(name: string, work: string, tarball: string): { dir: string; cached: boolean } {
  const dir = join(work, name);
  cpSync(join(APPS, name), dir, { recursive: true });
  const manifest = readFileSync(join(dir, 'package.json'), 'utf8');
  const key = createHash('sha256').update(manifest).update(process.versions.node.split('.')[0]!).digest('hex').slice(0, 16);
  const cached = join(CACHE, `${name}-${key}`);
  const hit = existsSync(join(cached, 'node_modules'));
  const npmFlags = ['--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];
  if (hit) {
    linkTree(join(cached, 'node_modules'), join(dir, 'node_modules'));
  } else {
    run('npm', ['install', ...npmFlags], dir);
    mkdirSync(CACHE, { recursive: true });
    const staging = mkdtempSync(join(CACHE, `.${name}-`));
    if (existsSync(join(dir, 'node_modules'))) linkTree(join(dir, 'node_modules'), join(staging, 'node_modules'));
    else mkdirSync(join(staging, 'node_modules'));
    rmSync(cached, { recursive: true, force: true });
    renameSync(staging, cached);
  }
  // npm's record of the tree would describe the cache, not this copy; npm reads the tree itself without it.
  rmSync(join(dir, 'node_modules', '.package-lock.json'), { force: true });
  run('npm', ['install', '--no-save', ...npmFlags, tarball], dir);
  return { dir, cached: hit };
}

/** Old cache entries of an app (package.json changed since) are removed, so the cache does not grow. */
export function pruneCache(keep: readonly string[]): void {
  if (!existsSync(CACHE)) return;
  for (const entry of readdirSync(CACHE)) {
    if (!keep.some((name) => entry.startsWith(`${name}-`)) || entry.startsWith('.')) continue;
    const live = keep.map((name) => {
      const manifest = readFileSync(join(APPS, name, 'package.json'), 'utf8');
      return `${name}-${createHash('sha256').update(manifest).update(process.versions.node.split('.')[0]!).digest('hex').slice(0, 16)}`;
    });
    if (!live.includes(entry)) rmSync(join(CACHE, entry), { recursive: true, force: true });
  }
}

export function newWorkDir(): string {
  return mkdtempSync(join(tmpdir(), 'spool-consumer-'));
}
