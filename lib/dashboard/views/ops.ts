import type { SchedulerInfo } from '../../engine/schedulers.js';
import type { ServerReport } from '../../store/server-report.js';
import type { WorkerInfo } from '../../store/worker-registry.js';
import { html, type SafeHtml } from './escape.js';
import { ago, count, duration, time } from './format.js';
import { actionButton, jobHref, queueHref } from './layout.js';

/** The schedulers page of one queue. */
export interface SchedulersPageModel {
  readonly base: string;
  readonly connection: string;
  readonly queue: string;
  readonly schedulers: readonly SchedulerInfo[];
  readonly readOnly: boolean;
  readonly now: number;
}

function pattern(s: SchedulerInfo): string {
  return s.repeat.cron !== undefined ? `cron ${s.repeat.cron}` : `every ${duration(s.repeat.every ?? 0)}`;
}

function bounds(s: SchedulerInfo, now: number): string {
  const parts = [s.repeat.limit !== undefined ? `${s.count} of ${s.repeat.limit} ticks` : '', s.repeat.endAt !== undefined ? `ends ${time(s.repeat.endAt, now)}` : ''].filter(Boolean);
  return parts.join(', ') || '–';
}

export function schedulersView(m: SchedulersPageModel): SafeHtml {
  const q = m.queue;
  const head = html`<div class="qhead"><h1>${q}: schedulers</h1><a href="${queueHref(m.base, m.connection, q)}">← jobs</a></div>`;
  if (m.schedulers.length === 0) return html`${head}<p class="empty">Queue ${q} has no scheduler (upsertScheduler, or @OnJob({ schedule })).</p>`;
  return html`${head}<table class="grid schedulers">
<thead><tr><th>Scheduler</th><th>Job</th><th>Pattern</th><th>Time zone</th><th>Next run</th><th>Last tick's job</th><th>Missed</th><th>Limit / end</th><th class="num">Ran</th>${m.readOnly ? '' : html`<th>Actions</th>`}</tr></thead>
<tbody>${m.schedulers.map(
    (s) => html`<tr data-scheduler="${s.id}">
<td><strong>${s.id}</strong></td><td>${s.job.name}</td><td><code>${pattern(s)}</code></td><td>${s.repeat.tz ?? (s.repeat.cron !== undefined ? 'UTC' : '–')}</td>
<td>${s.paused ? html`<span class="badge warn">paused</span>` : s.next === null ? html`<span class="muted">ended</span>` : html`<span title="${new Date(s.next).toISOString()}">${ago(s.next, m.now)}</span>`}</td>
<td>${s.lastJobId ? html`<a href="${jobHref(m.base, m.connection, q, s.lastJobId)}">${s.lastJobId}</a> <span class="muted">${s.lastTickAt ? ago(s.lastTickAt, m.now) : ''}</span>` : html`<span class="muted">none yet</span>`}</td>
<td>${s.repeat.missed}</td><td>${bounds(s, m.now)}</td><td class="num">${count(s.count)}${s.skipped ? html` <span class="muted">(+${count(s.skipped)} skipped)</span>` : ''}</td>
${m.readOnly ? '' : html`<td class="acts">${s.paused
  ? actionButton('Resume', `Resume scheduler "${s.id}" of ${q}? It ticks again from its next time after now; the ticks that fell while paused do not run.`, { action: 'resume-scheduler', scheduler: s.id })
  : actionButton('Pause', `Pause scheduler "${s.id}" of ${q}? Its pending tick is dropped and nothing ticks until you resume it.`, { action: 'pause-scheduler', scheduler: s.id }, 'warn')} ${actionButton('Run now', `Add one "${s.job.name}" job of scheduler "${s.id}" to ${q} now? Its next tick stays as it is.`, { action: 'run-scheduler', scheduler: s.id })} ${actionButton('Remove', `Remove scheduler "${s.id}" of ${q} and its pending tick? Nothing ticks again unless the app declares it again.`, { action: 'remove-scheduler', scheduler: s.id }, 'danger')}</td>`}
</tr>`,
  )}</tbody></table>`;
}

/** A worker row with the queue it serves. */
export interface WorkerRow extends WorkerInfo {
  readonly connection: string;
  readonly queue: string;
}

/** Pause or resume one worker: posted to its queue's actions; the worker takes it at its next heartbeat. */
function workerButton(base: string, w: WorkerRow): SafeHtml {
  const endpoint = queueHref(base, w.connection, w.queue, '/actions');
  const who = `worker ${w.id} of ${w.queue} (${w.hostname}, pid ${w.pid})`;
  return w.paused
    ? actionButton('Resume', `Resume ${who}? It claims jobs again within 5 s.`, { action: 'resume-worker', worker: w.id }, 'small', endpoint)
    : actionButton('Pause', `Pause ${who}? Within 5 s it takes no new job; its ${w.running} running job(s) finish.`, { action: 'pause-worker', worker: w.id }, 'small warn', endpoint);
}

export function workersView(base: string, rows: readonly WorkerRow[], now: number, readOnly: boolean, only?: string): SafeHtml {
  const head = html`<h1>Workers${only ? html` of ${only}` : ''}</h1>`;
  if (rows.length === 0) return html`${head}<p class="empty">No worker heartbeat in the last 15 s${only ? ` for ${only}` : ''}.</p>`;
  const slots = rows.reduce((s, w) => s + w.concurrency, 0);
  const busy = rows.reduce((s, w) => s + w.running, 0);
  return html`${head}<p class="muted">${count(rows.length)} worker(s) on ${count(new Set(rows.map((w) => w.hostname)).size)} host(s): ${count(busy)} of ${count(slots)} slots busy.</p>
<table class="grid workers"><thead><tr><th>Queue</th><th>Worker</th><th>Host</th><th class="num">Pid</th><th class="num">Concurrency</th><th class="num">Busy slots</th><th>Status</th><th>Started</th><th>Last heard</th>${readOnly ? '' : html`<th>Actions</th>`}</tr></thead>
<tbody>${rows.map(
    (w) => html`<tr data-worker="${w.id}"><td><a href="${queueHref(base, w.connection, w.queue)}">${w.queue}</a></td><td><code>${w.id}</code></td><td>${w.hostname}</td><td class="num">${w.pid}</td><td class="num">${w.concurrency}</td>
<td class="num">${w.running} <progress max="${w.concurrency}" value="${w.running}" aria-label="busy slots"></progress></td><td>${w.paused ? html`<span class="badge warn">paused</span>` : html`<span class="badge ok">running</span>`}</td>
<td title="${new Date(w.startedAt).toISOString()}">${ago(w.startedAt, now)}</td><td>${ago(w.seenAt, now)}</td>${readOnly ? '' : html`<td>${workerButton(base, w)}</td>`}</tr>`,
  )}</tbody></table>`;
}

/** One connection's server, for the Redis page. */
export interface RedisSection {
  readonly connection: string;
  /** Null: this connection's store cannot report (not Redis). */
  readonly report: ServerReport | null;
  /** Jobs of the registered queues on it (the prefix's key count is about this, plus a few keys per queue). */
  readonly jobs: number;
  readonly queues: number;
}

function mb(n: number | undefined): string {
  return n === undefined ? '?' : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function redisView(sections: readonly RedisSection[], now: number): SafeHtml {
  return html`<h1>Redis</h1>${sections.map((s) => {
    const r = s.report;
    if (!r) return html`<h2>${s.connection}</h2><p class="empty">This connection's store does not report a server.</p>`;
    const skew = r.redisTime === undefined ? undefined : r.redisTime - r.hostTime;
    const rows: [string, SafeHtml | string][] = [
      ['Version', `${r.version ?? '?'}${r.mode ? ` (${r.mode})` : ''}`],
      ['Memory', html`${mb(r.usedMemory)} used of ${r.maxmemory ? mb(r.maxmemory) : 'no maxmemory'}${r.maxmemory && r.usedMemory ? html` <progress max="${r.maxmemory}" value="${r.usedMemory}"></progress>` : ''}`],
      ['Eviction policy', r.maxmemoryPolicy === undefined ? 'unknown' : r.maxmemoryPolicy === 'noeviction' ? html`<span class="badge ok">noeviction</span>` : html`<span class="badge bad">${r.maxmemoryPolicy}</span> may evict job keys: set noeviction`],
      ['Connected clients', r.connectedClients === undefined ? '?' : count(r.connectedClients)],
      ['Keys', html`${r.keys === undefined ? '?' : count(r.keys)} in the database; this app's ${count(s.queues)} queue(s) hold ≈ ${count(s.jobs)} job keys (one hash per job) plus a few keys per queue`],
      ['Clock', skew === undefined ? 'unknown' : `Redis ${Math.abs(skew)} ms ${skew >= 0 ? 'ahead of' : 'behind'} this host (read ${time(r.hostTime, now)})`],
    ];
    const cluster = r.cluster
      ? html`<h3>Cluster: ${r.cluster.state}</h3><table class="grid cluster"><thead><tr><th>Node</th><th>Role</th><th>Slots</th><th>Flags</th></tr></thead><tbody>${r.cluster.nodes.map(
          (n) => html`<tr><td><code>${n.address}</code></td><td>${n.role}${n.masterId ? html` <span class="muted">of ${r.cluster!.nodes.find((x) => x.id === n.masterId)?.address ?? n.masterId.slice(0, 8)}</span>` : ''}</td><td>${n.slots || '–'}</td><td>${n.trouble.length ? html`<span class="badge bad">${n.trouble.join(',')}</span>` : html`<span class="badge ok">ok</span>`}</td></tr>`,
        )}</tbody></table>`
      : '';
    return html`<section class="redis" data-connection="${s.connection}"><h2>Connection ${s.connection}</h2><dl class="facts">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>${cluster}${r.refused.length ? html`<p class="muted">Not readable here: ${r.refused.join('; ')}</p>` : ''}</section>`;
  })}`;
}
