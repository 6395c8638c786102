import { CEILINGS } from './ceilings.js';
import type { Results } from './results.js';
import { fmt, renderTable } from './table.js';

/** One target: what is measured, the bound, and which side of it passes (`>`/`<`: strictly ahead). */
interface Target {
  readonly label: string;
  readonly value: number | undefined;
  readonly bound: number;
  readonly cmp: '>=' | '<=' | '>' | '<';
  readonly digits?: number;
}

const RETENTIONS = ['kept', 'removed'] as const;

function speedRatio(res: Results, key: string, other: string): number | undefined {
  const s = res.get(key, 'Spool');
  const o = res.get(key, other);
  return s && o ? s.perSec / o.perSec : undefined;
}

function latencyRatio(res: Results, p: number, other: string): number | undefined {
  const s = res.latency('Spool', p);
  const o = res.latency(other, p);
  return s !== undefined && o !== undefined ? s / o : undefined;
}

/** How many times the ceiling's ops/s is Spool's jobs/s on a row (1.0: at the ceiling). */
export function ceilingRatio(res: Results, ceiling: string, key: string, contender = 'Spool'): number | undefined {
  const c = res.get('ceiling', ceiling);
  const s = res.get(key, contender);
  return c && s ? c.perSec / s.perSec : undefined;
}

/** Issue 39's targets: ahead of bee-queue on every row, the BullMQ bounds, within 1.3x of the raw ceilings. */
function issue39(res: Results): Target[] {
  const t: Target[] = [
    { label: 'add-to-start latency p50, Spool/bee-queue', value: latencyRatio(res, 50, 'bee-queue'), bound: 1, cmp: '<' },
    { label: 'add-to-start latency p99, Spool/bee-queue', value: latencyRatio(res, 99, 'bee-queue'), bound: 1, cmp: '<' },
    { label: 'add one by one, Spool/bee-queue', value: speedRatio(res, 'add-single', 'bee-queue'), bound: 1, cmp: '>' },
    { label: 'bulk add, Spool/bee-queue', value: speedRatio(res, 'add-bulk', 'bee-queue'), bound: 1, cmp: '>' },
  ];
  for (const c of ['c1', 'c10', 'c100']) {
    for (const retention of RETENTIONS) {
      t.push({ label: `process ${c} ${retention}, Spool/bee-queue`, value: speedRatio(res, `${c}-${retention}`, 'bee-queue'), bound: 1, cmp: '>' });
    }
  }
  t.push({ label: 'bulk add, Spool/BullMQ', value: speedRatio(res, 'add-bulk', 'BullMQ'), bound: 4, cmp: '>=' });
  t.push({ label: 'add-to-start latency p50, Spool/BullMQ', value: latencyRatio(res, 50, 'BullMQ'), bound: 0.5, cmp: '<=' });
  t.push({ label: `add one by one: ceiling (${CEILINGS.setInFlight}) / Spool`, value: ceilingRatio(res, CEILINGS.setInFlight, 'add-single'), bound: 1.3, cmp: '<=' });
  t.push({ label: `bulk add: ceiling (${CEILINGS.setPipelined}) / Spool`, value: ceilingRatio(res, CEILINGS.setPipelined, 'add-bulk'), bound: 1.3, cmp: '<=' });
  return t;
}

/** Issue 20's targets (earlier; kept while they still hold as floors). */
function issue20(res: Results): Target[] {
  const t: Target[] = [];
  for (const retention of RETENTIONS) {
    t.push({ label: `process c100 ${retention}, Spool/BullMQ`, value: speedRatio(res, `c100-${retention}`, 'BullMQ'), bound: 2.5, cmp: '>=' });
    t.push({ label: `process c100 ${retention}, Spool/bee-queue`, value: speedRatio(res, `c100-${retention}`, 'bee-queue'), bound: 1.5, cmp: '>=' });
    t.push({ label: `process c10 ${retention}, Spool/BullMQ`, value: speedRatio(res, `c10-${retention}`, 'BullMQ'), bound: 2, cmp: '>=' });
    t.push({ label: `process c1 ${retention}, Spool/BullMQ`, value: speedRatio(res, `c1-${retention}`, 'BullMQ'), bound: 1.5, cmp: '>=' });
  }
  t.push({ label: 'add one by one (100 in flight), Spool/BullMQ', value: speedRatio(res, 'add-single', 'BullMQ'), bound: 2, cmp: '>=' });
  for (const retention of RETENTIONS) {
    t.push({ label: `Redis commands per job, add + claim + complete, c100 ${retention}`, value: res.commandsPerJob('Spool', retention), bound: 12, cmp: '<=', digits: 1 });
  }
  const ms = res.memory.get('Spool');
  const mb = res.memory.get('BullMQ');
  t.push({ label: 'Redis memory per waiting job, Spool/BullMQ', value: ms !== undefined && mb !== undefined ? ms / mb : undefined, bound: 1, cmp: '<=' });
  const on = res.get('events-on', 'Spool');
  const off = res.get('events-off', 'Spool');
  t.push({ label: 'process c100, event stream on/off', value: on && off ? on.perSec / off.perSec : undefined, bound: 0.85, cmp: '>=' });
  return t;
}

function passes(t: Target, value: number): boolean {
  switch (t.cmp) {
    case '>=':
      return value >= t.bound;
    case '<=':
      return value <= t.bound;
    case '>':
      return value > t.bound;
    case '<':
      return value < t.bound;
  }
}

function render(targets: readonly Target[]): string {
  const rows = targets.map((t) => {
    const digits = t.digits ?? 2;
    const verdict = t.value === undefined ? '-' : passes(t, t.value) ? 'ok' : 'MISS';
    return [t.label, fmt(t.value, digits), `${t.cmp} ${fmt(t.bound, digits)}`, verdict];
  });
  return renderTable(['target', 'measured', 'bound', ''], rows);
}

/** The target tables, one line per bound, ok or MISS (rows not run: "-"), and the count of misses. */
export function targetTables(res: Results): string {
  const now = issue39(res);
  const misses = now.filter((t) => t.value !== undefined && !passes(t, t.value)).length;
  const unmeasured = now.filter((t) => t.value === undefined).length;
  return [
    `Issue 39 targets (one run, one Redis): ${now.length - misses - unmeasured} ok, ${misses} MISS, ${unmeasured} not measured\n` + render(now),
    'Issue 20 targets (earlier):\n' + render(issue20(res)),
  ].join('\n\n');
}
