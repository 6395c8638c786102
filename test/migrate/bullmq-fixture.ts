import * as bullmq6 from 'bullmq';
import * as bullmq5 from 'bullmq5';

/** The two majors the importer reads; legacy repeatable jobs exist in 5 only (6 removed them). */
export const BULLMQ = [
  { label: 'BullMQ 6', lib: bullmq6 as unknown as typeof bullmq5, legacy: false },
  { label: 'BullMQ 5', lib: bullmq5, legacy: true },
] as const;

export type BullLib = typeof bullmq5;

const DAY = 24 * 3600_000;

export function connectionOf(url: string): { host: string; port: number; maxRetriesPerRequest: null } {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port), maxRetriesPerRequest: null };
}

/** What the fixture made in BullMQ, for the checks. */
export interface Made {
  readonly autoId: string;
  readonly dueAt: number;
  readonly deadId: string;
  readonly parentId: string;
  readonly childIds: readonly string[];
  readonly activeId: string;
  /** The nightly scheduler's endDate (ms). */
  readonly endDate: number;
}

/**
 * Jobs in every state, made by BullMQ itself under `prefix`: queue `orders`
 * (waiting with a custom and an auto id, prioritized, lifo, delayed next
 * month, a dead letter with a stack after 2 attempts, an active job, a job
 * scheduler every hour and a cron one in a time zone, on 5 a legacy
 * repeatable job, a flow parent whose children are in `emails`), and
 * `held`, a paused queue with two jobs (one with a log line and options
 * Spool does not carry).
 */
export async function makeBullJobs(lib: BullLib, url: string, prefix: string, legacy: boolean): Promise<{ made: Made; close: () => Promise<void> }> {
  const connection = connectionOf(url);
  const orders = new lib.Queue('orders', { connection, prefix });
  const held = new lib.Queue('held', { connection, prefix });
  const flows = new lib.FlowProducer({ connection, prefix });

  // The dead letter first: a worker fails it twice and takes the active one, then stops.
  const dead = await orders.add('refund', { order: 2 }, { attempts: 2, jobId: 'refund-2' });
  const active = await orders.add('slow', { order: 9 }, { jobId: 'slow-9' });
  let release!: () => void;
  const holding = new Promise<void>((resolve) => (release = resolve));
  let startedSlow!: () => void;
  const slowStarted = new Promise<void>((resolve) => (startedSlow = resolve));
  const worker = new lib.Worker(
    'orders',
    async (job) => {
      if (job.name === 'refund') throw new TypeError('card declined');
      startedSlow();
      await holding;
    },
    { connection, prefix, concurrency: 2 },
  );
  const failedTwice = new Promise<void>((resolve) => worker.on('failed', (job) => job?.attemptsMade === 2 && resolve()));
  await Promise.all([failedTwice, slowStarted]);
  // Closing without waiting leaves 'slow' active in BullMQ, as a live worker would hold it.
  await worker.close(true);

  await orders.add('charge', { order: 1 }, { jobId: 'order-1', attempts: 3, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: 100 });
  const auto = await orders.add('charge', { order: 3 });
  await orders.add('charge', { order: 4 }, { jobId: 'order-4', priority: 5 });
  await orders.add('charge', { order: 5 }, { jobId: 'order-5', lifo: true });
  const due = await orders.add('remind', { order: 6 }, { jobId: 'remind-6', delay: 30 * DAY });
  await orders.upsertJobScheduler('hourly', { every: 3600_000 }, { name: 'sweep', data: { deep: false }, opts: { attempts: 4, priority: 2 } });
  const endDate = Date.now() + 60 * DAY;
  await orders.upsertJobScheduler('nightly', { pattern: '0 3 * * *', tz: 'Europe/Paris', limit: 40, endDate }, { name: 'report', data: { kind: 'daily' } });
  if (legacy) await orders.add('legacy', { l: 1 }, { repeat: { every: 7200_000, limit: 5 } } as Parameters<typeof orders.add>[2]);
  const tree = await flows.add({
    name: 'bundle',
    queueName: 'orders',
    data: { bundle: 7 },
    opts: { jobId: 'bundle-7' },
    children: [
      { name: 'mail', queueName: 'emails', data: { to: 'a' }, opts: { jobId: 'mail-a', failParentOnFailure: true } },
      { name: 'mail', queueName: 'emails', data: { to: 'b' }, opts: { jobId: 'mail-b', ignoreDependencyOnFailure: true } },
    ],
  });
  await held.add('later', { x: 1 }, { jobId: 'later-1' });
  // Options and history Spool has no place for: listed with the job, never dropped silently.
  const noted = await held.add('later', { x: 2 }, { jobId: 'later-2', keepLogs: 10, sizeLimit: 4096 });
  await noted.log('queued by the old code');
  await held.pause();
  return {
    made: {
      autoId: auto.id!,
      dueAt: due.timestamp + 30 * DAY,
      deadId: dead.id!,
      parentId: tree.job.id!,
      childIds: (tree.children ?? []).map((c) => c.job.id!),
      activeId: active.id!,
      endDate,
    },
    close: async () => {
      release();
      await Promise.all([orders.close(), held.close(), flows.close()]);
    },
  };
}
