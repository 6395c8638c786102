import {
  InvalidArgumentError,
  PayloadTooLargeError,
  Queue,
  RedisStore,
  StoreNotConnectedError,
  UnknownOptionError,
  Worker,
} from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { redisUrl } from '../helpers/store.js';

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

async function rejected(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('bad arguments get typed errors that name the field, and write nothing', () => {
  const h = engineHarness();

  it.each([
    ['has{braces}'],
    [''],
    ['with space'],
  ])('refuses queue name %p', (name) => {
    const err = caught(() => new Queue(name, { store: h.store }));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).field).toBe('Queue name');
  });

  it('refuses unknown queue and worker options with a suggestion', () => {
    const q = caught(() => new Queue('q', { store: h.store, defaultJobOption: {} } as never));
    expect(q).toBeInstanceOf(UnknownOptionError);
    expect((q as Error).message).toMatch(/Queue options.defaultJobOption is not an option: did you mean "defaultJobOptions"/);
    const w = caught(() => new Worker('q', async () => 1, { store: h.store, concurency: 2 } as never));
    expect((w as InvalidArgumentError).field).toBe('Worker options.concurency');
    expect((w as Error).message).toMatch(/did you mean "concurrency"/);
  });

  it('refuses worker lease settings that cannot work', () => {
    const err = caught(() => new Worker('q', async () => 1, { store: h.store, lockDuration: 1000, lockRenewTime: 1000 }));
    expect((err as InvalidArgumentError).field).toBe('Worker options.lockRenewTime');
  });

  it('refuses bad job options and data before anything reaches Redis', async () => {
    const queue = h.queue('bad');
    const delay = await rejected(queue.add('x', {}, { delay: -5 }));
    expect(delay).toBeInstanceOf(InvalidArgumentError);
    expect((delay as Error).message).toBe('opts.delay is -5: it must be >= 0 ms');
    const data = await rejected(queue.add('x', { user: { id: 10n } }));
    expect((data as InvalidArgumentError).field).toBe('data.user.id');
    const bulk = await rejected(queue.addBulk([{ name: 'ok', data: 1 }, { name: 'x', data: 2, opts: { priority: -1 } }]));
    expect((bulk as InvalidArgumentError).field).toBe('jobs[1].opts.priority');
    const name = await rejected(queue.add('', 1));
    expect((name as InvalidArgumentError).field).toBe('name');
    expect(await queue.getCounts()).toEqual({ waiting: 0, delayed: 0, active: 0, completed: 0, failed: 0, cancelled: 0, paused: 0, 'waiting-children': 0 });
  });

  it('refuses a payload over maxPayloadBytes with the sizes', async () => {
    const queue = h.queue('big', { maxPayloadBytes: 100 });
    const err = await rejected(queue.add('x', { blob: 'x'.repeat(200) }));
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err).toMatchObject({ field: 'data', limit: 100 });
    expect((err as Error).message).toMatch(/is 211 bytes encoded, over the limit of 100/);
    expect((await queue.getCounts()).waiting).toBe(0);
  });

  it('says to connect first when the store is not connected', async () => {
    const store = new RedisStore({ url: redisUrl() });
    const err = await rejected(new Queue('q', { store }).add('x', 1));
    expect(err).toBeInstanceOf(StoreNotConnectedError);
    expect((err as Error).message).toMatch(/call await store.connect\(\) first/);
  });

  it('refuses a bad store prefix', () => {
    expect(() => new RedisStore({ url: redisUrl() }, { prefix: '{x}' })).toThrow(/prefix "\{x\}" is invalid/);
  });
});
