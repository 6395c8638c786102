import { addArgs, packAddOptions } from '../../lib/store/script-args.js';
import { DEFAULT_SPECS, type NewJob } from '../../lib/store/store.js';

function job(id: string, over: Partial<NewJob> = {}): NewJob {
  return {
    id, name: 'x', data: '{}', opts: '{}', delay: 0, priority: 0, lifo: false, maxAttempts: 1, deadline: 0,
    removeOnComplete: '0,-1', removeOnFail: '500,-1', ...over,
  };
}

describe('add script arguments', () => {
  it('packs each job of a call with its own options, though jobs with the same retention share one string', () => {
    const jobs = [
      job('a'),
      job('b'),
      job('c', { removeOnComplete: '10,-1' }),
      job('d', { delay: 500 }),
      job('e'),
      job('f', { maxAttempts: 3 }),
      job('g', { removeOnComplete: DEFAULT_SPECS.completed, removeOnFail: DEFAULT_SPECS.failed }),
      job('h', { group: 'tenant', traceContext: '{"traceparent":"00-1-2-01"}' }),
      job('i', { dedup: { key: 'k', ttl: 0 } }),
      job('j'),
    ];
    const args = addArgs(jobs);
    expect(args[0]).toBe(jobs.length);
    jobs.forEach((j, i) => {
      expect(args.slice(1 + i * 5, 6 + i * 5)).toEqual([j.id, j.name, j.data, j.opts, packAddOptions(j)]);
    });
    expect(args[10]).toBe(args[5]);
    expect(args[35]).toBe('');
    expect(JSON.parse(String(args[30]))).toEqual({ a: '3', rc: '0,-1', rf: '500,-1' });
  });
});
