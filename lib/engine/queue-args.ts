import { InvalidArgumentError } from './errors.js';
import { assertKnownKeys, assertPlainObject } from './options.js';

/** Checks the options of pause() / resume(): undefined for the whole queue, else the job names. */
export function pauseNames(options: { readonly names?: readonly string[] } | undefined, method: string): readonly string[] | undefined {
  if (options === undefined) return undefined;
  assertPlainObject(options, `${method}() options`);
  assertKnownKeys(options, ['names'], `${method}() options`);
  const { names } = options;
  if (names === undefined) return undefined;
  if (!Array.isArray(names) || names.length === 0 || names.some((n) => typeof n !== 'string' || n.length === 0)) {
    throw new InvalidArgumentError(`${method}() options.names`, 'must be a non-empty array of job names');
  }
  return names;
}

export function groupArg(group: unknown): string {
  if (typeof group !== 'string' || group.length === 0) throw new InvalidArgumentError('group', 'must be a non-empty group id');
  return group;
}
