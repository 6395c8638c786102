import type { ActiveJob } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';

interface Order {
  readonly tenant: string;
  readonly id: number;
  readonly amount: number;
}

/**
 * docs/guide/step-jobs.md "Side effects exactly once per key" snippet: two jobs with the
 * same idempotencyKey (a re-submitted order) capture the payment once, and
 * the second gets the first one's receipt.
 */
describe('README idempotency example', () => {
  const h = engineHarness();

  it('runs the effect once per idempotencyKey and hands the recorded result to the next job', async () => {
    const captured: Order[] = [];
    const payments = {
      capture: async (order: Order) => {
        captured.push(order);
        return { receipt: `r-${captured.length}` };
      },
    };
    const queue = h.queue<Order, { receipt: string }>('orders');
    h.worker<Order, { receipt: string }>('orders', async (job: ActiveJob<Order>) => {
      // in the handler:
      const receipt = await job.once('capture', () => payments.capture(job.data));
      return receipt;
    });

    const order: Order = { tenant: 't1', id: 987, amount: 42 };
    const first = await queue.add('charge', order, { idempotencyKey: `charge:${order.tenant}:${order.id}` });
    expect(await first.waitUntilFinished({ timeout: 10_000 })).toEqual({ receipt: 'r-1' });
    const again = await queue.add('charge', order, { idempotencyKey: `charge:${order.tenant}:${order.id}` });
    expect(again.id).not.toBe(first.id);
    expect(await again.waitUntilFinished({ timeout: 10_000 })).toEqual({ receipt: 'r-1' });
    expect(captured).toEqual([order]);

    // Another key is another side effect.
    const other = await queue.add('charge', { ...order, id: 988 }, { idempotencyKey: `charge:${order.tenant}:988` });
    expect(await other.waitUntilFinished({ timeout: 10_000 })).toEqual({ receipt: 'r-2' });
  });

  it('step jobs: a retry starts at the step the failed attempt recorded', async () => {
    const calls: string[] = [];
    const importer = {
      fetch: async (url: string) => void calls.push(`fetch ${url}`),
      load: async (url: string) => {
        calls.push(`load ${url}`);
        if (calls.filter((c) => c.startsWith('load')).length === 1) throw new Error('database busy');
        return 'loaded';
      },
    };
    const queue = h.queue<{ step: 'fetch' | 'load'; url: string }, string>('imports');
    h.worker<{ step: 'fetch' | 'load'; url: string }, string>('imports', async (job) => {
      // in the handler of a job added with { attempts: 5 }: a step done is not done again
      if (job.data.step === 'fetch') {
        await importer.fetch(job.data.url);
        await job.updateData({ ...job.data, step: 'load' });
      }
      return importer.load(job.data.url); // a retry after a failure here starts at 'load'
    });
    const job = await queue.add('import', { step: 'fetch', url: 'https://example.com/a.csv' }, { attempts: 5, backoff: 10 });
    expect(await job.waitUntilFinished({ timeout: 10_000 })).toBe('loaded');
    expect(calls).toEqual(['fetch https://example.com/a.csv', 'load https://example.com/a.csv', 'load https://example.com/a.csv']);
    expect(await queue.getJob(job.id)).toMatchObject({ attempt: 2, data: { step: 'load', url: 'https://example.com/a.csv' } });
  });
});
