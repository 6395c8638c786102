import * as spool from '../../lib/index.js';

describe('public API (lib/index.ts)', () => {
  it('defines every value it exports', () => {
    const missing = Object.entries(spool).filter(([, value]) => value === undefined).map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it('exports the engine, the store and the errors by name', () => {
    for (const name of ['Queue', 'Worker', 'Job', 'ActiveJob', 'RedisStore', 'UnrecoverableError', 'LeaseLostError', 'InvalidArgumentError']) {
      expect(typeof (spool as Record<string, unknown>)[name]).toBe('function');
    }
  });
});
