import { InvalidArgumentError } from './errors.js';

/**
 * JSON that survives the trip: checks a value before it is stored and names
 * the first part JSON would drop or change, so a payload never arrives at a
 * worker different from what the producer passed.
 * Accepted: null, booleans, finite numbers, strings, arrays, objects (own
 * enumerable properties), and objects with toJSON (Date becomes its ISO string).
 */
export function assertJsonSafe(value: unknown, field: string): void {
  walk(value, field, new Set());
}

function walk(value: unknown, path: string, seen: Set<object>): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return;
    case 'number':
      if (!Number.isFinite(value)) {
        throw new InvalidArgumentError(path, `is ${value}, which JSON turns into null`, 'send a finite number or null');
      }
      return;
    case 'bigint':
      throw new InvalidArgumentError(path, 'is a BigInt, which JSON cannot carry', 'send it as a string (value.toString())');
    case 'function':
    case 'symbol':
      throw new InvalidArgumentError(path, `is a ${typeof value}, which JSON cannot carry`, 'send plain data');
  }
  if (value === null) return;
  const object = value as object;
  if (seen.has(object)) {
    throw new InvalidArgumentError(path, 'refers back to itself (a cycle), which JSON cannot carry', 'send a tree of plain data');
  }
  if (typeof (object as { toJSON?: unknown }).toJSON === 'function' && !ArrayBuffer.isView(object)) {
    walk((object as { toJSON: () => unknown }).toJSON(), path, seen);
    return;
  }
  const kind = unsupportedKind(object);
  if (kind) {
    throw new InvalidArgumentError(path, `is a ${kind}, which JSON turns into something else`, fixFor(kind));
  }
  seen.add(object);
  if (Array.isArray(object)) {
    object.forEach((item, i) => walk(item, `${path}[${i}]`, seen));
  } else {
    for (const [key, item] of Object.entries(object)) walk(item, `${path}.${key}`, seen);
  }
  seen.delete(object);
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
