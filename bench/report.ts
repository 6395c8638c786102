import { CONTENDERS, FLOOR, type Results } from './results.js';
import { fmt, renderTable } from './table.js';
import { CEILINGS } from './ceilings.js';
import { HANDLER_ROWS, handlerBound, handlerJobs } from './handlers.js';
import { ceilingRatio, targetTables } from './targets.js';

const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined ? a / b : undefined);

/** The figures table (every contender, ratios of Spool to each) and the target table. */
export function printReport(res: Results): void {
  const header = ['row', ...CONTENDERS, 'Spool/BullMQ', 'Spool/bee-queue', ...CONTENDERS.map((c) => `cmds/job ${c}`)];
  const rows: string[][] = [];
  const throughputRow = (label: string, key: string, names: readonly string[] = CONTENDERS) => {
    const t = CONTENDERS.map((c) => (names.includes(c) ? res.get(key, c) : undefined));
    if (!t[0]) return;
    const per = t.map((x) => x?.perSec);
    rows.push([label, ...per.map((v) => fmt(v)), fmt(ratio(per[0], per[1]), 2), fmt(ratio(per[0], per[2]), 2), ...t.map((x) => fmt(x?.cmdsPerJob, 1))]);
  };
  const valueRow = (label: string, values: readonly (number | undefined)[], digits: number) => {
    if (values.every((v) => v === undefined)) return;
    rows.push([label, ...values.map((v) => fmt(v, digits)), fmt(ratio(values[0], values[1]), 2), fmt(ratio(values[0], values[2]), 2), '', '', '']);
  };

  // Beside each add row, its raw ceiling: the ceiling's ops/s over each contender's jobs/s (1.00: at the ceiling).
  const ceilingRow = (ceiling: string, key: string) => {
    const c = res.get('ceiling', ceiling);
    if (!c || !res.get(key, 'Spool')) return;
    rows.push([`  ceiling/row: ${ceiling} = ${fmt(c.perSec)}/s`, ...CONTENDERS.map((name) => fmt(ceilingRatio(res, ceiling, key, name), 2)), '', '', '', '', '']);
  };
  throughputRow('add one by one (100 in flight), jobs/s', 'add-single');
  ceilingRow(CEILINGS.setInFlight, 'add-single');
  ceilingRow(CEILINGS.evalsha, 'add-single');
  throughputRow('bulk add (1,000 per call), jobs/s', 'add-bulk');
  ceilingRow(CEILINGS.setPipelined, 'add-bulk');
  for (const c of ['c1', 'c10', 'c100']) {
    for (const retention of ['kept', 'removed']) {
      throughputRow(`process ${fmt(res.jobs)} no-op jobs, ${c}, ${retention}, jobs/s`, `${c}-${retention}`);
    }
  }
  for (const h of HANDLER_ROWS) {
    for (const retention of ['kept', 'removed']) {
      throughputRow(`${h.label}, ${retention}, ${fmt(handlerJobs(h, res.jobs))} jobs (bound ${fmt(handlerBound(h))}/s), jobs/s`, `${h.key}-${retention}`);
    }
  }
  for (const p of [50, 95, 99]) {
    valueRow(`add-to-start latency p${p}, ms (lower is better)`, CONTENDERS.map((c) => res.latency(c, p)), 2);
  }
  const floor = res.latency(FLOOR, 50);
  if (floor !== undefined) {
    // The ratio columns: the floor over each contender's p50 (the latency target asks Spool for 0.5 of BullMQ's).
    const p50 = CONTENDERS.map((c) => res.latency(c, 50));
    rows.push(['  floor: one PING round trip after the same pause, p50 ms (ratio: vs p50)', fmt(floor, 2), '', '', fmt(ratio(floor, p50[1]), 2), fmt(ratio(floor, p50[2]), 2), '', '', '']);
  }
  valueRow('Redis memory per waiting job, bytes (lower is better)', CONTENDERS.map((c) => res.memory.get(c)), 0);
  valueRow('Redis memory per retained completed job, bytes (lower is better)', CONTENDERS.map((c) => res.memoryCompleted.get(c)), 0);
  for (const retention of ['kept', 'removed']) {
    valueRow(`Redis commands per job, add + claim + complete (c100 ${retention})`, CONTENDERS.map((c) => res.commandsPerJob(c, retention)), 1);
  }
  throughputRow('process c50, ungrouped, kept, jobs/s', 'c50');
  const grouped = res.get('groups', 'Spool');
  const ungrouped = res.get('c50', 'Spool');
  if (grouped && ungrouped) {
    const kept = grouped.perSec / ungrouped.perSec;
    rows.push([`${res.groups} groups x ${fmt(res.jobs / res.groups)} jobs, c50 (ratio: vs Spool ungrouped, >= 0.7)`, fmt(grouped.perSec), 'n/a', 'n/a', fmt(kept, 2), '', fmt(grouped.cmdsPerJob, 1), '', '']);
    if (res.groupSpread) {
      const { min, max, ms } = res.groupSpread;
      rows.push(['  group completion: first..last group done, ms (spread % of run)', `${fmt(min)}..${fmt(max)}`, '', '', fmt(((max - min) / ms) * 100, 1) + '%', '', '', '', '']);
    }
  }
  const on = res.get('events-on', 'Spool');
  const off = res.get('events-off', 'Spool');
  if (on && off) {
    rows.push(['process c100, event stream on (ratio: vs off)', fmt(on.perSec), 'n/a', 'n/a', fmt(on.perSec / off.perSec, 2), '', fmt(on.cmdsPerJob, 1), '', '']);
    rows.push(['process c100, event stream off (metrics stay on: no switch), jobs/s', fmt(off.perSec), 'n/a', 'n/a', '', '', fmt(off.cmdsPerJob, 1), '', '']);
  }
  for (const sink of ['pipelined', 'serial']) {
    const perJob = res.get(`batch-${sink}-per-job`, 'Spool');
    const batched = res.get(`batch-${sink}-batch`, 'Spool');
    if (!perJob || !batched) continue;
    rows.push([`${sink} sink, one write per job, 200 slots, jobs/s`, fmt(perJob.perSec), 'n/a', 'n/a', '', '', '', '', '']);
    rows.push([`${sink} sink, one write per batch of 100 (ratio: vs per job)`, fmt(batched.perSec), 'n/a', 'n/a', fmt(batched.perSec / perJob.perSec, 2), '', '', '', '']);
  }
  console.log('\n' + renderTable(header, rows));
  const ceilings = Object.values(CEILINGS).flatMap((c) => {
    const t = res.get('ceiling', c);
    return t ? [[c, fmt(t.perSec)]] : [];
  });
  if (ceilings.length) console.log('\nRaw ceilings (same run, same Redis; best of the repeats):\n' + renderTable(['ceiling', 'ops/s'], ceilings));
  console.log('\n' + targetTables(res));
}
