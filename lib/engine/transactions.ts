import { checkOptions, describe } from '../common/validation.js';
import { ShardedStore } from '../store/sharded-store.js';
import type { Store } from '../store/store.js';
import type { EnqueueOptions, TransactionClient } from '../store/transaction.js';
import { InvalidArgumentError, TransactionalEnqueueUnsupportedError } from './errors.js';

/**
 * The caller's transaction client of an add, checked: undefined without
 * `{ tx }`; refused when it is no client, or when the store cannot write in
 * it (`needs`: the Store method the call will use).
 */
export function transactionOf(
  options: EnqueueOptions | undefined,
  store: Store,
  queue: string,
  needs: 'addInTransaction' | 'addFlowInTransaction' = 'addInTransaction',
  field = 'options',
): TransactionClient | undefined {
  if (options === undefined) return undefined;
  checkOptions<EnqueueOptions>(options, ['tx'], field);
  const tx: unknown = options.tx;
  if (tx === undefined) return undefined;
  if (!isClient(tx)) {
    throw new InvalidArgumentError(`${field}.tx`, `must be a node-postgres client inside your open transaction, got ${describe(tx)}`, 'pass the client you called BEGIN on');
  }
  if (store instanceof ShardedStore) throw new TransactionalEnqueueUnsupportedError(`${field}.tx`, queue, 'sharded');
  if (typeof store[needs] !== 'function') {
    const outboxOnly = needs === 'addFlowInTransaction' && typeof store.addInTransaction === 'function';
    throw new TransactionalEnqueueUnsupportedError(`${field}.tx`, queue, outboxOnly ? 'flow-outbox' : 'store');
  }
  return tx;
}

function isClient(tx: unknown): tx is TransactionClient {
  return typeof tx === 'object' && tx !== null && typeof (tx as { query?: unknown }).query === 'function';
}
