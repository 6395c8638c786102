import { markPostgresRun } from './store-kind.js';

// Imported first by the files of test/postgres-suites: from here on the specs they import are collected for PostgreSQL.
markPostgresRun();
