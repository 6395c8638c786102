import 'reflect-metadata';
import { Queue, QueueEvents, QueueModule, RedisStore, SpoolBootstrapError, UnknownOptionError, Worker } from '../../lib/index.js';
import { normalizeJobOptions } from '../../lib/engine/options.js';
import { validateModuleOptions } from '../../lib/nest/module-options.js';

/** The error `attempt` throws (it must throw). */
function thrown(attempt: () => unknown): Error {
  try {
    attempt();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to throw');
}

// Never connected: every check below fails before Redis is used.
const store = new RedisStore({ url: 'redis://127.0.0.1:1' });
const url = 'redis://127.0.0.1:1';

describe('unknown options: all of one options object in one error', () => {
  it('reports every unknown key of the module options, nested objects included, each with its did-you-mean', () => {
    const error = thrown(() => validateModuleOptions({ connection: { url, prefx: 'app' }, workers: { concurency: 4, lockDuraton: 1000 }, defaultJobOptions: { atempts: 3 } }));
    expect(error).toBeInstanceOf(SpoolBootstrapError);
    expect(error.message).toBe(
      'QueueModule options.connection.prefx is not an option: did you mean "prefix"?; ' +
        'neither is workers.concurency: did you mean "concurrency"?; neither is workers.lockDuraton: did you mean "lockDuration"?; and 1 more unknown keys',
    );
    // Fewer than the cap: every one spelled out.
    expect(thrown(() => validateModuleOptions({ connection: { url, prefx: 'app' }, workers: { concurency: 4 } })).message).toBe(
      'QueueModule options.connection.prefx is not an option: did you mean "prefix"?; neither is workers.concurency: did you mean "concurrency"?',
    );
  });

  it('reports every unknown key of engine options in one UnknownOptionError', () => {
    const error = thrown(() => new Worker('q', async () => undefined, { store, concurency: 2, lockDuraton: 5000 } as never));
    expect(error).toBeInstanceOf(UnknownOptionError);
    expect((error as UnknownOptionError).keys.map((k) => k.field)).toEqual(['Worker options.concurency', 'Worker options.lockDuraton']);
    expect(error.message).toBe('Worker options.concurency is not an option: did you mean "concurrency"?; neither is lockDuraton: did you mean "lockDuration"?');
    // Both arguments of RedisStore count as one options object.
    const store2 = thrown(() => new RedisStore({ url, prefx: 'a' } as never, { requireNoEvictoin: true } as never));
    expect((store2 as UnknownOptionError).keys.map((k) => k.field)).toEqual(['RedisStore connection.prefx', 'RedisStore options.requireNoEvictoin']);
  });
});

describe('the BullMQ names a migrating user types get their Spool counterpart', () => {
  it('connection { host, port, db, password, tls } is accepted; ioredis client settings and sentinel names point to their Spool counterpart', () => {
    const bullmq = { host: 'redis.internal', port: 6380, db: 2, password: 'hunter2', tls: {} };
    expect(() => new RedisStore(bullmq)).not.toThrow();
    expect(() => validateModuleOptions({ connection: { host: 'redis', port: 6379, tls: {} } })).not.toThrow();
    expect(thrown(() => new RedisStore({ url, maxRetriesPerRequest: null } as never)).message).toMatch(/maxRetriesPerRequest is not an option: an ioredis option: Spool uses node-redis .* \{ client \}/);
    const sentinel = thrown(() => new RedisStore({ sentinels: [{ host: 'a', port: 26379 }], name: 'mymaster' } as never));
    expect(sentinel).toBeInstanceOf(UnknownOptionError);
    expect(sentinel.message).toContain('RedisStore connection.sentinels is not an option: Sentinel is one object: { sentinel: { name, sentinels: [{ host, port }] } }');
    const nest = thrown(() => validateModuleOptions({ connection: { host: 'redis', tls: { ca: 'x', rejectUnauthorised: false } } }));
    expect(nest).toBeInstanceOf(SpoolBootstrapError);
    expect(nest.message).toBe('QueueModule options.connection.tls.rejectUnauthorised is not an option: did you mean "rejectUnauthorized"?');
  });

  it('job options: deduplication is dedup, repeat is a scheduler, flow options are FlowProducer', () => {
    const error = thrown(() => normalizeJobOptions({ deduplication: { id: 'order-1', ttl: 5000 }, repeat: { every: 1000 }, parent: { id: 'p', queue: 'q' } } as never, undefined));
    expect(error).toBeInstanceOf(UnknownOptionError);
    expect(error.message).toBe(
      "opts.deduplication is not an option: dedup: { key, ttl } (BullMQ's deduplication.id is dedup.key); " +
        'neither is repeat: repeating jobs are schedulers: queue.upsertScheduler(id, { every } or { cron }, { name, data, opts }) (docs/guide/schedulers.md); ' +
        "neither is parent: parents and children are added together with FlowProducer; a child's failurePolicy (e.g. failurePolicy: 'ignoreDependencyOnFailure') says what its failure does to the parent",
    );
    expect(thrown(() => normalizeJobOptions({ removeOnComplete: { count: 100, limit: 10 } } as never, undefined)).message).toMatch(
      /^opts\.removeOnComplete\.limit is not an option: BullMQ's limit .* has no counterpart/,
    );
    // The same in the module's defaultJobOptions, at bootstrap.
    expect(thrown(() => validateModuleOptions({ connection: { url }, defaultJobOptions: { deduplication: { id: 'x' } } })).message).toBe(
      "QueueModule options.defaultJobOptions.deduplication is not an option: dedup: { key } (BullMQ's deduplication.id is dedup.key)",
    );
  });

  it('worker, queue, events and registerQueue options', () => {
    expect(thrown(() => new Worker('q', async () => undefined, { store, removeOnComplete: { count: 10 }, settings: {} } as never)).message).toBe(
      "Worker options.removeOnComplete is not an option: a job option in Spool, not a Worker's: set it in the queue's defaultJobOptions or per add(); " +
        "neither is settings: settings.backoffStrategy is the Worker option backoffStrategy (with backoff: { type: 'custom' } on jobs)",
    );
    expect(thrown(() => new Queue('q', { store, connection: { host: 'x' } } as never)).message).toMatch(/^Queue options\.connection is not an option: BullMQ's per-queue connection: .*\{ store \}$/);
    expect(thrown(() => new QueueEvents('q', { store, lastEventId: '0' } as never)).message).toBe('QueueEvents options.lastEventId is not an option: did you mean "from"? (the event id to read after)');
    expect(thrown(() => QueueModule.registerQueue({ name: 'q', prefix: 'app', streams: { events: { maxLen: 10 } } } as never)).message).toBe(
      'QueueModule.registerQueue() argument 1.streams is not an option: limits: { events: { maxLen } }',
    );
  });
});
