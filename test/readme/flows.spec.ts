import { FlowProducer, Queue, Worker } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';

/** docs/guide/flows.md "Flows" example, as written there (store from the harness). */
describe('README flow example', () => {
  const h = engineHarness();

  it('sums the rows its children fetched', async () => {
    const store = h.store;
    h.queue('reports');
    h.queue('fetch');
    const flows = new FlowProducer({ store, queues: [new Queue('reports', { store }), new Queue('fetch', { store })] });
    const fetcher = new Worker('fetch', async (job) => ({ rows: String(job.data).length }), { store });
    const reporter = new Worker('reports', async (job) => {
      const parts = await job.getChildrenResults<{ rows: number }>();
      return Object.values(parts).reduce((sum, part) => sum + part.rows, 0);
    }, { store });

    const { job } = await flows.add({
      name: 'monthly',
      queueName: 'reports',
      children: [
        { name: 'sales', queueName: 'fetch', data: 'sales' },
        { name: 'refunds', queueName: 'fetch', data: 'refunds', failurePolicy: 'ignoreDependencyOnFailure' },
      ],
    });
    expect(await job.waitUntilFinished({ timeout: 30_000 })).toBe(12);
    await Promise.all([fetcher.close(), reporter.close()]);
  });
});
