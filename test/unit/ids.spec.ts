import { IdGenerator } from '../../lib/engine/ids.js';

describe('IdGenerator', () => {
  it('makes 26-character Crockford ids', () => {
    expect(new IdGenerator().next()).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('encodes the time as the ULID spec does (its example: 1469918176385 -> 01ARYZ6S41)', () => {
    expect(new IdGenerator().next(1469918176385).slice(0, 10)).toBe('01ARYZ6S41');
  });

  it('is strictly increasing within one process, even in one millisecond', () => {
    const gen = new IdGenerator();
    const ids = Array.from({ length: 5000 }, () => gen.next(1_700_000_000_000));
    const sorted = [...ids].sort();
    expect(ids).toEqual(sorted);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws a fresh random part every millisecond, across refills of its random pool', () => {
    const gen = new IdGenerator();
    // 1,000 random bytes a refill, 10 an id: 350 milliseconds cross three refills.
    const randomParts = Array.from({ length: 350 }, (_, i) => gen.next(1_700_000_000_000 + i).slice(10));
    expect(new Set(randomParts).size).toBe(350);
  });

  it('sorts by creation time across generators', () => {
    const a = new IdGenerator().next(1_700_000_000_000);
    const b = new IdGenerator().next(1_700_000_000_001);
    expect(a < b).toBe(true);
  });

  it('never repeats across generators', () => {
    const gens = [new IdGenerator(), new IdGenerator()];
    const ids = new Set<string>();
    for (let i = 0; i < 2000; i++) for (const g of gens) ids.add(g.next(1_700_000_000_000));
    expect(ids.size).toBe(4000);
  });
});
