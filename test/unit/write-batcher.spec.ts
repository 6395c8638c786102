import { WriteBatcher } from '../../lib/engine/write-batcher.js';

/** A write the test answers by hand: the batcher's view of a script call in flight. */
function manualWrites() {
  const calls: { items: number[]; done: () => void }[] = [];
  const write = (items: number[]) => new Promise<void>((resolve) => calls.push({ items, done: resolve }));
  return { calls, write };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('WriteBatcher', () => {
  it('writes the first item at once and groups what arrives while the limit of writes is out', async () => {
    const { calls, write } = manualWrites();
    const batcher = new WriteBatcher(() => 1, write);
    const written: Promise<void>[] = [batcher.push(1)];
    await turn();
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    for (const i of [2, 3, 4]) written.push(batcher.push(i));
    await turn();
    expect(calls).toHaveLength(1);
    calls[0]!.done();
    await turn();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    calls[1]!.done();
    await Promise.all(written);
  });

  it('puts at most maxBatch items in one write and sends the rest in the next', async () => {
    const { calls, write } = manualWrites();
    const batcher = new WriteBatcher(() => 2, write, 3);
    const written = Array.from({ length: 7 }, (_, i) => batcher.push(i));
    await turn();
    // Two writes out at once, three items each; the seventh waits for a free write.
    expect(calls.map((c) => c.items)).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    calls[0]!.done();
    await turn();
    expect(calls.map((c) => c.items)).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    calls[1]!.done();
    calls[2]!.done();
    await Promise.all(written);
  });

  it('rejects every item of a failed write and goes on with the next', async () => {
    const calls: { items: number[]; fail: (err: Error) => void; done: () => void }[] = [];
    const batcher = new WriteBatcher(
      () => 1,
      (items: number[]) => new Promise<void>((resolve, reject) => calls.push({ items, fail: reject, done: resolve })),
    );
    const first = batcher.push(1);
    await turn();
    const second = batcher.push(2);
    const third = batcher.push(3);
    calls[0]!.fail(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await turn();
    expect(calls[1]!.items).toEqual([2, 3]);
    calls[1]!.done();
    await expect(Promise.all([second, third])).resolves.toEqual([undefined, undefined]);
  });
});
