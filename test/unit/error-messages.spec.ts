import 'reflect-metadata';
import {
  DelayedError,
  FlowProducer,
  getQueueToken,
  InvalidArgumentError,
  Queue,
  QueueEvents,
  QueueModule,
  RateLimitedError,
  RedisStore,
  SpoolError,
  Worker,
} from '../../lib/index.js';
import { describe as describeValue } from '../../lib/common/validation.js';
import { validateModuleOptions } from '../../lib/nest/module-options.js';
import { SpoolPrometheus } from '../../lib/observability/prometheus.js';
import { Outbox } from '../../lib/outbox/index.js';
import { PostgresStore } from '../../lib/postgres/index.js';
import { arrayOf, objectOf } from '../../lib/postgres/rows.js';
import { testStore } from '../helpers/store.js';

/** Longest message a bad argument may produce, whatever was passed: long enough for the field, the problem and the fix. */
const MODEST = 500;
const MARKER = 'do-not-print-me';

/** What a slip passes: an object of many keys, nested, with a long string and a secret-looking value deep inside. */
function bigObject(): Record<string, unknown> {
  const big: Record<string, unknown> = {};
  for (let i = 0; i < 300; i++) big[`key${i}`] = { nested: { deeper: ['x'.repeat(200), MARKER] }, n: i };
  big.password = MARKER;
  big[`${'k'.repeat(500)}${MARKER}`] = 1;
  return big;
}

/** The message of the error `attempt` throws or rejects with (it must fail). */
async function messageOf(attempt: () => unknown): Promise<string> {
  try {
    await attempt();
  } catch (err) {
    expect(err).toBeInstanceOf(SpoolError);
    return (err as Error).message;
  }
  throw new Error('expected the call to fail');
}

describe('errors from bad input describe the value, never serialise it', () => {
  let store: RedisStore;
  beforeAll(async () => {
    store = await testStore();
  });
  afterAll(async () => {
    await store.disconnect();
  });

  it('new Queue({ name, store }), the common slip, says the name is the first argument, in a short message', async () => {
    const message = await messageOf(() => new Queue({ name: 'emails', store } as never, undefined as never));
    expect(message).toBe(
      "Queue name must be 1 to 128 characters without braces, spaces or control characters, got an object with keys name, store: the queue name is the first argument: new Queue('emails', { store })",
    );
    expect(await messageOf(() => new Worker({ name: 'emails', store } as never, async () => undefined, { store }))).toMatch(/got an object with keys name, store: the queue name is the first argument: new Worker\('emails', handler, \{ store \}\)$/);
    expect(await messageOf(() => new QueueEvents({ name: 'emails', connection: {} } as never, { store }))).toMatch(/got an object with keys name, connection: the queue name is the first argument/);
  });

  it('keeps every message short and free of the value\'s contents, with a connected store or a big object in any place', async () => {
    const queue = new Queue('short-errors', { store });
    const job = await queue.add('x', {});
    const attempts: [string, () => unknown][] = [];
    for (const [label, big] of [['a RedisStore', store], ['a big object', bigObject()]] as const) {
      const b = big as never;
      attempts.push(
        [`${label} as a Queue name`, () => new Queue(b, { store })],
        [`${label} as Queue options`, () => new Queue('q', b)],
        ...(['tracing', 'shards', 'maxPayloadBytes', 'defaultJobOptions', 'validate'] as const).map((k): [string, () => unknown] => [`${label} as Queue options.${k}`, () => new Queue('q', { store, [k]: b })]),
        [`${label} as a job name`, () => queue.add(b, {})],
        [`${label} as job options`, () => queue.add('x', {}, b)],
        ...(['jobId', 'delay', 'runAt', 'priority', 'lifo', 'attempts', 'backoff', 'deadline', 'timeout', 'dedup', 'removeOnComplete', 'removeOnFail', 'group', 'idempotencyKey'] as const).map(
          (k): [string, () => unknown] => [`${label} as opts.${k}`, () => queue.add('x', {}, { [k]: b })],
        ),
        [`${label} as addBulk jobs`, () => queue.addBulk(b)],
        [`${label} as limits`, () => queue.configure(b)],
        [`${label} as limits.rateLimit`, () => queue.configure({ rateLimit: b })],
        [`${label} as a scheduler id`, () => queue.upsertScheduler(b, { every: 1000 }, { name: 'x' })],
        [`${label} as a scheduler repeat`, () => queue.upsertScheduler('s', b, { name: 'x' })],
        [`${label} as repeat.every`, () => queue.upsertScheduler('s', { every: b }, { name: 'x' })],
        [`${label} as a wait timeout`, () => job.waitUntilFinished({ timeout: b })],
        [`${label} as a Worker queue name`, () => new Worker(b, async () => undefined, { store })],
        [`${label} as a Worker handler`, () => new Worker('q', b, { store })],
        [`${label} as Worker options`, () => new Worker('q', async () => undefined, b)],
        ...(['concurrency', 'lockDuration', 'prefetch', 'tracing', 'autorun', 'logFailures', 'limiter', 'nameConcurrency', 'backoffStrategy', 'shards'] as const).map(
          (k): [string, () => unknown] => [`${label} as Worker options.${k}`, () => new Worker('q', async () => undefined, { store, autorun: false, [k]: b })],
        ),
        [`${label} as QueueEvents options`, () => new QueueEvents('q', b)],
        [`${label} as QueueEvents options.from`, () => new QueueEvents('q', { store, from: b })],
        [`${label} as FlowProducer options`, () => new FlowProducer(b)],
        [`${label} as FlowProducer options.tracing`, () => new FlowProducer({ store, tracing: b })],
        [`${label} as a flow`, () => new FlowProducer({ store }).add(b)],
        [`${label} as a RedisStore connection`, () => new RedisStore(b)],
        ...(['url', 'client', 'prefix', 'durability', 'transientRetryMs', 'outageLogInterval', 'requireNoEviction'] as const).map(
          (k): [string, () => unknown] => [`${label} as RedisStore ${k}`, () => new RedisStore({ url: 'redis://127.0.0.1:1', [k]: b } as never)],
        ),
        [`${label} as a DelayedError delay`, () => new DelayedError(b)],
        [`${label} as a RateLimitedError retryAfter`, () => new RateLimitedError(b)],
        [`${label} as QueueModule options`, () => validateModuleOptions(b)],
        [`${label} as QueueModule connection`, () => validateModuleOptions({ connection: b })],
        ...(['url', 'prefix', 'waitForRedis', 'transientRetryMs', 'outageLogInterval'] as const).map(
          (k): [string, () => unknown] => [`${label} as QueueModule connection.${k}`, () => validateModuleOptions({ connection: { url: 'redis://127.0.0.1:1', [k]: b } })],
        ),
        [`${label} as QueueModule tracing`, () => validateModuleOptions({ connection: { url: 'redis://127.0.0.1:1' }, tracing: b })],
        [`${label} as a registerQueue argument`, () => QueueModule.registerQueue(b)],
        [`${label} as a registerQueue connection`, () => QueueModule.registerQueue({ name: 'q', connection: b })],
        [`${label} as a token's connection`, () => getQueueToken('q', b)],
        [`${label} as a registerQueue tracing`, () => QueueModule.registerQueue({ name: 'q', tracing: b })],
        [`${label} as a registerFlowProducer tracing`, () => QueueModule.registerFlowProducer({ tracing: b })],
        [`${label} as SpoolPrometheus options.nameLabel`, () => new SpoolPrometheus({ queues: [], nameLabel: b })],
        [`${label} as SpoolPrometheus options.prefix`, () => new SpoolPrometheus({ queues: [], prefix: b })],
        [`${label} as PostgresStore options.schema`, () => new PostgresStore({ connectionString: 'postgres://127.0.0.1:1/x', schema: b })],
        [`${label} as Outbox options.schema`, () => new Outbox({ connectionString: 'postgres://127.0.0.1:1/x', schema: b })],
        // Refused before any connection: the store at port 1 is never reached.
        [`${label} as outbox seqs`, () => new Outbox({ connectionString: 'postgres://127.0.0.1:1/x' }).retry(b)],
        [`${label} in outbox seqs`, () => new Outbox({ connectionString: 'postgres://127.0.0.1:1/x' }).discard(['1', b])],
        [`${label} as a PostgreSQL function's object reply`, () => objectOf('spool.test', [b])],
        [`${label} as a PostgreSQL function's array reply`, () => arrayOf('spool.test', b)],
      );
    }
    const lengths: number[] = [];
    for (const [what, attempt] of attempts) {
      const message = await messageOf(attempt).catch((err: unknown) => {
        throw new Error(`${what}: ${(err as Error).message}`);
      });
      lengths.push(message.length);
      if (process.env.SHOW_MESSAGES) process.stdout.write(`${what}: ${message}\n`);
      if (message.length > MODEST || message.includes(MARKER) || message.includes('[object Object]')) {
        throw new Error(`${what} gave a message of ${message.length} characters: ${message.slice(0, 600)}`);
      }
    }
    expect(lengths.length).toBe(attempts.length);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(MODEST);
  });

  it('describes a value by its type and a short preview', () => {
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(null)).toBe('null');
    expect(describeValue('abc')).toBe('"abc"');
    expect(describeValue('x'.repeat(100))).toBe(`"${'x'.repeat(40)}..." (100 characters)`);
    expect(describeValue(42)).toBe('42');
    expect(describeValue(10n)).toBe('10n (a BigInt)');
    expect(describeValue([1, 2, 3])).toBe('an array of 3 items');
    expect(describeValue([])).toBe('an empty array');
    expect(describeValue({})).toBe('an empty object');
    expect(describeValue({ name: 'q', store: 1 })).toBe('an object with keys name, store');
    expect(describeValue(bigObject())).toMatch(/^an object with keys key0, key1, key2, key3, key4, key5 and 296 more$/);
    expect(describeValue(Object.create(null) as object)).toBe('an empty object');
    expect(describeValue(new Date(0))).toBe('a Date (1970-01-01T00:00:00.000Z)');
    expect(describeValue(new Date(Number.NaN))).toBe('an invalid Date');
    expect(describeValue(new InvalidArgumentError('f', 'p'))).toBe('an InvalidArgumentError');
    expect(describeValue(new Map())).toBe('a Map');
    expect(describeValue(function handler() {})).toBe('a function (handler)');
    expect(describeValue(class Store {})).toBe('the class Store');
  });
});
