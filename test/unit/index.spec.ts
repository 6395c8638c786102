import { readFileSync } from 'node:fs';

/** package.json "exports": each entry point with its TypeScript source under lib/ (from the require target). */
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, string | { require?: { default: string } }>;
};
const entries = Object.entries(pkg.exports).flatMap(([subpath, target]) =>
  typeof target === 'object' && target.require
    ? [[subpath, target.require.default.replace(/^\.\/dist\/cjs\//, '../../lib/')] as const]
    : [],
);

describe('public API (every entry point of package.json "exports")', () => {
  it('has the entry points docs/guide/installation.md documents', () => {
    expect(entries.map(([subpath]) => subpath)).toEqual(expect.arrayContaining(['.', './engine', './store']));
  });

  it.each(entries)('%s (%s) defines every value it exports', async (_subpath, source) => {
    const api = (await import(source)) as Record<string, unknown>;
    const missing = Object.entries(api).filter(([, value]) => value === undefined).map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it('spool exports the engine, the store, the errors and the Nest module by name', async () => {
    const spool = (await import('../../lib/index.js')) as Record<string, unknown>;
    for (const name of ['Queue', 'Worker', 'Job', 'ActiveJob', 'RedisStore', 'UnrecoverableError', 'LeaseLostError', 'InvalidArgumentError', 'QueueModule', 'Processor']) {
      expect(typeof spool[name]).toBe('function');
    }
  });

  it('spool/engine is the main entry without the Nest module', async () => {
    const spool = (await import('../../lib/index.js')) as Record<string, unknown>;
    const engine = (await import('../../lib/engine/index.js')) as Record<string, unknown>;
    for (const [name, value] of Object.entries(engine)) expect(spool[name]).toBe(value);
    expect(engine['Queue']).toBeDefined();
    expect(engine['QueueModule']).toBeUndefined();
    expect(engine['Processor']).toBeUndefined();
  });
});
