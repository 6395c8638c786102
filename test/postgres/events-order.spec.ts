import pg from 'pg';
import { Queue, QueueEvents, type QueueEvent } from '../../lib/index.js';
import { testPostgresStore, usePostgresServer } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Event rows draw their seq when written, and transactions commit in any
 * order: QueueEvents on PostgreSQL must never step past a seq whose writer is
 * still open (it would never see that event), yet deliver everything once the
 * writers have ended, committed or rolled back.
 */
describe('PostgresStore events: out-of-order commits', () => {
  const server = usePostgresServer();

  it('an event committed after a later one is still delivered, in seq order; a rolled-back writer holds nothing back for good', async () => {
    const store = await testPostgresStore(server());
    const client = new pg.Client({ connectionString: server().url() });
    await client.connect();
    const reader = new QueueEvents('ev', { store, blockMs: 100 });
    const got: QueueEvent[] = [];
    reader.on('added', (e) => got.push(e));
    try {
      await reader.ready();
      const queue = new Queue('ev', { store });
      // The open transaction draws the lower seq...
      await client.query('BEGIN');
      await queue.add('early', {}, { jobId: 'early', tx: client });
      // ...a later add commits first.
      await queue.add('late', {}, { jobId: 'late' });
      // While 'early' is open, 'late' is held back: delivering it would step past early's seq.
      const probe = await queue.add('probe', {}, { jobId: 'probe' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(got.map((e) => ('jobId' in e ? e.jobId : ''))).toEqual([]);
      await client.query('COMMIT');
      await waitFor(() => got.length === 3, { timeout: 3000, message: 'the three added events' });
      expect(got.map((e) => ('jobId' in e ? e.jobId : ''))).toEqual(['early', 'late', probe.id]);

      // A writer that rolls back leaves a hole in the seqs: the events after it go out once it has ended.
      await client.query('BEGIN');
      await queue.add('gone', {}, { jobId: 'gone', tx: client });
      await queue.add('after', {}, { jobId: 'after' });
      await client.query('ROLLBACK');
      await waitFor(() => got.length === 4, { timeout: 3000, message: 'the event after the rolled-back one' });
      expect(got.map((e) => ('jobId' in e ? e.jobId : '')).slice(3)).toEqual(['after']);
    } finally {
      await reader.close();
      await client.end();
      await store.disconnect();
    }
  });
});
