import type { Store } from '../../lib/store/index.js';
import { MemoryStore } from '../../lib/testing/index.js';
import { storeContract } from './contract.js';

storeContract('MemoryStore', async () => new MemoryStore(), (store: Store) => store.disconnect());
