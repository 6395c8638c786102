import pg from 'pg';
import { Queue, Worker } from '../../lib/index.js';
import { testPostgresStore, usePostgresServer } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Claims lock their candidates FOR UPDATE SKIP LOCKED, so a waiting job that
 * another transaction holds is passed over. The claim must not then leave the
 * worker idle (no wake-up comes for a job that was already announced): it
 * claims again shortly. The workers here poll once a minute, so only that
 * retry can start the job within the bounds below.
 */
describe('PostgresStore claims and row locks', () => {
  const server = usePostgresServer();

  it('a claim that skipped a locked waiting job claims again once the lock is gone, without a wake-up or a poll', async () => {
    const store = await testPostgresStore(server());
    const locker = new pg.Client({ connectionString: server().url() });
    await locker.connect();
    const ran: string[] = [];
    let worker: Worker | undefined;
    try {
      const queue = new Queue('locked', { store });
      const job = await queue.add('held', {});
      // Another transaction holds the waiting row (as a sibling's result write or a producer's change would).
      await locker.query('BEGIN');
      const held = await locker.query(`SELECT id FROM ${store.schema}.jobs WHERE queue = 'locked' AND id = $1 FOR UPDATE`, [job.id]);
      expect(held.rowCount).toBe(1);
      worker = new Worker('locked', async (j) => void ran.push(j.id), { store, pollInterval: 60_000 });
      await worker.run();
      // The worker's claims pass over the row while it is held...
      await waitFor(async () => (await store.getCounts('locked')).waiting === 1 && worker!.isRunning, { message: 'the worker started' });
      expect(ran).toEqual([]);
      await locker.query('COMMIT');
      // ...and take it once it is free: well before the minute's poll.
      await waitFor(() => ran.length === 1, { timeout: 3000, message: 'the job to run after the lock was released' });
      expect(ran).toEqual([job.id]);
    } finally {
      await worker?.close();
      await locker.end();
      await store.disconnect();
    }
  });
});
