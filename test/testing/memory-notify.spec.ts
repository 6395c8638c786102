import { MemoryNotify } from '../../lib/testing/index.js';
import { waitFor } from '../helpers/wait-for.js';

/** The in-process notify adapter: messages arrive after the transition, every listener hears them, unsubscribe stops them. */
describe('MemoryNotify', () => {
  it('delivers wake-ups, ownership loss and finished jobs one turn later, once per queue per transition', async () => {
    const notify = new MemoryNotify();
    const heard: string[] = [];
    const offSched = await notify.onScheduled((m) => heard.push(`${m.kind}:${m.queue}`));
    await notify.onOwnershipLost((m) => heard.push(`${m.kind}:${m.id}:${m.token}`));
    await notify.onFinished((m) => heard.push(`done:${m.id}:${m.state}`));
    notify.publish({
      sched: [{ kind: 'waiting', queue: 'q' }, { kind: 'waiting', queue: 'q' }, { kind: 'delayed', queue: 'q', dueIn: 5 }],
      owls: [{ kind: 'lost', queue: 'q', id: 'j1', token: 't1' }],
      done: [{ queue: 'q', id: 'j2', state: 'completed' }],
    });
    expect(heard).toEqual([]);
    await waitFor(() => heard.length === 4);
    expect(heard).toEqual(['waiting:q', 'delayed:q', 'lost:j1:t1', 'done:j2:completed']);
    expect(await notify.consumeWakeHint('q', 3)).toBe(3);
    await offSched();
    notify.publish({ sched: [{ kind: 'waiting', queue: 'q' }], owls: [], done: [{ queue: 'q', id: 'j3', state: 'failed' }] });
    await waitFor(() => heard.length === 5);
    expect(heard[4]).toBe('done:j3:failed');
    await notify.close();
  });
});
