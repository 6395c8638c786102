import { createHash } from 'node:crypto';
import { describe } from '../common/validation.js';
import { SpoolBootstrapError } from './errors.js';
import { checkConnectionOptions, type SpoolConnectionOptions } from './module-options.js';
import { DEFAULT_CONNECTION } from './tokens.js';

/**
 * What a registration's `connection` option names: a connection of
 * QueueModule.forRoot by name, or a connection given inline (BullMQ's
 * `registerQueue({ name, connection: { ... } })`), with the name the module
 * generates for it. The one place that tells the two apart; the shapes an
 * inline connection may take are module-options.ts's (checkConnectionOptions).
 */
export interface ConnectionRef {
  readonly name: string;
  /** Set for an inline connection: the options its store is built from. */
  readonly inline?: SpoolConnectionOptions;
}

/** Clients have no value to hash: each client object gets a number of its own, for as long as it lives. */
const clientIds = new WeakMap<object, number>();
let nextClientId = 1;

/**
 * Reads a `connection` option: undefined is the default connection, a string
 * a named one, an object an inline connection (checked like forRoot's).
 */
export function connectionRef(value: unknown, field: string): ConnectionRef {
  if (value === undefined) return { name: DEFAULT_CONNECTION };
  if (typeof value === 'string' && value.length > 0) return { name: value };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SpoolBootstrapError(field, `must be the name of a connection of QueueModule.forRoot({ connections }) or a connection object ({ url }), got ${describe(value)}`);
  }
  checkConnectionOptions(value, field);
  return { name: inlineName(value as SpoolConnectionOptions), inline: value as SpoolConnectionOptions };
}

/**
 * A stable name for an inline connection: the same options give the same
 * name (so two registrations of one server share one store), different ones
 * differ; a client object counts by identity.
 */
export function inlineName(options: SpoolConnectionOptions): string {
  const stable = JSON.stringify(options, (_key, v: unknown) => {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) {
        let id = clientIds.get(v);
        if (id === undefined) clientIds.set(v, (id = nextClientId++));
        return `client#${id}`;
      }
      return Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)));
    }
    return v;
  });
  return `inline:${createHash('sha256').update(stable).digest('hex').slice(0, 12)}`;
}

/** The store of a queue with a prefix of its own: its connection's, under that prefix. */
export function prefixedName(connection: string, prefix: string): string {
  return `${connection}#${prefix}`;
}
