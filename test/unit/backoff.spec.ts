import {
  backoffDelay,
  decideRetry,
  DeadlineExceededError,
  JobTimeoutError,
  NoHandlerError,
  UnrecoverableError,
} from '../../lib/index.js';

describe('backoffDelay', () => {
  it('fixed waits the same every time', () => {
    expect([1, 2, 5].map((a) => backoffDelay({ type: 'fixed', delay: 300 }, a))).toEqual([300, 300, 300]);
  });

  it('exponential doubles from the first delay and stops at maxDelay', () => {
    const policy = { type: 'exponential', delay: 100, maxDelay: 1000 } as const;
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(policy, a))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('full jitter draws from [0, wait]; partial jitter keeps the floor', () => {
    const full = { type: 'exponential', delay: 100, jitter: 1 } as const;
    expect(backoffDelay(full, 3, () => 0)).toBe(400);
    expect(backoffDelay(full, 3, () => 0.999999)).toBe(0);
    expect(backoffDelay(full, 3, () => 0.5)).toBe(200);
    const half = { type: 'fixed', delay: 1000, jitter: 0.5 } as const;
    for (const r of [0, 0.3, 0.99]) {
      const d = backoffDelay(half, 1, () => r);
      expect(d).toBeGreaterThanOrEqual(500);
      expect(d).toBeLessThanOrEqual(1000);
    }
  });

  it('jitter is applied after the cap, so waits never exceed maxDelay', () => {
    const policy = { type: 'exponential', delay: 1000, maxDelay: 1500, jitter: 1 } as const;
    for (let i = 0; i < 100; i++) expect(backoffDelay(policy, 10)).toBeLessThanOrEqual(1500);
  });
});

describe('decideRetry', () => {
  const base = { attempt: 1, maxAttempts: 3, jobName: 'x' };

  it('retries ordinary errors while attempts remain, spaced by the backoff', () => {
    expect(decideRetry({ ...base, error: new Error('boom'), backoff: { type: 'fixed', delay: 50 } })).toEqual({ delay: 50, reason: 'error' });
    expect(decideRetry({ ...base, error: new Error('boom') })).toEqual({ delay: 0, reason: 'error' });
  });

  it('dead-letters when the last attempt failed', () => {
    expect(decideRetry({ ...base, attempt: 3, error: new Error('boom') })).toEqual({ delay: -1, reason: 'error' });
  });

  it('dead-letters terminal errors at once with their reason', () => {
    expect(decideRetry({ ...base, error: new UnrecoverableError('no') })).toEqual({ delay: -1, reason: 'unrecoverable' });
    expect(decideRetry({ ...base, error: new DeadlineExceededError('late') })).toEqual({ delay: -1, reason: 'deadline' });
    expect(decideRetry({ ...base, error: new NoHandlerError('x', 'q') })).toEqual({ delay: -1, reason: 'no-handler' });
  });

  it('retries a timeout and records it as the reason', () => {
    expect(decideRetry({ ...base, error: new JobTimeoutError(10) })).toEqual({ delay: 0, reason: 'timeout' });
    expect(decideRetry({ ...base, attempt: 3, error: new JobTimeoutError(10) })).toEqual({ delay: -1, reason: 'timeout' });
  });

  it('asks the worker strategy for custom backoff; undefined or negative stops retrying', () => {
    const strategy = (attempt: number, error: Error) => (error.message === 'stop' ? undefined : attempt * 7);
    expect(decideRetry({ ...base, attempt: 2, error: new Error('x'), backoff: { type: 'custom' }, strategy })).toEqual({ delay: 14, reason: 'error' });
    expect(decideRetry({ ...base, error: new Error('stop'), backoff: { type: 'custom' }, strategy })).toEqual({ delay: -1, reason: 'error' });
  });
});
