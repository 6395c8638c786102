import type { RedisStore } from '../../lib/index.js';
import type { Store } from '../../lib/store/index.js';
import { testStore } from '../helpers/store.js';
import { storeContract } from './contract.js';

storeContract('RedisStore', () => testStore(), (store: Store) => (store as RedisStore).disconnect());
