import { InvalidArgumentError } from '../../lib/index.js';
import { assertJsonSafe, encodeJson } from '../../lib/engine/json.js';

function problem(value: unknown): InvalidArgumentError {
  try {
    assertJsonSafe(value, 'data');
  } catch (err) {
    if (err instanceof InvalidArgumentError) return err;
    throw err;
  }
  throw new Error('expected assertJsonSafe to throw');
}

describe('assertJsonSafe', () => {
  it('accepts plain data, Dates and class instances', () => {
    class Point {
      constructor(readonly x: number, readonly y: number) {}
    }
    expect(() => assertJsonSafe({ a: [1, 'two', null, true], at: new Date(0), p: new Point(1, 2), u: undefined }, 'data')).not.toThrow();
  });

  it.each([
    [{ user: { id: 10n } }, 'data.user.id', /BigInt/],
    [{ list: [1, () => 1] }, 'data.list[1]', /function/],
    [{ n: NaN }, 'data.n', /NaN/],
    [{ n: Infinity }, 'data.n', /Infinity/],
    [{ tags: new Set(['a']) }, 'data.tags', /Set/],
    [{ byId: new Map() }, 'data.byId', /Map/],
    [{ raw: new Uint8Array(2) }, 'data.raw', /binary/],
    [{ s: Symbol('x') }, 'data.s', /symbol/],
    // The path follows the way down and back up: siblings after nested arrays and objects.
    [{ a: [1, { b: [0, NaN] }] }, 'data.a[1].b[1]', /NaN/],
    [{ x: [1, { y: 2 }], z: { w: [] }, last: -Infinity }, 'data.last', /Infinity/],
    [[{ ok: true }, [new Map()]], 'data[1][0]', /Map/],
  ])('refuses %p naming %s', (value, field, pattern) => {
    const err = problem(value);
    expect(err.field).toBe(field);
    expect(err.message).toMatch(pattern);
  });

  it('refuses a cycle and names where it closes', () => {
    const node: { name: string; self?: unknown } = { name: 'a' };
    node.self = node;
    const err = problem({ node });
    expect(err.field).toBe('data.node.self');
    expect(err.message).toMatch(/cycle/);
  });

  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { x: 1 };
    expect(() => assertJsonSafe({ a: shared, b: shared }, 'data')).not.toThrow();
  });

  it('encodes undefined as null', () => {
    expect(encodeJson(undefined, 'data')).toBe('null');
  });
});
