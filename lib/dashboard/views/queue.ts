import type { Job } from '../../engine/job.js';
import type { JobCounts, JobState } from '../../store/store.js';
import { html, query, type SafeHtml } from './escape.js';
import { ago, count, duration, jobs as njobs } from './format.js';
import { actionButton, jobHref, queueHref } from './layout.js';
import { STATE_COLUMNS } from './overview.js';
import { addJobForm } from './add-job.js';

export interface QueueFilter {
  readonly name?: string;
  readonly error?: string;
}

export interface QueuePageModel {
  readonly base: string;
  readonly connection: string;
  readonly queue: string;
  readonly counts: JobCounts;
  readonly paused: boolean;
  readonly pausedNames: readonly string[];
  readonly state: JobState;
  readonly filter: QueueFilter;
  /** The direction the state's index is walked in (see sortNote). */
  readonly order: 'asc' | 'desc';
  /** Links to the page sorted each way; absent when a filter fixes the order. */
  readonly sortLinks?: { readonly asc: string; readonly desc: string };
  readonly jobs: readonly Job[];
  /** Jobs the current state and filter match (what "all matching" actions touch). */
  readonly matching: number;
  /** `matching` is a lower bound: the filter was counted up to it. */
  readonly matchingCapped?: boolean;
  readonly prev?: string;
  readonly next?: string;
  readonly from: number;
  readonly readOnly: boolean;
  readonly now: number;
  readonly notice?: string;
  /** Every queue of the dashboard, for the switcher. */
  readonly queues: readonly { readonly label: string; readonly href: string; readonly connection: string; readonly queue: string }[];
}

/**
 * A select of every queue and a Go button: a plain GET form to `_switch`, which redirects to the queue's page, so
 * it works without JavaScript (keyboard: Tab, arrows, Enter). The script only saves the redirect's round trip.
 */
function switcher(m: QueuePageModel): SafeHtml {
  if (m.queues.length < 2) return html``;
  return html`<form class="switcher" method="get" action="${m.base === '/' ? '' : m.base}/_switch"><label for="queue-switch">Queue</label> <select id="queue-switch" name="to">${m.queues.map(
    (q) => html`<option value="${q.connection}/${q.queue}" data-href="${q.href}"${q.queue === m.queue && q.connection === m.connection ? html` selected` : ''}>${q.label}</option>`,
  )}</select> <button type="submit">Go</button></form>`;
}

function tabs(m: QueuePageModel): SafeHtml {
  return html`<nav class="tabs">${STATE_COLUMNS.map(
    (s) => html`<a class="${s === m.state ? 'on' : ''} ${s === 'failed' && m.counts.failed ? 'bad' : ''}" href="${queueHref(m.base, m.connection, m.queue, query({ state: s }))}">${s} <span class="n">${count(m.counts[s])}</span></a>`,
  )}</nav>`;
}

function search(m: QueuePageModel): SafeHtml {
  return html`<form class="search" method="get" action="${queueHref(m.base, m.connection, m.queue)}">
<input type="hidden" name="state" value="${m.state}">
<label>Job id <input name="id" placeholder="go to id" size="14"></label>
<label>Name <input name="name" value="${m.filter.name ?? ''}" placeholder="any" size="12"></label>
${m.state === 'failed' ? html`<label>Error text <input name="error" value="${m.filter.error ?? ''}" placeholder="e.g. ECONNREFUSED" size="18"></label>` : ''}
<button type="submit">Search</button>${m.filter.name || m.filter.error ? html` <a href="${queueHref(m.base, m.connection, m.queue, query({ state: m.state }))}">clear</a>` : ''}
</form>`;
}

function queueActions(m: QueuePageModel): SafeHtml {
  if (m.readOnly) return html``;
  const q = m.queue;
  return html`<div class="qactions">
${m.paused ? actionButton('Resume queue', `Resume queue ${q}? Workers start taking its ${count(m.counts.waiting + m.counts.paused)} waiting jobs.`, { action: 'resume' }) : actionButton('Pause queue', `Pause queue ${q}? Workers stop taking its jobs; running jobs finish.`, { action: 'pause' }, 'warn')}
<span class="pause-name"><input id="pause-name" placeholder="job name" size="12"> ${actionButton('Pause name', `Pause jobs named "{name}" in ${q}?`, { action: 'pause', names: '{name}' }, 'warn')}</span>
${m.pausedNames.map((n) => html`<span class="badge warn">${n} paused ${actionButton('resume', `Resume jobs named "${n}" in ${q}?`, { action: 'resume', names: n }, 'small')}</span>`)}
</div>`;
}

/** Buttons for the selected rows and for every job the filter matches, by state. */
function bulk(m: QueuePageModel): SafeHtml {
  if (m.readOnly || m.matching === 0) return html``;
  const q = m.queue;
  const f = { ...(m.filter.name && { name: m.filter.name }), ...(m.filter.error && { errorContains: m.filter.error }) };
  const filter = JSON.stringify(f);
  const all = `${m.matchingCapped ? 'at least ' : ''}${njobs(m.matching)}${m.filter.name || m.filter.error ? ' matching the filter' : ''}`;
  const sel = (label: string, verb: string, action: string, style = ''): SafeHtml =>
    actionButton(label, `${verb} {n} selected job(s) of ${q}?`, { action, ids: 'selected' }, `needs-selection ${style}`);
  const every = (label: string, verb: string, action: string, extra: Record<string, string>, style = ''): SafeHtml =>
    actionButton(`${label} all ${count(m.matching)}${m.matchingCapped ? '+' : ''}`, `${verb} ${all} of ${q}?`, { action, filter, ...extra }, style);
  const parts: SafeHtml[] = [];
  switch (m.state) {
    case 'failed':
      parts.push(sel('Redrive selected', 'Redrive', 'redrive'), every('Redrive', 'Redrive', 'redrive', {}));
      if (!m.filter.error) parts.push(sel('Remove selected', 'Remove', 'remove', 'danger'), every('Purge', 'Delete', 'purge', { state: 'failed' }, 'danger'));
      break;
    case 'delayed':
      parts.push(sel('Promote selected', 'Run now', 'promote'), every('Promote', 'Run now', 'promote', {}), sel('Cancel selected', 'Cancel', 'cancel', 'danger'), every('Cancel', 'Cancel', 'cancel', { state: 'delayed' }, 'danger'));
      break;
    case 'waiting':
      parts.push(sel('Cancel selected', 'Cancel', 'cancel', 'danger'), every('Cancel', 'Cancel', 'cancel', { state: 'waiting' }, 'danger'));
      break;
    case 'active':
    case 'waiting-children':
      parts.push(sel('Cancel selected', 'Cancel', 'cancel', 'danger'));
      break;
    case 'completed':
    case 'cancelled':
      parts.push(sel('Remove selected', 'Remove', 'remove', 'danger'), every('Purge', 'Delete', 'purge', { state: m.state }, 'danger'));
      break;
  }
  return html`<div class="bulk">${parts}</div>`;
}

function when(m: QueuePageModel, j: Job): string {
  if (m.state === 'delayed') return `runs ${ago(j.runAt, m.now)}`;
  if (j.finishedAt !== undefined) return `finished ${ago(j.finishedAt, m.now)}`;
  if (j.startedAt !== undefined && m.state === 'active') return `started ${ago(j.startedAt, m.now)}`;
  return `added ${ago(j.createdAt, m.now)}`;
}

/** A result in one short line: the page shows the whole on the job's page. */
function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function progressCell(p: unknown): SafeHtml {
  if (typeof p === 'number' && p >= 0 && p <= 100) return html`<progress max="100" value="${p}" aria-label="progress"></progress> ${p}%`;
  return html`<span class="muted">progress ${preview(p)}</span>`;
}

function detailOf(j: Job): SafeHtml | string {
  if (j.error) return html`<span class="err">${j.error.reason ? html`<span class="badge bad">${j.error.reason}</span> ` : ''}${j.error.message}</span>`;
  if (j.state === 'completed') return j.result === undefined ? html`<span class="muted">no result</span>` : html`<code class="result">${preview(j.result)}</code>`;
  return j.progress !== undefined ? progressCell(j.progress) : '';
}

/** What each state's index is ordered by, and the words for its two directions. */
const SORT_KEYS: Record<JobState, { readonly by: string; readonly asc: string; readonly desc: string }> = {
  completed: { by: 'finished at', asc: 'oldest first', desc: 'newest first' },
  failed: { by: 'finished at', asc: 'oldest first', desc: 'newest first' },
  cancelled: { by: 'finished at', asc: 'oldest first', desc: 'newest first' },
  delayed: { by: 'run at', asc: 'due soonest first', desc: 'due last first' },
  waiting: { by: 'claim order (priority, then arrival)', asc: 'next to run first', desc: 'last in line first' },
  active: { by: 'lease expiry', asc: 'lease ends soonest first', desc: 'lease ends last first' },
  'waiting-children': { by: 'the time it started waiting', asc: 'oldest first', desc: 'newest first' },
};

/** The When column's header: its two sort links (plain links, no script), or the one order a filter allows. */
function whenHeader(m: QueuePageModel): SafeHtml {
  const k = SORT_KEYS[m.state];
  if (!m.sortLinks) return html`<th title="a filtered list follows the engine's scan, which goes one way">When <span class="muted small">(${k[m.order]})</span></th>`;
  const link = (dir: 'asc' | 'desc'): SafeHtml =>
    html`<a class="sort${m.order === dir ? ' on' : ''}" href="${m.sortLinks![dir]}"${m.order === dir ? html` aria-current="true"` : ''}>${dir === 'asc' ? '↑' : '↓'} ${k[dir]}</a>`;
  return html`<th class="sortable">When ${link('asc')} ${link('desc')}</th>`;
}

/** Why only the When column sorts. */
function sortNote(m: QueuePageModel): SafeHtml {
  const k = SORT_KEYS[m.state];
  return m.sortLinks
    ? html`<p class="muted small sortnote">Sorted by ${k.by}, ${k[m.order]}. Only the When column sorts: ${m.state} jobs are kept in that order, so either direction reads one bounded range; sorting by another column would read every job.</p>`
    : html`<p class="muted small sortnote">Filtered: ${k[m.order]} only (the filter scans the ${m.state} jobs one way, in bounded steps). Clear the filter to sort.</p>`;
}

/** Handler time of a finished job (started to finished, the last attempt). */
function took(j: Job): string {
  return j.startedAt !== undefined && j.finishedAt !== undefined ? duration(Math.max(0, j.finishedAt - j.startedAt)) : '–';
}

function row(m: QueuePageModel, j: Job): SafeHtml {
  const detail = detailOf(j);
  const timed = m.state === 'completed' || m.state === 'failed';
  return html`<tr data-id="${j.id}">
${m.readOnly ? '' : html`<td><input type="checkbox" class="pick" value="${j.id}" aria-label="select ${j.id}"></td>`}
<td><a class="jid" href="${jobHref(m.base, m.connection, m.queue, j.id)}">${j.id}</a></td>
<td>${j.name}</td>
<td class="num">${j.attempt}/${j.maxAttempts}</td>
<td class="muted">${when(m, j)}</td>${timed ? html`<td class="num">${took(j)}</td>` : ''}
<td class="detail">${detail}</td>
</tr>`;
}

/** One queue: state tabs, search, paged jobs with bulk actions. */
export function queueView(m: QueuePageModel): SafeHtml {
  const to = m.from + m.jobs.length - 1;
  const sub = (label: string, path: string): SafeHtml => html`<a href="${queueHref(m.base, m.connection, m.queue, path)}">${label}</a>`;
  return html`<div class="qhead"><h1>${m.queue} ${m.paused ? html`<span class="badge warn">paused</span>` : html`<span class="badge ok">running</span>`}</h1>${queueActions(m)}</div>
${switcher(m)}
<nav class="subnav">${sub('Schedulers', '/schedulers')} ${sub('Metrics', '/metrics')} <a href="${m.base === '/' ? '' : m.base}/_workers?queue=${encodeURIComponent(m.queue)}">Workers</a></nav>
${m.readOnly ? '' : addJobForm('Add job', m.queue)}
${tabs(m)}
${search(m)}
${m.notice ? html`<p class="notice">${m.notice}</p>` : ''}
${bulk(m)}
${m.jobs.length === 0
  ? html`<p class="empty">No ${m.state} jobs${m.filter.name || m.filter.error ? ' match the filter' : ''}.</p>`
  : html`<table class="grid jobs">
<thead><tr>${m.readOnly ? '' : html`<th><input type="checkbox" class="pick-all" aria-label="select all on this page"></th>`}<th>Id</th><th>Name</th><th class="num">Attempt</th>${whenHeader(m)}${m.state === 'completed' || m.state === 'failed' ? html`<th class="num" title="started to finished, last attempt">Duration</th>` : ''}<th>${m.state === 'failed' ? 'Error' : m.state === 'completed' ? 'Result' : 'Progress'}</th></tr></thead>
<tbody>${m.jobs.map((j) => row(m, j))}</tbody>
</table>${sortNote(m)}`}
<nav class="pager">${m.prev ? html`<a href="${m.prev}">← previous</a>` : ''}<span class="muted">${m.jobs.length ? `${count(m.from)}–${count(to)} of ${count(m.matching)}${m.matchingCapped ? '+' : ''}` : ''}</span>${m.next ? html`<a href="${m.next}">next →</a>` : ''}</nav>`;
}
