import { InvalidArgumentError } from './errors.js';
import { assertKnownKeys, assertPlainObject, describe } from './options.js';

/** A slice of one state's jobs, oldest first: inclusive positions, end -1 = the last. */
export interface JobsPage {
  /** Default 0. */
  readonly start?: number;
  /** Default start + 99 (a page of 100). -1 reads to the end. */
  readonly end?: number;
}

export const DEFAULT_PAGE_SIZE = 100;

function position(value: unknown, field: string, allowLast: boolean): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < (allowLast ? -1 : 0)) {
    throw new InvalidArgumentError(field, `must be a whole number >= ${allowLast ? '-1 (-1 = the last job)' : '0'}, got ${describe(value)}`);
  }
  return value;
}

/** getJobs(state, { start, end }) or the older getJobs(state, start, end), as inclusive positions. */
export function resolvePage(page: JobsPage | number | undefined, end: number | undefined): { start: number; end: number } {
  if (typeof page === 'number' || page === undefined) {
    const start = page === undefined ? 0 : position(page, 'getJobs start', false);
    return { start, end: end === undefined ? start + DEFAULT_PAGE_SIZE - 1 : position(end, 'getJobs end', true) };
  }
  assertPlainObject(page, 'getJobs page');
  assertKnownKeys(page, ['start', 'end'], 'getJobs page');
  const start = page.start === undefined ? 0 : position(page.start, 'getJobs page.start', false);
  const last = page.end === undefined ? start + DEFAULT_PAGE_SIZE - 1 : position(page.end, 'getJobs page.end', true);
  if (last !== -1 && last < start) throw new InvalidArgumentError('getJobs page.end', `(${last}) is before start (${start})`);
  return { start, end: last };
}
