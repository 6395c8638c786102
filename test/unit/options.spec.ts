import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_RETENTION, InvalidArgumentError, MAX_PRIORITY, UnknownOptionError } from '../../lib/index.js';
import { normalizeJobOptions } from '../../lib/engine/options.js';
import { DEFAULT_SPECS } from '../../lib/store/store.js';

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof InvalidArgumentError) return err.field;
    throw err;
  }
  throw new Error('expected an InvalidArgumentError');
}

describe('normalizeJobOptions', () => {
  const now = 1_700_000_000_000;

  it('fills defaults', () => {
    expect(normalizeJobOptions(undefined, undefined, 'opts', now)).toEqual({
      delay: 0,
      priority: 0,
      lifo: false,
      attempts: 1,
      backoff: undefined,
      deadline: 0,
      timeout: undefined,
      dedup: undefined,
      // Bounded by default (DEFAULT_RETENTION): 1,000 completed for a day, 10,000 failed for 30 days.
      removeOnComplete: '1000,86400000',
      removeOnFail: '10000,2592000000',
    });
  });

  it('turns runAt into a delay and keeps Date deadlines as epoch ms', () => {
    const o = normalizeJobOptions({ runAt: new Date(now + 1500), deadline: new Date(now + 9000) }, undefined, 'opts', now);
    expect(o.delay).toBe(1500);
    expect(o.deadline).toBe(now + 9000);
  });

  it('lets a job replace the default timing as a whole', () => {
    expect(normalizeJobOptions({ runAt: now + 10 }, { delay: 5000 }, 'opts', now).delay).toBe(10);
    expect(normalizeJobOptions({ attempts: 2 }, { delay: 5000 }, 'opts', now).delay).toBe(5000);
  });

  it('names an unknown option and guesses the intended one', () => {
    const err = (() => {
      try {
        normalizeJobOptions({ atempts: 3 } as never, undefined);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UnknownOptionError);
    expect((err as UnknownOptionError).field).toBe('opts.atempts');
    expect((err as Error).message).toMatch(/did you mean "attempts"/);
  });

  it.each([
    [{ delay: -5 }, 'opts.delay'],
    [{ delay: '10' }, 'opts.delay'],
    [{ priority: -1 }, 'opts.priority'],
    [{ priority: MAX_PRIORITY + 1 }, 'opts.priority'],
    [{ priority: 1.5 }, 'opts.priority'],
    [{ attempts: 0 }, 'opts.attempts'],
    [{ timeout: 0 }, 'opts.timeout'],
    [{ backoff: { type: 'linear', delay: 1 } }, 'opts.backoff.type'],
    [{ backoff: { type: 'fixed', delay: -1 } }, 'opts.backoff.delay'],
    [{ backoff: { type: 'exponential', delay: 1, jitter: 2 } }, 'opts.backoff.jitter'],
    [{ backoff: () => 5 }, 'opts.backoff'],
    [{ dedup: { key: '' } }, 'opts.dedup.key'],
    [{ dedup: { key: 'k', ttl: 0 } }, 'opts.dedup.ttl'],
    [{ removeOnComplete: -1 }, 'opts.removeOnComplete'],
    [{ removeOnFail: { count: 1, ages: 3 } }, 'opts.removeOnFail.ages'],
    [{ jobId: '' }, 'opts.jobId'],
    [{ deadline: 'tomorrow' }, 'opts.deadline'],
    [{ delay: 1, runAt: 5 }, 'opts.runAt'],
    [{ lifo: 'yes' }, 'opts.lifo'],
  ])('refuses %p naming %s', (opts, field) => {
    expect(fieldOf(() => normalizeJobOptions(opts as never, undefined, 'opts', now))).toBe(field);
  });

  it('encodes retention as "count,ageMs"', () => {
    const cases: [unknown, string][] = [
      [true, '0,-1'],
      [false, '-1,-1'],
      [10, '10,-1'],
      [{ age: 60 }, '-1,60000'],
      [{ count: 5, age: 1 }, '5,1000'],
    ];
    for (const [value, spec] of cases) {
      expect(normalizeJobOptions({ removeOnComplete: value as never }, undefined).removeOnComplete).toBe(spec);
    }
  });

  it('keeps dedup without ttl as "until the job finishes" (ttl 0)', () => {
    expect(normalizeJobOptions({ dedup: { key: 'order-1' } }, undefined).dedup).toEqual({ key: 'order-1', ttl: 0 });
    expect(normalizeJobOptions({ dedup: { key: 'order-1', ttl: 1000 } }, undefined).dedup).toEqual({ key: 'order-1', ttl: 1000 });
  });
});

describe('RateLimitedError', () => {
  it('takes ms or a Date to wait until, and names the field and the fix for anything else', async () => {
    const { RateLimitedError, InvalidArgumentError } = await import('../../lib/index.js');
    expect(new RateLimitedError(1500).retryAfter).toBe(1500);
    const inTwoSeconds = new RateLimitedError(new Date(Date.now() + 2000)).retryAfter;
    expect(inTwoSeconds).toBeGreaterThan(1000);
    expect(inTwoSeconds).toBeLessThanOrEqual(2000);
    expect(new RateLimitedError(new Date(Date.now() - 5000)).retryAfter).toBe(0);
    expect(() => new RateLimitedError(new Date('not a date'))).toThrow(InvalidArgumentError);
    expect(() => new RateLimitedError(Number.NaN)).toThrow(/RateLimitedError retryAfter must be .*Retry-After/);
  });
});

describe('default retention specs', () => {
  // A compact job hash (lua/add.lua) stores no rc/rf when they are the default: three places must agree.
  it('DEFAULT_SPECS, DEFAULT_RETENTION and the Lua constants are the same specs', () => {
    const defaults = normalizeJobOptions(undefined, undefined);
    expect(DEFAULT_SPECS).toEqual({ completed: defaults.removeOnComplete, failed: defaults.removeOnFail });
    expect(DEFAULT_SPECS.completed).toBe(`${DEFAULT_RETENTION.completed.count},${DEFAULT_RETENTION.completed.age * 1000}`);
    expect(DEFAULT_SPECS.failed).toBe(`${DEFAULT_RETENTION.failed.count},${DEFAULT_RETENTION.failed.age * 1000}`);
    const lua = readFileSync(fileURLToPath(new URL('../../lua/includes/retention.lua', import.meta.url)), 'utf8');
    const match = /SPOOL_DEFAULT_SPECS = \{ rc = '([^']+)', rf = '([^']+)' \}/.exec(lua);
    expect(match?.slice(1)).toEqual([DEFAULT_SPECS.completed, DEFAULT_SPECS.failed]);
  });
});
