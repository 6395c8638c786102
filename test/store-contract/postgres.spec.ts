import type { Store } from '../../lib/store/index.js';
import { testPostgresStore, usePostgresServer } from '../helpers/postgres.js';
import { storeContract } from './contract.js';

const server = usePostgresServer();

storeContract('PostgresStore', () => testPostgresStore(server()), (store: Store) => store.disconnect());
