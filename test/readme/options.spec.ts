import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Queue, RedisStore, UnknownOptionError, Worker } from '../../lib/index.js';
import type { Store } from '../../lib/store/index.js';
import { redisUrl } from '../helpers/store.js';

const JOBS = readFileSync(new URL('../../docs/guide/jobs.md', import.meta.url), 'utf8');
const OPTIONS = readFileSync(new URL('../../docs/reference/options.md', import.meta.url), 'utf8');

/** The backticked names in the first column of the first table after `marker`. */
function tableOptions(text: string, marker: string): Set<string> {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`no "${marker}" in the docs page`);
  const lines = text.slice(at).split('\n');
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

/** Every option the library accepts has a row in the option tables (docs/guide/jobs.md, docs/reference/options.md), and no row names an option that does not exist. */
describe('README option tables', () => {
  it.each([
    ['job options', JOBS, '## Job options', () => void new Queue('q', { store, defaultJobOptions: bogus as object })],
    ['Queue options', OPTIONS, '`new Queue(name, options)`', () => void new Queue('q', { store, ...bogus })],
    ['Worker options', OPTIONS, '`new Worker(queue, handler, options)`', () => void new Worker('q', async () => undefined, { store, ...bogus })],
    ['RedisStore options', OPTIONS, '`new RedisStore({ url, ...options })`', () => void new RedisStore({ url: redisUrl() }, bogus as object)],
  ])('%s', (_what, text, marker, build) => {
    const known = knownKeys(build);
    expect(known.length).toBeGreaterThan(0);
    expect([...tableOptions(text, marker)].sort()).toEqual([...known].sort());
  });

  it('throws the documented error for a bad argument, before anything is written', async () => {
    const add = new Queue('q', { store }).add('x', {}, { delay: -5 });
    await expect(add).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(add).rejects.toThrow('opts.delay is -5: it must be >= 0 ms');
    expect(JOBS).toContain('`opts.delay is -5: it must be\n>= 0 ms`');
    expect(() => new Worker('q', async () => undefined, { store, concurency: 2 } as object as { store: Store })).toThrow(
      'Worker options.concurency is not an option: did you mean "concurrency"?',
    );
    expect(OPTIONS).toContain('`Worker options.concurency is not an option: did you mean\n"concurrency"?`');
  });
});
