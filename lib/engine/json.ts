import { InvalidArgumentError } from './errors.js';

/**
 * JSON that survives the trip: checks a value before it is stored and names
 * the first part JSON would drop or change, so a payload never arrives at a
 * worker different from what the producer passed.
 * Accepted: null, booleans, finite numbers, strings, arrays, objects (own
 * enumerable properties), and objects with toJSON (Date becomes its ISO string).
 */
export function assertJsonSafe(value: unknown, field: string): void {
  if (!isFlat(value)) walk(value, field, [], []);
}

/**
 * A primitive JSON keeps, or a plain object of them: most payloads, checked
 * here without the walk's stacks (a bulk add checks one per job). Anything
 * else, valid or not, is left to the walk, which names what is wrong.
 */
function isFlat(value: unknown): boolean {
  if (!isSafePrimitive(value)) {
    if (typeof value !== 'object' || value === null) return false;
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    const record = value as Record<string, unknown>;
    for (const key in record) {
      if (Object.prototype.hasOwnProperty.call(record, key) && !isSafePrimitive(record[key])) return false;
    }
  }
  return true;
}

function isSafePrimitive(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      return value === null;
    default:
      return false;
  }
}

/**
 * `keys` is the way down from `field` and `seen` the objects on it (a cycle
 * returns to one of them): both are stacks, and the path is spelled out only
 * for an error, so checking a valid payload builds no strings (every job's
 * data is checked on add).
 */
function walk(value: unknown, field: string, keys: (string | number)[], seen: object[]): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return;
    case 'number':
      if (!Number.isFinite(value)) {
        throw new InvalidArgumentError(pathOf(field, keys), `is ${value}, which JSON turns into null`, 'send a finite number or null');
      }
      return;
    case 'bigint':
      throw new InvalidArgumentError(pathOf(field, keys), 'is a BigInt, which JSON cannot carry', 'send it as a string (value.toString())');
    case 'function':
    case 'symbol':
      throw new InvalidArgumentError(pathOf(field, keys), `is a ${typeof value}, which JSON cannot carry`, 'send plain data');
  }
  if (value === null) return;
  const object = value as object;
  if (seen.includes(object)) {
    throw new InvalidArgumentError(pathOf(field, keys), 'refers back to itself (a cycle), which JSON cannot carry', 'send a tree of plain data');
  }
  if (typeof (object as { toJSON?: unknown }).toJSON === 'function' && !ArrayBuffer.isView(object)) {
    walk((object as { toJSON: () => unknown }).toJSON(), field, keys, seen);
    return;
  }
  const array = Array.isArray(object);
  const proto: unknown = Object.getPrototypeOf(object);
  // Plain objects and arrays (nearly every payload) skip the instanceof checks.
  const kind = array || proto === Object.prototype || proto === null ? undefined : unsupportedKind(object);
  if (kind) {
    throw new InvalidArgumentError(pathOf(field, keys), `is a ${kind}, which JSON turns into something else`, fixFor(kind));
  }
  seen.push(object);
  if (array) {
    const items = object as unknown[];
    for (let i = 0; i < items.length; i++) {
      keys.push(i);
      walk(items[i], field, keys, seen);
      keys.pop();
    }
  } else {
    const record = object as Record<string, unknown>;
    // Own enumerable string keys, in the order Object.entries (and JSON.stringify) use.
    for (const key in record) {
      if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
      keys.push(key);
      walk(record[key], field, keys, seen);
      keys.pop();
    }
  }
  seen.pop();
}

function pathOf(field: string, keys: readonly (string | number)[]): string {
  let path = field;
  for (const key of keys) path += typeof key === 'number' ? `[${key}]` : `.${key}`;
  return path;
}

function unsupportedKind(object: object): string | undefined {
  if (object instanceof Map) return 'Map';
  if (object instanceof Set) return 'Set';
  if (object instanceof WeakMap || object instanceof WeakSet) return 'WeakMap/WeakSet';
  if (object instanceof RegExp) return 'RegExp';
  if (object instanceof Promise) return 'Promise';
  if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) return 'binary buffer';
  return undefined;
}

function fixFor(kind: string): string {
  switch (kind) {
    case 'Map':
      return 'send Object.fromEntries(map)';
    case 'Set':
      return 'send [...set]';
    case 'binary buffer':
      return 'send it base64-encoded, or store it elsewhere and pass a reference';
    case 'Promise':
      return 'await it first';
    default:
      return 'send plain data';
  }
}

/** JSON.stringify after assertJsonSafe; `undefined` is stored as null. */
export function encodeJson(value: unknown, field: string): string {
  assertJsonSafe(value, field);
  return JSON.stringify(value === undefined ? null : value);
}
