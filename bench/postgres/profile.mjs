// Where Spool's time goes on PostgreSQL: process c<N> over <jobs> pre-filled jobs on a private server with
// track_functions = all, then the SQL functions by self time (pg_stat_user_functions) and the statements by
// total time (pg_stat_statements when the server has it). Runs compiled from dist-bench/ (npm run bench:postgres builds it).
//   node bench/postgres/profile.mjs [--jobs=5000] [--c=100] [--fsync]
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { PostgresServer } from '../../test/helpers/postgres-server.mjs';
import { Queue, Worker } from '../../dist-bench/lib/index.js';
import { PostgresStore } from '../../dist-bench/lib/postgres/index.js';

const arg = (name, d) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? d);
const jobs = arg('jobs', 5000);
const c = arg('c', 100);
const durable = process.argv.includes('--fsync');
const server = await PostgresServer.start({ durable, settings: { track_functions: 'all', shared_buffers: '128MB' } });
try {
  const url = await server.createDatabase('prof');
  const store = new PostgresStore({ connectionString: url, migrate: true });
  await store.connect();
  const queue = new Queue('p', { store });
  const fill = async () => {
    for (let i = 0; i < jobs; i += 1000) await queue.addBulk(Array.from({ length: Math.min(1000, jobs - i) }, (_, k) => ({ name: 'noop', data: { i: i + k } })));
  };
  const run = () =>
    new Promise((resolve) => {
      let n = 0;
      const t0 = performance.now();
      const worker = new Worker('p', async () => undefined, { store, concurrency: c });
      worker.on('completed', () => {
        if (++n === jobs) {
          const ms = performance.now() - t0;
          void worker.close().then(() => resolve(ms));
        }
      });
    });
  await fill();
  await run(); // warm-up
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('SELECT pg_stat_reset()');
  await fill();
  const ms = await run();
  console.log(`process c${c}: ${jobs} jobs in ${ms.toFixed(0)} ms = ${Math.round((jobs / ms) * 1000)} jobs/s (fsync ${durable ? 'on' : 'off'})`);
  await store.disconnect();
  await new Promise((r) => setTimeout(r, 1500));
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query(
    `SELECT funcname, calls, round(self_time::numeric, 1) AS self_ms, round(total_time::numeric, 1) AS total_ms, round((self_time / $1)::numeric * 1000, 1) AS self_us_per_job
       FROM pg_stat_user_functions ORDER BY self_time DESC LIMIT 25`,
    [jobs],
  );
  console.table(rows);
  const t = await admin.query(`SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del, seq_scan, idx_scan FROM pg_stat_user_tables ORDER BY n_tup_upd + n_tup_ins DESC`);
  console.table(t.rows);
  await admin.end();
} finally {
  await server.dispose();
}
