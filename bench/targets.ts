import type { Results } from './results.js';
import { fmt, renderTable } from './table.js';

/** One target of issue 20: what is measured, the bound, and which side of it passes. */
interface Target {
  readonly label: string;
  readonly value: number | undefined;
  readonly bound: number;
  readonly atMost?: boolean;
  readonly digits?: number;
}

function speedRatio(res: Results, key: string, other: string): number | undefined {
  const s = res.get(key, 'Spool');
  const o = res.get(key, other);
  return s && o ? s.perSec / o.perSec : undefined;
}

/** The target table, one line per bound, ok or MISS (rows not run: "-"). */
export function targetTable(res: Results): string {
  const targets: Target[] = [];
  for (const retention of ['kept', 'removed']) {
    targets.push({ label: `process c100 ${retention}, Spool/BullMQ`, value: speedRatio(res, `c100-${retention}`, 'BullMQ'), bound: 2.5 });
    targets.push({ label: `process c100 ${retention}, Spool/bee-queue`, value: speedRatio(res, `c100-${retention}`, 'bee-queue'), bound: 1.5 });
    targets.push({ label: `process c10 ${retention}, Spool/BullMQ`, value: speedRatio(res, `c10-${retention}`, 'BullMQ'), bound: 2 });
    targets.push({ label: `process c1 ${retention}, Spool/BullMQ`, value: speedRatio(res, `c1-${retention}`, 'BullMQ'), bound: 1.5 });
  }
  targets.push({ label: 'add one by one (100 in flight), Spool/BullMQ', value: speedRatio(res, 'add-single', 'BullMQ'), bound: 2 });
  targets.push({ label: 'bulk add, Spool/BullMQ', value: speedRatio(res, 'add-bulk', 'BullMQ'), bound: 4 });
  const p50s = res.latency('Spool', 50);
  const p50b = res.latency('BullMQ', 50);
  targets.push({ label: 'add-to-start latency p50, Spool/BullMQ', value: p50s !== undefined && p50b !== undefined ? p50s / p50b : undefined, bound: 0.5, atMost: true });
  for (const retention of ['kept', 'removed']) {
    targets.push({ label: `Redis commands per job, add + claim + complete, c100 ${retention}`, value: res.commandsPerJob('Spool', retention), bound: 12, atMost: true, digits: 1 });
  }
  const ms = res.memory.get('Spool');
  const mb = res.memory.get('BullMQ');
  targets.push({ label: 'Redis memory per waiting job, Spool/BullMQ', value: ms !== undefined && mb !== undefined ? ms / mb : undefined, bound: 1, atMost: true });
  const on = res.get('events-on', 'Spool');
  const off = res.get('events-off', 'Spool');
  targets.push({ label: 'process c100, event stream on/off', value: on && off ? on.perSec / off.perSec : undefined, bound: 0.85 });

  const rows = targets.map((t) => {
    const digits = t.digits ?? 2;
    const verdict = t.value === undefined ? '-' : (t.atMost ? t.value <= t.bound : t.value >= t.bound) ? 'ok' : 'MISS';
    return [t.label, fmt(t.value, digits), `${t.atMost ? '<=' : '>='} ${fmt(t.bound, digits)}`, verdict];
  });
  return renderTable(['target', 'measured', 'bound', ''], rows);
}
