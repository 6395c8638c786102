import { expect as globalsExpect } from '@jest/globals';
import { Queue, UnrecoverableError, Worker } from '../../lib/index.js';
import { MemoryStore, spoolMatchers, type SpoolMatchers } from '../../lib/testing/index.js';

// The augmentation docs/guide/testing.md tells @jest/globals users to add.
declare module 'expect' {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  interface Matchers<R extends void | Promise<void>, T = unknown> extends SpoolMatchers<R> {}
}

expect.extend(spoolMatchers);

describe('jest matchers from spool/testing', () => {
  const store = new MemoryStore();
  const queue = new Queue<{ to: string }, string>('emails', { store });
  let worker: Worker<{ to: string }, string>;

  beforeAll(async () => {
    worker = new Worker<{ to: string }, string>(
      'emails',
      async (job) => {
        if (job.data.to.startsWith('bounce')) throw new UnrecoverableError(`mailbox ${job.data.to} gone`);
        return `sent to ${job.data.to}`;
      },
      { store },
    );
    await queue.add('send', { to: 'ada@example.com' });
    const bounce = await queue.add('send', { to: 'bounce@example.com' });
    const ok = await queue.add('send', { to: 'grace@example.com' });
    await queue.waitFor(ok.id, { timeout: 5000 });
    await expect(queue.waitFor(bounce.id, { timeout: 5000 })).rejects.toThrow(/gone/);
    await queue.add('digest', { to: 'later@example.com' }, { delay: 3_600_000 });
  });
  afterAll(async () => {
    await worker.close();
    await queue.close();
    await store.disconnect();
  });

  it('toHaveJob: a job of that name whose data matches partially, in any state', async () => {
    await expect(queue).toHaveJob('send');
    await expect(queue).toHaveJob('send', { to: 'ada@example.com' });
    await expect(queue).toHaveJob('digest', { to: expect.stringMatching(/later/) });
    await expect(queue).not.toHaveJob('send', { to: 'nobody@example.com' });
    await expect(queue).not.toHaveJob('invoice');
  });

  it('toHaveCompleted and toHaveFailedWith look at finished jobs only', async () => {
    await expect(queue).toHaveCompleted('send');
    await expect(queue).toHaveCompleted('send', 'sent to grace@example.com');
    await expect(queue).not.toHaveCompleted('digest');
    await expect(queue).toHaveFailedWith('send', 'bounce@example.com gone');
    await expect(queue).toHaveFailedWith('send', /mailbox .* gone/);
    await expect(queue).toHaveFailedWith('send', { reason: 'unrecoverable', code: 'UnrecoverableError' });
    await expect(queue).not.toHaveFailedWith('send', 'timeout');
  });

  it('a failing assertion says what the queue holds', async () => {
    const failure = await expect(queue).toHaveJob('send', { to: 'nobody@example.com' }).then(() => null, (e: Error) => e.message);
    expect(failure).toContain('Expected queue "emails" to have a job "send" with data');
    expect(failure).toContain('ada@example.com');
    const negated = await expect(queue).not.toHaveCompleted('send').then(() => null, (e: Error) => e.message);
    expect(negated).toMatch(/not to have a completed job "send", but job \S+ is/);
    const failed = await expect(queue).toHaveFailedWith('send', 'smtp').then(() => null, (e: Error) => e.message);
    expect(failed).toContain('mailbox bounce@example.com gone');
  });

  it('refuses what is not a queue, and types on @jest/globals too', async () => {
    await expect(expect({}).toHaveJob('send')).rejects.toThrow(/must be a Queue/);
    globalsExpect.extend(spoolMatchers);
    await globalsExpect(queue).toHaveJob('send', { to: 'ada@example.com' });
  });
});
