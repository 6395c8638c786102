import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Queue, RedisStore, UnknownOptionError, Worker } from '../../lib/index.js';
import type { Store } from '../../lib/store/index.js';
import { redisUrl } from '../helpers/store.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The backticked names in the first column of the first table after `marker`. */
function tableOptions(marker: string): Set<string> {
  const at = README.indexOf(marker);
  if (at < 0) throw new Error(`README has no "${marker}"`);
  const lines = README.slice(at).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|')[1] ?? '');
  }
  return new Set(rows.flatMap((cell) => [...cell.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]!)));
}

/** The keys an options object accepts, as its UnknownOptionError lists them. */
function knownKeys(build: () => unknown): readonly string[] {
  try {
    build();
  } catch (err) {
    if (err instanceof UnknownOptionError) return err.known;
    throw err;
  }
  throw new Error('no UnknownOptionError');
}

const bogus = { zzzzzzzzzzzz: 1 };
// Never connected: every check below fails before Redis is used.
const store = new RedisStore({ url: redisUrl() }) as Store;

/** Every option the library accepts has a row in the README's tables, and no row names an option that does not exist. */
describe('README option tables', () => {
  it.each([
    ['job options', '## Job options', () => void new Queue('q', { store, defaultJobOptions: bogus as object })],
    ['Queue options', '`new Queue(name, options)`', () => void new Queue('q', { store, ...bogus })],
    ['Worker options', '`new Worker(queue, handler, options)`', () => void new Worker('q', async () => undefined, { store, ...bogus })],
    ['RedisStore options', '`new RedisStore(connection, options)`', () => void new RedisStore({ url: redisUrl() }, bogus as object)],
  ])('%s', (_what, marker, build) => {
    const known = knownKeys(build);
    expect(known.length).toBeGreaterThan(0);
    expect([...tableOptions(marker)].sort()).toEqual([...known].sort());
  });

  it('throws the documented error for a bad argument, before anything is written', async () => {
    const add = new Queue('q', { store }).add('x', {}, { delay: -5 });
    await expect(add).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(add).rejects.toThrow('opts.delay is -5: it must be >= 0 ms');
    expect(README).toContain('`opts.delay is -5: it must be\n>= 0 ms`');
    expect(() => new Worker('q', async () => undefined, { store, concurency: 2 } as object as { store: Store })).toThrow(
      'Worker options.concurency is not an option: did you mean "concurrency"?',
    );
    expect(README).toContain('`Worker options.concurency is not an option: did you mean\n"concurrency"?`');
  });
});
