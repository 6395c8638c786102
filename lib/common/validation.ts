import { InvalidArgumentError, UnknownOptionError } from './errors.js';

/**
 * Argument checks every layer uses (engine, store, Nest module): each throws
 * a typed error naming the field and, where one helps, the fix.
 */

/**
 * The one check for an options object: a plain object whose keys are all in
 * `known` (typed against the options type, so a renamed option fails to compile).
 */
export function checkOptions<T extends object>(value: unknown, known: readonly (keyof T & string)[], field: string): asserts value is Record<string, unknown> {
  assertPlainObject(value, field);
  assertKnownKeys(value, known, field);
}

/** Rejects unknown keys of an options object, with a did-you-mean. */
export function assertKnownKeys(value: object, known: readonly string[], field: string): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new UnknownOptionError(`${field}.${key}`, known);
  }
}

export function assertPlainObject(value: unknown, field: string): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(field, `must be an object, got ${describe(value)}`);
  }
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"`;
  if (typeof value === 'object') return 'an object';
  return String(value);
}

export function nonNegativeNumber(value: unknown, field: string, unit = 'ms'): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InvalidArgumentError(field, `must be a number of ${unit}, got ${describe(value)}`);
  }
  if (value < 0) throw new InvalidArgumentError(field, `is ${value}: it must be >= 0 ${unit}`);
  return value;
}

export function positiveInteger(value: unknown, field: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new InvalidArgumentError(field, `must be an integer from 1 to ${max}, got ${describe(value)}`);
  }
  return value;
}
