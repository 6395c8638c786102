/**
 * Which store the shared specs of this test file run on. The files of
 * test/postgres-suites import './postgres-run' first (imports run in order,
 * before any describe/it of the specs they import is collected), so a case can
 * be declared Redis-only at collection time, not in a beforeAll that runs too late.
 */
let kind: 'redis' | 'postgres' = 'redis';

export function markPostgresRun(): void {
  kind = 'postgres';
}

export function storeKind(): 'redis' | 'postgres' {
  return kind;
}

type Case = (name: string, fn: jest.ProvidesCallback, timeout?: number) => void;

/**
 * `it` for a case that checks Redis itself (keys a script wrote, the stream
 * entry format, the Redis clock): on a PostgreSQL run it is reported as
 * skipped, with the reason in its name, never run against a store it cannot check.
 */
export function redisOnly(reason: string): Case {
  if (kind === 'redis') return it;
  return (name, fn, timeout) => it.skip(`${name} [Redis-only: ${reason}]`, fn, timeout);
}
