import type { JobCounts, JobState } from '../../store/store.js';
import { throughputChart, type MinutePoint } from './chart.js';
import { html, query, type SafeHtml } from './escape.js';
import { count, duration } from './format.js';
import { queueHref } from './layout.js';

export interface OverviewRow {
  readonly connection: string;
  readonly queue: string;
  readonly counts: JobCounts;
  readonly paused: boolean;
  readonly pausedNames: readonly string[];
  /** Workers heard from in the last 15 s (queue.getWorkers()): how many, jobs they held, their slots, their hosts. */
  readonly workers: { readonly count: number; readonly held: number; readonly slots: number; readonly hosts: readonly string[] };
  readonly oldestWaitingMs: number;
  readonly minutes: readonly MinutePoint[];
}

/** Columns of the overview, in the order a job moves through them. */
export const STATE_COLUMNS: readonly JobState[] = ['waiting', 'delayed', 'active', 'waiting-children', 'completed', 'failed', 'cancelled'];

function cell(base: string, row: OverviewRow, state: JobState): SafeHtml {
  const n = row.counts[state];
  const cls = n === 0 ? 'zero' : state === 'failed' ? 'bad' : '';
  return html`<td class="num ${cls}"><a href="${queueHref(base, row.connection, row.queue, query({ state }))}">${count(n)}</a></td>`;
}

function status(row: OverviewRow): SafeHtml {
  if (row.paused) return html`<span class="badge warn">paused</span>`;
  if (row.pausedNames.length) return html`<span class="badge warn" title="${row.pausedNames.join(', ')}">${row.pausedNames.length} name${row.pausedNames.length === 1 ? '' : 's'} paused</span>`;
  return html`<span class="badge ok">running</span>`;
}

function workersCell(row: OverviewRow): SafeHtml {
  const w = row.workers;
  if (w.count === 0) return html`<td class="num zero" title="no worker heartbeat in the last 15 s">0</td>`;
  return html`<td class="num" title="${w.held} of ${w.slots} slots busy on ${w.hosts.join(', ')}">${count(w.count)}</td>`;
}

/** Every registered queue on every connection: workers, counts, age of the oldest waiting job, paused state, last hour. */
export function overviewView(base: string, rows: readonly OverviewRow[], showConnection: boolean): SafeHtml {
  if (rows.length === 0) return html`<p class="empty">No queue is registered in this app (QueueModule.registerQueue).</p>`;
  return html`<h1>Queues</h1>
<table class="grid overview">
<thead><tr><th>Queue</th>${showConnection ? html`<th>Connection</th>` : ''}<th>Status</th><th class="num">Workers</th>${STATE_COLUMNS.map((s) => html`<th class="num">${s}</th>`)}<th class="num">Oldest waiting</th><th title="completed jobs and failed attempts (each retried or dead-lettered attempt counts once) per minute">Last hour</th></tr></thead>
<tbody>
${rows.map(
  (r) => html`<tr data-queue="${r.queue}">
<td><a class="qname" href="${queueHref(base, r.connection, r.queue)}">${r.queue}</a></td>${showConnection ? html`<td>${r.connection}</td>` : ''}
<td>${status(r)}</td>${workersCell(r)}${STATE_COLUMNS.map((s) => cell(base, r, s))}
<td class="num ${r.oldestWaitingMs > 60_000 ? 'warn' : ''}">${r.oldestWaitingMs > 0 ? duration(r.oldestWaitingMs) : '–'}</td>
<td>${throughputChart(r.minutes)}</td>
</tr>`,
)}
</tbody>
</table>`;
}
