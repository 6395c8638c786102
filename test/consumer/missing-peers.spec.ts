import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisUrl, uniquePrefix } from '../helpers/store.js';
import { installBuilt } from './support/built-install.js';
import { ROOT, childEnv, run } from './support/consumer.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'peers');

/** The last line a fixture printed, as JSON. */
function lastJson(out: string): Record<string, unknown> {
  return JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>;
}

/**
 * The built package in throwaway apps that lack some peers (optional in
 * package.json, so npm leaves them out): the quick counterpart of
 * install.spec.ts, which packs and installs from the registry.
 */
describe('an app without some of the optional peers', () => {
  const dirs: string[] = [];
  const app = (without: readonly string[], fixture: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'spool-peers-'));
    dirs.push(dir);
    installBuilt(dir, without);
    cpSync(join(FIXTURES, fixture), join(dir, fixture));
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("without Nest: require('spool') and import 'spool' fail with one sentence naming the peers, the install command and spool/engine", () => {
    const dir = app(['@nestjs', 'reflect-metadata', 'rxjs', 'class-validator', 'class-transformer'], 'no-nest.cjs');
    const message =
      "spool needs the Nest peers @nestjs/common, @nestjs/core, reflect-metadata, rxjs, not installed: npm install @nestjs/common @nestjs/core reflect-metadata rxjs (an app without Nest imports 'spool/engine', which needs none of them)";
    expect(lastJson(run(process.execPath, ['no-nest.cjs'], dir, childEnv(), 60_000))).toEqual({
      required: { name: 'PeerMissingError', message, packages: ['@nestjs/common', '@nestjs/core', 'reflect-metadata', 'rxjs'] },
      engine: 'function',
    });
    cpSync(join(FIXTURES, 'no-nest.mjs'), join(dir, 'no-nest.mjs'));
    const imported = spawnSync(process.execPath, ['no-nest.mjs'], { cwd: dir, env: childEnv(), encoding: 'utf8', timeout: 60_000 });
    expect(imported.status).toBe(1);
    expect(imported.stdout).toBe('');
    expect(imported.stderr).toContain(`PeerMissingError: ${message}`);
    expect(imported.stderr).not.toContain('Cannot find module');
  });

  it('without one Nest peer: the error names that one', () => {
    const dir = app(['rxjs', 'class-validator', 'class-transformer'], 'no-nest.cjs');
    const report = lastJson(run(process.execPath, ['no-nest.cjs'], dir, childEnv(), 60_000));
    expect(report.required).toEqual({
      name: 'PeerMissingError',
      message: "spool needs the Nest peer rxjs, not installed: npm install rxjs (an app without Nest imports 'spool/engine', which needs none of them)",
      packages: ['rxjs'],
    });
  });

  it('without class-validator and class-transformer: a Nest app with no DTO runs jobs; one that declares a DTO fails at bootstrap naming them', () => {
    const dir = app(['class-validator', 'class-transformer'], 'no-dto-peers.mjs');
    const config = { url: redisUrl(), prefix: uniquePrefix('peers'), queue: 'greetings' };
    const report = lastJson(run(process.execPath, ['no-dto-peers.mjs', JSON.stringify(config)], dir, childEnv(), 60_000));
    const needs = 'declares a payload DTO, which needs the optional peers class-validator and class-transformer, not installed: npm install class-validator class-transformer (or leave the DTO out)';
    expect(report).toEqual({
      result: 'hello ada',
      registered: `SpoolBootstrapError: QueueModule.registerQueue() argument 1 ("greetings").jobs ${needs}`,
      onJob: `SpoolBootstrapError: GreetProcessor.greet ${needs}`,
    });
  });
});
