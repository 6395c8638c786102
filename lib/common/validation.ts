import { InvalidArgumentError, UnknownOptionError, type UnknownKey } from './errors.js';

/**
 * Argument checks every layer uses (engine, store, Nest module): each throws
 * a typed error naming the field and, where one helps, the fix.
 */

/**
 * What to write instead of a key an options object does not take, by key:
 * mostly the BullMQ names a migrating user types (lib/common/option-hints.ts).
 * A function gets the whole object, to build the fix from its values.
 */
export type OptionHints = Readonly<Record<string, string | ((options: Readonly<Record<string, unknown>>) => string)>>;

/**
 * The one check for an options object: a plain object whose keys are all in
 * `known` (typed against the options type, so a renamed option fails to compile).
 */
export function checkOptions<T extends object>(value: unknown, known: readonly (keyof T & string)[], field: string, hints?: OptionHints): asserts value is Record<string, unknown> {
  assertPlainObject(value, field);
  assertKnownKeys(value, known, field, hints);
}

/** Rejects the unknown keys of an options object, all of them in one error, each with a did-you-mean or its hint. */
export function assertKnownKeys(value: object, known: readonly string[], field: string, hints?: OptionHints): void {
  const unknown = unknownKeys(value, known, field, hints);
  if (unknown.length === 0) return;
  // NOTE: an instance (a store, a queue) where the options belong is one slip, not a dozen unknown keys.
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    const store = typeof (value as { connect?: unknown }).connect === 'function' && known.includes('store');
    throw new InvalidArgumentError(field, `must be an options object, got ${describe(value)}`, store ? 'pass the store inside it: { store }' : undefined);
  }
  throw new UnknownOptionError(unknown);
}

/** The unknown keys of an options object (for checks that gather them over nested objects before throwing). */
export function unknownKeys(value: object, known: readonly string[], field: string, hints: OptionHints = {}): UnknownKey[] {
  const found: UnknownKey[] = [];
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const hint = Object.hasOwn(hints, key) ? hints[key] : undefined;
    const text = typeof hint === 'function' ? hint(value as Record<string, unknown>) : hint;
    found.push({ field: `${field}.${key}`, known, ...(text !== undefined && { hint: text }) });
  }
  return found;
}

export function assertPlainObject(value: unknown, field: string): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(field, `must be an object, got ${describe(value)}`);
  }
}

/** Most keys an object's description names. */
const KEYS_SHOWN = 6;
/** Longest string quoted whole in a description. */
const STRING_SHOWN = 40;

/**
 * A wrong value in a few words, for error messages: its type and a short
 * preview (`"abc"`, `42`, `an array of 3 items`, `an object with keys name,
 * store`, `a RedisStore`), never its serialisation: a store or a request
 * passed by mistake would put kilobytes (and maybe secrets) in the message.
 */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'undefined':
      return 'undefined';
    case 'string':
      return value.length > STRING_SHOWN ? `"${value.slice(0, STRING_SHOWN)}..." (${value.length} characters)` : `"${value}"`;
    case 'number':
    case 'boolean':
      return String(value);
    case 'bigint':
      return `${value}n (a BigInt)`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return /^class[\s{]/.test(Function.prototype.toString.call(value)) ? `the class ${value.name || '(anonymous)'}` : `a function${value.name ? ` (${value.name})` : ''}`;
  }
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'an invalid Date' : `a Date (${value.toISOString()})`;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== null && proto !== Object.prototype) {
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof name === 'string' && name !== '' && name !== 'Object') return `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}`;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return 'an empty object';
  const shown = keys.slice(0, KEYS_SHOWN).map((k) => (k.length > STRING_SHOWN ? `${k.slice(0, STRING_SHOWN)}...` : k));
  return `an object with key${keys.length === 1 ? '' : 's'} ${shown.join(', ')}${keys.length > KEYS_SHOWN ? ` and ${keys.length - KEYS_SHOWN} more` : ''}`;
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
