import * as testing from '../../lib/testing/index.js';

describe('testing API (lib/testing/index.ts)', () => {
  it('defines every value it exports', () => {
    const missing = Object.entries(testing).filter(([, value]) => value === undefined).map(([name]) => name);
    expect(missing).toEqual([]);
    for (const name of ['MemoryStore', 'MemoryClock', 'MemoryNotify', 'QueueTesting']) {
      expect(typeof (testing as Record<string, unknown>)[name]).toBe('function');
    }
  });
});
