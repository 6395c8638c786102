import { Queue, RedisStore, UnrecoverableError, Worker } from '../lib/index.js';
import { redisForDemo } from './local-redis.js';

/**
 * The engine without Nest: a queue, a worker, and jobs that succeed, retry,
 * wait, and get cancelled. Prints what happened to each and exits 0.
 */
async function main(): Promise<void> {
  const redis = await redisForDemo();
  const store = new RedisStore({ url: redis.url }, { prefix: `demo-${process.pid}` });
  await store.connect();
  const queue = new Queue<{ to: string }, string>('emails', { store });
  let flaky = 0;
  const worker = new Worker<{ to: string }, string>(
    'emails',
    async (job) => {
      if (job.name === 'flaky' && ++flaky < 3) throw new Error(`smtp timeout (attempt ${job.attempt})`);
      if (job.name === 'bounce') throw new UnrecoverableError(`mailbox ${job.data.to} does not exist`);
      return `sent to ${job.data.to}`;
    },
    { store, concurrency: 4 },
  );

  const jobs = [
    await queue.add('welcome', { to: 'ada@example.com' }),
    await queue.add('flaky', { to: 'bob@example.com' }, { attempts: 5, backoff: { type: 'exponential', delay: 50 } }),
    await queue.add('bounce', { to: 'nobody@example.com' }, { attempts: 5 }),
    await queue.add('reminder', { to: 'cy@example.com' }, { delay: 300 }),
    await queue.add('digest', { to: 'dee@example.com' }, { jobId: 'digest:dee', delay: 60_000 }),
  ];
  await queue.cancel('digest:dee');

  const deadline = Date.now() + 10_000;
  for (;;) {
    const counts = await queue.getCounts();
    if (counts.completed + counts.failed + counts.cancelled === jobs.length) break;
    if (Date.now() > deadline) throw new Error(`jobs did not finish: ${JSON.stringify(counts)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  for (const { id } of jobs) {
    const job = await queue.getJob(id);
    const outcome = job?.state === 'completed' ? String(job.result) : (job?.error?.message ?? '');
    process.stdout.write(`${job?.name.padEnd(9)} ${job?.state.padEnd(10)} attempts=${job?.attempt}  ${outcome}\n`);
  }
  const problems = await queue.verify();
  process.stdout.write(`verify: ${problems.length === 0 ? 'consistent' : problems.join('; ')}\n`);
  await worker.close();
  await store.disconnect();
  await redis.stop();
  if (problems.length) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
