import { setImmediate as nextTurn } from 'node:timers/promises';
import { TurnPacer } from '../../lib/engine/turn-pacer.js';

describe('TurnPacer', () => {
  it('runs the first task at once and the rest one per event-loop turn, in order', async () => {
    const pacer = new TurnPacer();
    const ran: string[] = [];
    for (const name of ['a', 'b', 'c', 'd']) pacer.run(() => ran.push(name));
    expect(ran).toEqual(['a']);
    expect(pacer.pending).toBe(3);
    // How many had run after each turn: exactly one more per turn, never two.
    const afterTurn: number[] = [];
    for (let i = 0; i < 5; i++) {
      await nextTurn();
      afterTurn.push(ran.length);
    }
    expect(afterTurn).toEqual([2, 3, 4, 4, 4]);
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
    expect(pacer.pending).toBe(0);
  });

  it('runs a task at once again after the queue went idle', async () => {
    const pacer = new TurnPacer();
    const ran: number[] = [];
    pacer.run(() => ran.push(1));
    await nextTurn();
    await nextTurn();
    pacer.run(() => ran.push(2));
    expect(ran).toEqual([1, 2]);
  });

  it('runs tasks at once while pacing is off, after those still queued, in order', async () => {
    let paced = true;
    const pacer = new TurnPacer(() => paced);
    const ran: string[] = [];
    for (const name of ['a', 'b', 'c']) pacer.run(() => ran.push(name));
    expect(ran).toEqual(['a']);
    paced = false;
    // Queued tasks keep their place: 'd' waits behind b and c.
    pacer.run(() => ran.push('d'));
    expect(ran).toEqual(['a']);
    await nextTurn();
    expect(ran).toEqual(['a', 'b', 'c', 'd']);
    pacer.run(() => ran.push('e'));
    pacer.run(() => ran.push('f'));
    expect(ran).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(pacer.pending).toBe(0);
  });
});
