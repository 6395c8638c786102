import pg from 'pg';
import { Queue } from '../../lib/index.js';
import type { SchedMessage } from '../../lib/store/index.js';
import { testPostgresStore, usePostgresServer } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait-for.js';

/** PostgresNotify's own connection: it comes back after the server drops it, and says so (messages meanwhile are lost). */
describe('PostgresNotify', () => {
  const server = usePostgresServer();

  it('reconnects its LISTEN connection after the server terminates it, tells onReconnect, and hears again', async () => {
    const store = await testPostgresStore(server());
    const admin = new pg.Client({ connectionString: server().url() });
    await admin.connect();
    try {
      const heard: SchedMessage[] = [];
      let drops = 0;
      let reconnects = 0;
      store.notify.onDrop?.(() => void (drops += 1));
      store.notify.onReconnect(() => void (reconnects += 1));
      await store.notify.onScheduled((m) => heard.push(m));
      const killed = await admin.query(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'spool-notify'`);
      expect(killed.rows).toEqual([{ ok: true }]);
      await waitFor(() => reconnects === 1, { timeout: 10_000, message: 'the LISTEN connection to come back' });
      expect(drops).toBe(1);
      await new Queue('after', { store }).add('x', {});
      await waitFor(() => heard.some((m) => m.queue === 'after'), { message: 'the wake-up after the reconnect' });
    } finally {
      await admin.end();
      await store.disconnect();
    }
  });
});
