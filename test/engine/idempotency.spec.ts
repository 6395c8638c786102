import { InvalidArgumentError, Worker, type ActiveJob } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { storeKind } from '../helpers/store-kind.js';

/** job.once() and the idempotencyKey option (seed 004 §16); the crash case is in test/chaos/worker-crash.spec.ts. */
describe('idempotent side effects: job.once()', () => {
  const h = engineHarness();

  it('skips a recorded step when the job runs again, and gives back the recorded result', async () => {
    const queue = h.queue('once-retry');
    let effects = 0;
    const seen: unknown[] = [];
    h.worker('once-retry', async (job) => {
      seen.push(await job.once('charge', () => ({ receipt: `r${++effects}` })));
      if (job.attempt === 1) throw new Error('failed after the side effect');
      return 'ok';
    });
    const job = await queue.add('x', {}, { attempts: 2, idempotencyKey: 'charge:order-7' });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    expect(effects).toBe(1);
    expect(seen).toEqual([{ receipt: 'r1' }, { receipt: 'r1' }]);
  });

  it('keys steps by idempotencyKey across jobs, by job id without one, and per step name', async () => {
    const queue = h.queue('once-keys');
    const ran: string[] = [];
    h.worker('once-keys', async (job: ActiveJob<{ tag: string }>) => {
      await job.once('a', () => void ran.push(`${job.data.tag}:a`));
      await job.once('b', () => void ran.push(`${job.data.tag}:b`));
      return null;
    }, { concurrency: 1 });
    await queue.add('x', { tag: 'first' }, { idempotencyKey: 'same-op' });
    await queue.add('x', { tag: 'second' }, { idempotencyKey: 'same-op' });
    await queue.add('x', { tag: 'third' });
    await waitFor(async () => (await queue.getCounts()).completed === 3);
    expect(ran).toEqual(['first:a', 'first:b', 'third:a', 'third:b']);
  });

  it('forgets a step after its ttl, stores it under the queue hash tag, and returns undefined as undefined', async () => {
    const queue = h.queue('once-ttl');
    let effects = 0;
    const results: unknown[] = [];
    h.worker('once-ttl', async (job) => {
      results.push(await job.once('step', () => void effects++, { ttl: 300 }));
      return null;
    });
    await queue.add('x', {}, { idempotencyKey: 'op' });
    await waitFor(async () => (await queue.getCounts()).completed === 1);
    // On Redis the step is a key of the queue's hash tag that expires by itself; on either store, the step runs again once forgotten.
    if (storeKind() === 'redis') await expectRedisTtl();
    await waitFor(async () => (await h.store.getOnce('once-ttl', 'op:step')) === null, { timeout: 3000 });
    await queue.add('x', {}, { idempotencyKey: 'op' });
    await waitFor(async () => (await queue.getCounts()).completed === 2);
    expect(effects).toBe(2);
    expect(results).toEqual([undefined, undefined]);
  });

  async function expectRedisTtl(): Promise<void> {
    const key = keysOf(h.store, 'once-ttl').once('op:step');
    expect(key).toContain(`{${h.store.prefix}:once-ttl}`);
    const ttl = Number(await commandOf(h.store, 'test').sendCommand(['PTTL', key]));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
  }

  it('refuses a bad key, step or ttl with an error naming the field', async () => {
    const queue = h.queue('once-bad');
    await expect(queue.add('x', {}, { idempotencyKey: '' })).rejects.toThrow(InvalidArgumentError);
    await expect(queue.add('x', {}, { idempotencyKey: 'has space' })).rejects.toThrow(/opts\.idempotencyKey/);
    const errors: string[] = [];
    h.worker('once-bad', async (job) => {
      for (const call of [() => job.once('', () => 1), () => job.once('s', () => 1, { ttl: 0 })]) {
        await call().catch((err: Error) => errors.push(err.message));
      }
      return null;
    });
    await queue.add('x', {});
    await waitFor(async () => (await queue.getCounts()).completed === 1);
    expect(errors).toEqual([expect.stringMatching(/job\.once step/), expect.stringMatching(/job\.once options\.ttl/)]);
  });

  it('refuses a bad maxPayloadBytes worker option', () => {
    expect(() => new Worker('w', async () => null, { store: h.store, maxPayloadBytes: 0, autorun: false })).toThrow(/Worker options\.maxPayloadBytes/);
  });
});
