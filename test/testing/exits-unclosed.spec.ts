import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Issue 37: a failing assertion before app.close() left Jest hanging. This
 * runs a throwaway spec (fixtures/unclosed-app.probe.ts) in its own Jest,
 * configured as a user's would be (in band, no forceExit), and asserts that
 * Jest reports the failure and exits by itself within a bound.
 */
const root = path.resolve(import.meta.dirname, '../..');
const BOUND_MS = 20_000;

describe('test mode holds nothing open', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'spool-unclosed-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a Jest run whose spec fails before close() exits by itself', async () => {
    const config = path.join(dir, 'jest.config.mjs');
    writeFileSync(
      config,
      `export default ${JSON.stringify({
        rootDir: root,
        testEnvironment: 'node',
        extensionsToTreatAsEsm: ['.ts'],
        moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
        transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
        testMatch: ['<rootDir>/test/testing/fixtures/unclosed-app.probe.ts'],
      })};\n`,
    );
    const env = { ...process.env, NODE_OPTIONS: '--experimental-vm-modules --no-warnings' };
    const child = spawn(process.execPath, [path.join(root, 'node_modules/jest/bin/jest.js'), '-c', config, '--runInBand', '--ci'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    const started = Date.now();
    const exit = await new Promise<{ code: number | null; killed: boolean }>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), BOUND_MS);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, killed: signal !== null });
      });
    });
    const took = Date.now() - started;
    // The probe ran and failed where it meant to (not on a compile error) ...
    expect(output).toMatch(/Tests:\s+2 failed, 2 total/);
    expect(output).toContain('the deliberate failure');
    // ... and Jest exited on its own, not by our kill at the bound.
    expect({ killed: exit.killed, code: exit.code, under: took < BOUND_MS }).toEqual({ killed: false, code: 1, under: true });
    expect(output).not.toMatch(/did not exit one second after/);
  }, BOUND_MS + 10_000);
});
