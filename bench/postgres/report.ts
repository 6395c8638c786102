import { percentile } from '../measure.js';
import { fmt, renderTable } from '../table.js';

/** What one timed phase cost per job: client round trips, and rows the database wrote (pg_stat_user_tables). */
export interface RowCost {
  readonly tripsPerJob: number;
  readonly insPerJob: number;
  readonly updPerJob: number;
  readonly delPerJob: number;
}

/** Everything one run measured; throughput and costs keyed `${row}/${contender}`. */
export interface PgResults {
  readonly jobs: number;
  /** Best jobs/s of the repeats. */
  readonly throughput: Map<string, number>;
  /** Add-to-start samples of every repeat, ms, sorted; `SELECT 1` is the floor (a round trip after the same pause). */
  readonly latency: Map<string, number[]>;
  /** Cost of the best repeat (the last one for latency). */
  readonly costs: Map<string, RowCost>;
  /** Spool on Redis: Redis commands per job (scripts' inner calls included), per row. */
  readonly redisCmds: Map<string, number>;
}

const PG = ['Spool', 'BullMQ', 'pg-boss'] as const;
const REDIS = 'Spool on Redis';

const LABELS: Record<string, string> = {
  'add-single': 'add one by one (100 in flight)',
  'add-bulk': 'bulk add (1,000 per call)',
  c1: 'process c1',
  c10: 'process c10',
  c100: 'process c100',
};

function ratio(a: number | undefined, b: number | undefined): string {
  return a !== undefined && b !== undefined && b > 0 ? fmt(a / b, 2) : '-';
}

function p(res: PgResults, who: string, q: number): number | undefined {
  const s = res.latency.get(who);
  return s && s.length ? percentile(s, q) : undefined;
}

/** One line per target with ok/MISS (`-`: not run): issue 38's goal for the Postgres store. */
function targets(res: PgResults): string {
  const t = (row: string, who: string) => res.throughput.get(`${row}/${who}`);
  const lines: { label: string; value: number | undefined; bound: number; cmp: '>=' | '<=' }[] = [
    { label: 'process c100, Spool/BullMQ (PostgreSQL)', value: div(t('c100', 'Spool'), t('c100', 'BullMQ')), bound: 1.5, cmp: '>=' },
    { label: 'process c100, Spool/pg-boss', value: div(t('c100', 'Spool'), t('c100', 'pg-boss')), bound: 1.5, cmp: '>=' },
    { label: 'add-to-start latency p50, Spool/BullMQ (PostgreSQL)', value: div(p(res, 'Spool', 50), p(res, 'BullMQ', 50)), bound: 1, cmp: '<=' },
    { label: 'add-to-start latency p50, Spool/pg-boss', value: div(p(res, 'Spool', 50), p(res, 'pg-boss', 50)), bound: 1, cmp: '<=' },
  ];
  const rows = lines.map((l) => {
    const verdict = l.value === undefined ? '-' : (l.cmp === '>=' ? l.value >= l.bound : l.value <= l.bound) ? 'ok' : 'MISS';
    return [l.label, fmt(l.value, 2), `${l.cmp} ${fmt(l.bound, 2)}`, verdict];
  });
  const ok = rows.filter((r) => r[3] === 'ok').length;
  const miss = rows.filter((r) => r[3] === 'MISS').length;
  return `Issue 38 targets (one run, one PostgreSQL): ${ok} ok, ${miss} MISS, ${rows.length - ok - miss} not measured\n${renderTable(['target', 'measured', 'bound', ''], rows)}`;
}

function div(a: number | undefined, b: number | undefined): number | undefined {
  return a !== undefined && b !== undefined && b > 0 ? a / b : undefined;
}

export function printPgReport(res: PgResults, rows: readonly string[]): void {
  const figures: string[][] = [];
  for (const row of rows) {
    if (row === 'latency') {
      for (const q of [50, 99]) {
        figures.push([
          `add-to-start latency p${q}, ms (lower is better; SELECT 1 floor ${fmt(p(res, 'SELECT 1', q), 2)})`,
          ...PG.map((who) => fmt(p(res, who, q), 2)),
          ratio(p(res, 'Spool', q), p(res, 'BullMQ', q)),
          ratio(p(res, 'Spool', q), p(res, 'pg-boss', q)),
          fmt(p(res, REDIS, q), 2),
        ]);
      }
      continue;
    }
    const get = (who: string) => res.throughput.get(`${row}/${who}`);
    figures.push([`${LABELS[row]}, jobs/s`, ...PG.map((who) => fmt(get(who))), ratio(get('Spool'), get('BullMQ')), ratio(get('Spool'), get('pg-boss')), fmt(get(REDIS))]);
  }
  console.log(`\nFigures (${fmt(res.jobs)} jobs; add one by one: half; PostgreSQL: one server, a fresh database per row and library)`);
  console.log(renderTable(['row', 'Spool (PG)', 'BullMQ (PG)', 'pg-boss', 'Spool/BullMQ', 'Spool/pg-boss', 'Spool on Redis'], figures));

  const costs: string[][] = [];
  for (const row of rows) {
    const cells = PG.map((who) => {
      const c = res.costs.get(`${row}/${who}`);
      return c ? `${fmt(c.tripsPerJob, 2)} | ${fmt(c.insPerJob, 2)}/${fmt(c.updPerJob, 2)}/${fmt(c.delPerJob, 2)}` : '-';
    });
    costs.push([LABELS[row] ?? 'latency (one job at a time)', ...cells, fmt(res.redisCmds.get(row), 2)]);
  }
  console.log('\nCost per job: client round trips | rows inserted/updated/deleted (pg_stat_user_tables); Spool on Redis: Redis commands');
  console.log(renderTable(['row', 'Spool (PG)', 'BullMQ (PG)', 'pg-boss', 'Spool on Redis'], costs));
  console.log(`\n${targets(res)}`);
}
