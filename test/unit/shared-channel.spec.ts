import { SharedChannel, type ChannelSubscriber } from '../../lib/notify/shared-channel.js';
import { WriteLock } from '../../lib/notify/write-lock.js';

/**
 * The client side of one subscription: node-redis keeps delivering a
 * channel's messages until Redis answers the UNSUBSCRIBE, so the last
 * listener must still be there for a message read before that answer (a
 * worker's push published just before it stopped taking pushes). The
 * subscriber here records what SharedChannel asked of it and lets the test
 * deliver a message while the unsubscribe is still unanswered.
 */
class PendingSubscriber implements ChannelSubscriber {
  deliver: ((message: string) => void) | undefined;
  answerUnsubscribe: (() => void) | undefined;
  readonly calls: string[] = [];

  async subscribe(channel: string, listener: (message: string) => void): Promise<void> {
    this.calls.push(`subscribe ${channel}`);
    this.deliver = listener;
  }

  unsubscribe(channel: string): Promise<void> {
    this.calls.push(`unsubscribe ${channel}`);
    return new Promise((resolve) => (this.answerUnsubscribe = resolve));
  }
}

describe('SharedChannel', () => {
  it('keeps its last listener until the unsubscribe is answered: a message read before the answer is heard', async () => {
    const subscriber = new PendingSubscriber();
    const channel = new SharedChannel('push:w1', async () => subscriber, new WriteLock(), (err) => {
      throw err;
    });
    const heard: string[] = [];
    const off = await channel.add((m) => heard.push(m));
    const leaving = off();
    await new Promise((resolve) => setImmediate(resolve));
    expect(subscriber.calls).toEqual(['subscribe push:w1', 'unsubscribe push:w1']);
    subscriber.deliver!('jobs published before the unsubscribe');
    subscriber.answerUnsubscribe!();
    await leaving;
    expect(heard).toEqual(['jobs published before the unsubscribe']);
    expect(channel.size).toBe(0);
  });

  it('drops a listener at once while others remain (no unsubscribe)', async () => {
    const subscriber = new PendingSubscriber();
    const channel = new SharedChannel('sched', async () => subscriber, new WriteLock(), (err) => {
      throw err;
    });
    const a: string[] = [];
    const b: string[] = [];
    const offA = await channel.add((m) => a.push(m));
    await channel.add((m) => b.push(m));
    await offA();
    subscriber.deliver!('w:emails');
    expect(a).toEqual([]);
    expect(b).toEqual(['w:emails']);
    expect(subscriber.calls).toEqual(['subscribe sched']);
  });
});
