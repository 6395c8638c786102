import type { RedisStore, Store } from '../../lib/index.js';
import { testStore } from '../helpers/store.js';
import { storeContract } from './contract.js';

storeContract('RedisStore', () => testStore(), (store: Store) => (store as RedisStore).disconnect());
