import { checkOptions } from '../common/validation.js';
import { ShardedStore } from '../store/sharded-store.js';
import type { Store } from '../store/store.js';
import type { EnqueueOptions, TransactionClient } from '../store/transaction.js';
import { transactionClientOf } from '../store/transaction-handles.js';
import { TransactionalEnqueueUnsupportedError } from './errors.js';

/**
 * The caller's transaction client of an add, checked: undefined without
 * `{ tx }`, as the client the store writes with; refused when it is no open
 * transaction, or when the store cannot write in it (`needs`: the Store
 * method the call will use).
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
  // node-postgres, TypeORM and Prisma handles all become one `query(text, values)` client (lib/store/transaction-handles.ts).
  const client = transactionClientOf(tx, `${field}.tx`);
  if (store instanceof ShardedStore) throw new TransactionalEnqueueUnsupportedError(`${field}.tx`, queue, 'sharded');
  if (typeof store[needs] !== 'function') {
    const outboxOnly = needs === 'addFlowInTransaction' && typeof store.addInTransaction === 'function';
    throw new TransactionalEnqueueUnsupportedError(`${field}.tx`, queue, outboxOnly ? 'flow-outbox' : 'store');
  }
  return client;
}
