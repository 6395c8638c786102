import { FlowProducer, InvalidArgumentError, Queue, UnknownQueueError } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { testStore } from '../helpers/store.js';

/** FlowProducer.registerQueue(): queues known after construction, with their defaults and validators. */
describe('FlowProducer.registerQueue', () => {
  const h = engineHarness();

  it('lets a producer built with queues accept a queue registered later, with its defaults and validator', async () => {
    const parents = h.queue('rq-parents');
    const flows = new FlowProducer({ store: h.store, queues: [parents] });
    const flow = { name: 'p', queueName: 'rq-parents', children: [{ name: 'c', queueName: 'rq-late', data: { n: 1 } }] };
    await expect(flows.add(flow)).rejects.toBeInstanceOf(UnknownQueueError);
    await expect(flows.add(flow)).rejects.toThrow(/registerQueue\(\).*known queues: rq-parents/);

    const late = h.queue('rq-late', {
      defaultJobOptions: { attempts: 4 },
      validate: (_name, data) => {
        if ((data as { n?: unknown }).n === -1) throw new InvalidArgumentError('data.n', 'must not be -1');
      },
    });
    expect(flows.registerQueue(late)).toBe(flows);
    expect(flows.registerQueue(late)).toBe(flows); // the same queue again changes nothing
    const tree = await flows.add(flow);
    expect(tree.children[0]!.job.opts.attempts).toBe(4);
    expect((await late.getJob(tree.children[0]!.job.id))?.opts.attempts).toBe(4);

    const before = await late.getCounts();
    await expect(flows.add({ ...flow, children: [{ name: 'c', queueName: 'rq-late', data: { n: -1 } }] })).rejects.toThrow('data.n must not be -1');
    expect(await late.getCounts()).toEqual(before);
    expect((await parents.getCounts())['waiting-children']).toBe(1);
  });

  it('lets a registered queue take over a name an open producer used with plain defaults', async () => {
    const flows = new FlowProducer({ store: h.store });
    const plain = await flows.add({ name: 'x', queueName: 'rq-open' });
    expect(plain.job.opts.attempts).toBe(1);
    flows.registerQueue(h.queue('rq-open', { defaultJobOptions: { attempts: 3 } }));
    const defaults = await flows.add({ name: 'x', queueName: 'rq-open' });
    expect(defaults.job.opts.attempts).toBe(3);
  });

  it('refuses a second Queue of a registered name, a queue of another store and a non-Queue, naming the argument', async () => {
    const flows = new FlowProducer({ store: h.store, queues: [h.queue('rq-a')] });
    expect(() => flows.registerQueue(new Queue('rq-a', { store: h.store }))).toThrow(
      'FlowProducer.registerQueue() queue is a second Queue named "rq-a": register each queue name once',
    );
    const other = await testStore();
    try {
      expect(() => flows.registerQueue(new Queue('rq-b', { store: other }))).toThrow(/\("rq-b"\) uses another store than this FlowProducer/);
      expect(() => new FlowProducer({ store: h.store, queues: [new Queue('rq-b', { store: other })] })).toThrow(
        /FlowProducer options.queues\[0\] \("rq-b"\) uses another store/,
      );
    } finally {
      await other.disconnect();
    }
    expect(() => flows.registerQueue('rq-c' as unknown as Queue)).toThrow(InvalidArgumentError);
    expect(() => flows.registerQueue('rq-c' as unknown as Queue)).toThrow('must be a Queue, got "rq-c"');
  });
});
