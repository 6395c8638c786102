import * as spool from '../../lib/index.js';
import * as testing from '../../lib/testing/index.js';
import { docTable } from '../helpers/readme-table.js';

/** The right-hand cells of the migration tables: the API side by side, and the Nest module's (from @nestjs/bullmq, from @nestjs/bull). */
const spoolCells = (): string[] =>
  [
    docTable('docs/migrating/bullmq-api.md', '# Coming from @nestjs/bullmq'),
    docTable('docs/migrating/from-nestjs-bullmq.md', '## From @nestjs/bullmq (BullMQ)'),
    docTable('docs/migrating/from-nestjs-bullmq.md', '## From @nestjs/bull (Bull 3 and 4)'),
  ].flatMap((rows) => rows.map((row) => row[1] ?? ''));

const exported = (name: string): unknown => (spool as Record<string, unknown>)[name] ?? (testing as Record<string, unknown>)[name];
const callable = (value: unknown): boolean => typeof value === 'function';

/**
 * What a backticked name in the Spool column claims, checked against the
 * library: `@Decorator(...)`, `Export.method(...)`, `queue.method(...)`,
 * `job.method(...)` (an ActiveJob's), `job.field` and `Export`. Option names
 * and code fragments are left to the option tables' own test.
 */
function check(token: string): string | undefined {
  let m = /^@([A-Z]\w*)\(/.exec(token);
  if (m) return callable(exported(m[1]!)) ? undefined : `${m[1]} is not an exported decorator`;
  m = /^([A-Z]\w*)\.(\w+)\(/.exec(token);
  if (m) return callable((exported(m[1]!) as Record<string, unknown> | undefined)?.[m[2]!]) ? undefined : `${m[1]}.${m[2]} is not a function`;
  m = /^queue\.(\w+)\(/.exec(token);
  if (m) return callable((spool.Queue.prototype as unknown as Record<string, unknown>)[m[1]!]) ? undefined : `Queue has no method ${m[1]}`;
  m = /^job\.(\w+)(\()?/.exec(token);
  if (m) {
    const proto = spool.ActiveJob.prototype as unknown as Record<string, unknown>;
    return m[1]! in proto ? undefined : `ActiveJob has no ${m[1]}`;
  }
  m = /^([A-Z]\w*)$/.exec(token);
  if (m) return exported(m[1]!) !== undefined ? undefined : `${m[1]} is not exported from spool or spool/testing`;
  return 'unchecked';
}

describe('README "Coming from @nestjs/bullmq"', () => {
  it('names only what the library has', () => {
    const tokens = spoolCells().flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)].map((t) => t[1]!));
    const results = tokens.map((token) => [token, check(token)] as const);
    const checked = results.filter(([, problem]) => problem !== 'unchecked');
    expect(checked.length).toBeGreaterThanOrEqual(25);
    expect(checked.filter(([, problem]) => problem !== undefined)).toEqual([]);
  });

  it('its checks fail on a name the library does not have', () => {
    expect(check('queue.getJobCounts()')).toBe('Queue has no method getJobCounts');
    expect(check('@QueueEventsListener(')).toBe('QueueEventsListener is not an exported decorator');
    expect(check('BullModule.forRoot()')).toBe('BullModule.forRoot is not a function');
    expect(check('job.moveToCompleted()')).toBe('ActiveJob has no moveToCompleted');
  });
});
